import Foundation
import SecureStore
import XCTest

/// FTS3 tables, tokenization, `FTS3Pattern` and `matching` on an encrypted
/// file, with the SQL GRDB writes.
final class FTS3Tests: SecureStoreTestCase {
    private struct Note: Codable, FetchableRecord, PersistableRecord {
        var title: String
        var body: String
    }

    private func makeNotes() throws -> (DatabaseQueue, TraceBox) {
        let traced = TraceBox()
        let dbQueue = try makeTracedQueue(into: traced)
        try dbQueue.write { db in
            try db.create(virtualTable: "note", using: FTS3()) { t in
                t.tokenizer = .porter
                t.column("title")
                t.column("body")
            }
            try Note(title: "Plans", body: "The secret plan is hidden").insert(db)
            try Note(title: "Groceries", body: "Apples, pears and a planner").insert(db)
            try Note(title: "Secrets", body: "Nothing here").insert(db)
        }
        return (dbQueue, traced)
    }

    func testTableCreationTokenizationAndPatterns() throws {
        let (dbQueue, traced) = try makeNotes()
        XCTAssertTrue(traced.allStatements().contains("CREATE VIRTUAL TABLE \"note\" USING fts3(title, body, tokenize=porter)"),
                      traced.allStatements().joined(separator: "\n"))
        // The simple tokenizer folds ASCII letters only.
        XCTAssertEqual(try FTS3.tokenize("Hello, World! Ça va?"), ["hello", "world", "Ça", "va"])
        XCTAssertEqual(try FTS3.tokenize("running plans", withTokenizer: .porter), ["run", "plan"])
        XCTAssertEqual(FTS3Pattern(matchingAnyTokenIn: "secret, plan")?.rawPattern, "secret OR plan")
        XCTAssertEqual(FTS3Pattern(matchingAllTokensIn: "secret plan")?.rawPattern, "secret plan")
        XCTAssertEqual(FTS3Pattern(matchingAllPrefixesIn: "sec pla")?.rawPattern, "sec* pla*")
        XCTAssertEqual(FTS3Pattern(matchingPhrase: "secret plan")?.rawPattern, "\"secret plan\"")
        XCTAssertNil(FTS3Pattern(matchingAnyTokenIn: "?!"))
        XCTAssertThrowsError(try FTS3Pattern(rawPattern: "\"unbalanced")) { error in
            // SQLite's message, without the SQL of the check.
            XCTAssertTrue("\(error)".contains("malformed MATCH expression"), "\(error)")
            XCTAssertFalse("\(error)".contains("documents"), "\(error)")
        }
        try dbQueue.read { db in
            let pattern = FTS3Pattern(matchingAllTokensIn: "secret plan")
            traced.clear()
            XCTAssertEqual(try Note.matching(pattern).fetchAll(db).map(\.title), ["Plans"])
            XCTAssertTrue(traced.allStatements().contains("SELECT * FROM \"note\" WHERE \"note\" MATCH 'secret plan'"),
                          traced.allStatements().joined(separator: "\n"))
            traced.clear()
            XCTAssertEqual(try Note.filter(Column("title").match(FTS3Pattern(matchingAnyTokenIn: "secrets"))).fetchAll(db).map(\.body),
                           ["Nothing here"])
            XCTAssertTrue(traced.allStatements().contains("SELECT * FROM \"note\" WHERE \"title\" MATCH 'secrets'"),
                          traced.allStatements().joined(separator: "\n"))
            XCTAssertEqual(try Note.matching(FTS3Pattern(matchingAllPrefixesIn: "plan")).fetchCount(db), 2)
            XCTAssertEqual(try Note.matching(FTS3Pattern?.none).fetchCount(db), 0)
        }
    }

    /// `NOT`, `AND` and `(` are operators of SQLite's enhanced query syntax
    /// (`SQLITE_ENABLE_FTS3_PARENTHESIS`) and plain words of the standard
    /// one, which Debian's SQLCipher builds use. A raw pattern is checked by
    /// the library that will run it, so it is refused exactly when a query
    /// with it would fail.
    func testRawPatternsFollowTheQuerySyntaxOfTheLibrary() throws {
        let (dbQueue, _) = try makeNotes()
        let enhanced = try dbQueue.read { db in
            try String.fetchAll(db, sql: "PRAGMA compile_options").contains("ENABLE_FTS3_PARENTHESIS")
        }
        try dbQueue.write { db in try Note(title: "Not", body: "not now").insert(db) }
        // As words: "not" in the new note, "and" in the groceries, and "("
        // is no word at all (an empty query).
        for (raw, matches) in [("NOT", 1), ("AND", 1), ("(", 0)] {
            let pattern = Result { try FTS3Pattern(rawPattern: raw) }
            let query = Result { try dbQueue.read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM note WHERE note MATCH ?", arguments: [raw])
            } }
            if enhanced {
                XCTAssertThrowsError(try pattern.get(), raw)
            } else {
                XCTAssertEqual(try pattern.get().rawPattern, raw)
                XCTAssertEqual(try query.get(), matches, "the word \(raw)")
            }
            XCTAssertEqual((try? pattern.get()) == nil, (try? query.get()) == nil, "the check and the query agree on \(raw)")
        }
    }

    /// A record of an FTS table writes its rowid through the container's
    /// column subscript, as GRDB's FTS records do.
    private struct Doc: FetchableRecord, PersistableRecord {
        static let databaseTableName = "doc"
        var id: Int64
        var body: String
        init(id: Int64, body: String) { self.id = id; self.body = body }
        init(row: Row) throws { id = row["rowid"]; body = row["body"] }
        func encode(to container: inout PersistenceContainer) {
            container[.rowID] = id
            container[Column("body")] = body
        }
    }

    func testRecordsOfAnFTSTableSetTheirRowID() throws {
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in
            try db.create(virtualTable: "doc", using: FTS3()) { t in t.column("body") }
            try Doc(id: 42, body: "the answer").insert(db)
            let docs = try Doc.select(Column.rowID, Column("body")).matching(FTS3Pattern(matchingAllTokensIn: "answer")).fetchAll(db)
            XCTAssertEqual(docs.map(\.id), [42])
        }
    }

    /// An FTS4 table synchronized with its content table changes its
    /// shadow tables when the content table changes: the statement does not
    /// announce those writes, and the observation of the FTS4 table still
    /// sees the commit (GRDB's ValueObservationRowTests).
    func testObservationOfASynchronizedFTS4TableSeesContentChanges() throws {
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in
            try db.create(table: "document") { t in
                t.primaryKey("id", .integer)
                t.column("content", .text)
            }
            try db.create(virtualTable: "ft_document", using: FTS4()) { t in
                t.synchronize(withTable: "document")
                t.column("content")
            }
        }
        let values = ObservedValues<[String]>()
        let queue = DispatchQueue(label: "FTS3Tests")
        let cancellable = ValueObservation
            .trackingConstantRegion { db in try String.fetchAll(db, sql: "SELECT content FROM ft_document WHERE ft_document MATCH 'foo'") }
            .start(in: dbQueue, scheduling: .async(onQueue: queue), onError: values.fail, onChange: values.append)
        defer { cancellable.cancel() }
        XCTAssertEqual(values.wait { $0.count == 1 }, [[]])
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO document (content) VALUES ('foo bar')") }
        XCTAssertEqual(values.wait { $0.count == 2 }, [[], ["foo bar"]])
        XCTAssertTrue(values.failures.isEmpty)
    }
}
