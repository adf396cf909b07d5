import Foundation
import SecureStore
import TestSupport
import XCTest

/// FTS5 tables, tokenizers, `FTS5Pattern`, `matching` and ranking on an
/// encrypted file, with the SQL GRDB writes. FTS5 is in SQLCipher 4 as
/// Debian 13 builds it; on a library without it, creating a table or a
/// pattern throws an error that says what is missing.
final class FTS5Tests: TracedQueueTestCase {
    private struct Book: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "book_ft"
        var title: String
        var body: String
    }

    private func requireFTS5() throws {
        guard try dbQueue.read(FTS5.isAvailable(in:)) else {
            throw XCTSkip("SQLite \(Database.sqliteLibVersion) has no FTS5 (testWithoutFTS5TheErrorSaysWhatIsMissing covers it)")
        }
    }

    func testWithoutFTS5TheErrorSaysWhatIsMissing() throws {
        guard try !dbQueue.read(FTS5.isAvailable(in:)) else {
            throw XCTSkip("SQLite \(Database.sqliteLibVersion) has FTS5: the other tests of this class cover it")
        }
        try dbQueue.write { db in
            XCTAssertThrowsError(try db.create(virtualTable: "book_ft", using: FTS5()) { $0.column("title") }) { error in
                XCTAssertTrue("\(error)".contains("FTS5 needs a SQLite built with FTS5"), "\(error)")
                XCTAssertTrue("\(error)".contains(Database.sqliteLibVersion), "\(error)")
            }
            XCTAssertFalse(try db.tableExists("book_ft"))
        }
        XCTAssertThrowsError(try FTS5Pattern(rawPattern: "secret")) { error in
            XCTAssertTrue("\(error)".contains("FTS5 needs a SQLite built with FTS5"), "\(error)")
        }
        XCTAssertNil(FTS5Pattern(matchingAnyTokenIn: "secret"))
    }

    func testTableOptionsAndTokenizersWriteGRDBsSQL() throws {
        try requireFTS5()
        try dbQueue.write { db in
            try db.create(virtualTable: "book_ft", using: FTS5()) { t in
                t.tokenizer = .porter(wrapping: .unicode61(diacritics: .remove, separators: ["-"]))
                t.prefixes = [3, 2]
                t.columnSize = 0
                t.detail = "column"
                t.column("title")
                t.column("uuid").notIndexed()
            }
            try db.create(virtualTable: "code_ft", options: .ifNotExists, using: FTS5()) { t in
                t.tokenizer = .ascii(tokenCharacters: ["_"])
                t.column("symbol")
            }
            try db.create(virtualTable: "name_ft", using: FTS5()) { t in
                t.tokenizer = .trigram()
                t.column("name")
            }
            try db.execute(sql: "INSERT INTO name_ft(name) VALUES ('SecureStore'), ('Zalora')")
            XCTAssertEqual(try String.fetchAll(db, sql: "SELECT name FROM name_ft WHERE name LIKE '%cures%'"), ["SecureStore"])
        }
        let statements = traced.allStatements()
        XCTAssertTrue(statements.contains("""
            CREATE VIRTUAL TABLE "book_ft" USING fts5(title, uuid UNINDEXED, \
            tokenize='''porter'' ''unicode61'' ''remove_diacritics'' ''2'' ''separators'' ''-''', \
            prefix='2 3', columnSize=0, detail=column)
            """), statements.joined(separator: "\n"))
        XCTAssertTrue(statements.contains("""
            CREATE VIRTUAL TABLE IF NOT EXISTS "code_ft" USING fts5(symbol, tokenize='''ascii'' ''tokenchars'' ''_''')
            """), statements.joined(separator: "\n"))
        XCTAssertThrowsError(try dbQueue.write { db in try db.create(virtualTable: "empty_ft", using: FTS5()) }) { error in
            XCTAssertTrue("\(error)".contains("an FTS5 table needs at least one column"), "\(error)")
        }
    }

    func testPatternsFromUserInputAndFromTheQuerySyntax() throws {
        try requireFTS5()
        XCTAssertEqual(FTS5Pattern(matchingAnyTokenIn: "Secret, PLAN!")?.rawPattern, "secret OR plan")
        XCTAssertEqual(FTS5Pattern(matchingAllTokensIn: "secret plan")?.rawPattern, "secret plan")
        XCTAssertEqual(FTS5Pattern(matchingAllPrefixesIn: "sec pla")?.rawPattern, "sec* pla*")
        XCTAssertEqual(FTS5Pattern(matchingPhrase: "Gustave Doré")?.rawPattern, "\"gustave doré\"")
        XCTAssertEqual(FTS5Pattern(matchingPrefixPhrase: "the secret")?.rawPattern, "^\"the secret\"")
        XCTAssertNil(FTS5Pattern(matchingAnyTokenIn: "?! ..."))
        XCTAssertEqual(try FTS5Pattern(rawPattern: "and").rawPattern, "and")
        XCTAssertThrowsError(try FTS5Pattern(rawPattern: "AND")) { error in
            // SQLite's message, without the SQL of the check.
            XCTAssertTrue("\(error)".contains("syntax error"), "\(error)")
            XCTAssertFalse("\(error)".contains("document"), "\(error)")
        }
        XCTAssertThrowsError(try FTS5Pattern(rawPattern: "title: secret"))
        XCTAssertEqual(try FTS5Pattern(rawPattern: "title: secret", allowedColumns: ["title"]).rawPattern, "title: secret")
    }

    func testSynchronizedTableFollowsItsContentAndRanksMatches() throws {
        try requireFTS5()
        try dbQueue.write { db in
            try db.create(table: "book") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("title", .text)
                t.column("body", .text)
            }
            try db.execute(sql: "INSERT INTO book(title, body) VALUES ('Plans', 'the secret plan, the secret map, the secret key')")
            try db.create(virtualTable: "book_ft", using: FTS5()) { t in
                t.synchronize(withTable: "book")
                t.tokenizer = .porter()
                t.column("title")
                t.column("body")
            }
            try db.execute(sql: """
                INSERT INTO book(title, body) VALUES ('Groceries', 'apples and a secret'), ('Notes', 'nothing here');
                UPDATE book SET body = 'planning nothing' WHERE title = 'Notes';
                DELETE FROM book WHERE title = 'Groceries';
                INSERT INTO book(title, body) VALUES ('Diary', 'one secret');
                """)
            XCTAssertEqual(try db.makeFTS5Pattern(rawPattern: "body: plan*", forTable: "book_ft").rawPattern, "body: plan*")
            XCTAssertThrowsError(try db.makeFTS5Pattern(rawPattern: "author: plan", forTable: "book_ft"))
        }
        XCTAssertTrue(traced.allStatements().contains("""
            CREATE VIRTUAL TABLE "book_ft" USING fts5(title, body, tokenize='''porter''', content='book', content_rowid='id')
            """), traced.allStatements().joined(separator: "\n"))
        try dbQueue.read { db in
            traced.clear()
            let secret = FTS5Pattern(matchingAnyTokenIn: "secret")
            XCTAssertEqual(try Book.matching(secret).order(Column.rank).fetchAll(db).map(\.title), ["Plans", "Diary"])
            XCTAssertTrue(traced.allStatements().contains("SELECT * FROM \"book_ft\" WHERE \"book_ft\" MATCH 'secret' ORDER BY \"rank\""),
                          traced.allStatements().joined(separator: "\n"))
            // The porter stemmer: "planning" and "plan" share a stem.
            XCTAssertEqual(try Book.matching(FTS5Pattern(matchingAllTokensIn: "plans")).order(Column("title")).fetchAll(db).map(\.title),
                           ["Notes", "Plans"])
            XCTAssertEqual(try Book.filter(Column("title").match(FTS5Pattern(matchingPhrase: "diary")!)).fetchCount(db), 1)
            XCTAssertEqual(try Book.matching(FTS5Pattern?.none).fetchCount(db), 0)
        }
        // Dropping the triggers stops the synchronization.
        try dbQueue.write { db in
            try db.dropFTS5SynchronizationTriggers(forTable: "book_ft")
            try db.execute(sql: "INSERT INTO book(title, body) VALUES ('Late', 'secret')")
            XCTAssertEqual(try Book.matching(FTS5Pattern(matchingAllTokensIn: "late")).fetchCount(db), 0)
        }
    }

    func testFTS5FileReadsBackWithTheSQLCipherCLI() throws {
        try requireFTS5()
        try dbQueue.write { db in
            try db.create(virtualTable: "book_ft", using: FTS5()) { $0.column("title"); $0.column("body") }
            try Book(title: "Plans", body: "secret").insert(db)
        }
        let result = try CommandLineClient.sqlcipher(path("db.sqlite"), preamble: "PRAGMA key = 'secret';",
                                                     sql: "SELECT title FROM book_ft WHERE book_ft MATCH 'secret';")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout.split(separator: "\n").last, "Plans", result.stdout)
    }

    func testBuiltInTokenizersTokenizeFromSwift() throws {
        try requireFTS5()
        try dbQueue.read { db in
            XCTAssertEqual(try db.makeTokenizer(.unicode61()).tokenize(query: "Gustave Doré").map(\.token), ["gustave", "dore"])
            XCTAssertEqual(try db.makeTokenizer(.ascii()).tokenize(document: "Gustave Doré").map(\.token), ["gustave", "doré"])
            XCTAssertEqual(try db.makeTokenizer(.porter()).tokenize(document: "running plans").map(\.token), ["run", "plan"])
            XCTAssertThrowsError(try db.makeTokenizer(FTS5TokenizerDescriptor(components: ["no_such_tokenizer"]))) { error in
                XCTAssertTrue("\(error)".contains("no FTS5 tokenizer named no_such_tokenizer"), "\(error)")
            }
        }
    }

    func testSwiftTokenizerDropsStopWordsAndAddsSynonymsInEveryConnectionOfAPool() throws {
        try requireFTS5()
        var config = keyedConfiguration(passphrase: "secret")
        config.prepareDatabase { db in db.add(tokenizer: StopWordsAndSynonyms.self) }
        let dbPool = try DatabasePool(path: path("pool.sqlite"), configuration: config)
        try dbPool.write { db in
            try db.create(virtualTable: "book_ft", using: FTS5()) { t in
                t.tokenizer = StopWordsAndSynonyms.tokenizerDescriptor(arguments: ["unicode61", "remove_diacritics", "2"])
                t.column("title")
            }
            try db.execute(sql: "INSERT INTO book_ft(title) VALUES ('The First Café'), ('A second story')")
            let tokenizer = try db.makeTokenizer(StopWordsAndSynonyms.tokenizerDescriptor())
            XCTAssertEqual(try tokenizer.tokenize(document: "the first").map(\.token), ["first", "1st"])
            XCTAssertEqual(try tokenizer.tokenize(document: "the first").map(\.flags), [[], .colocated])
        }
        // A reader, a connection of its own, has the tokenizer too.
        try dbPool.read { db in
            func titles(_ query: String) throws -> [String] {
                try String.fetchAll(db, sql: "SELECT title FROM book_ft WHERE book_ft MATCH ? ORDER BY rowid", arguments: [query])
            }
            XCTAssertEqual(try titles("1st"), ["The First Café"])
            XCTAssertEqual(try titles("cafe"), ["The First Café"])
            XCTAssertEqual(try titles("the"), [], "a stop word is not indexed")
            XCTAssertEqual(try titles("story"), ["A second story"])
        }
    }
}

/// Drops "the" and "a", and adds "1st" where it reads "first".
private final class StopWordsAndSynonyms: FTS5WrapperTokenizer {
    static let name = "stop_words_and_synonyms"
    let wrappedTokenizer: any FTS5Tokenizer

    init(db: Database, arguments: [String]) throws {
        wrappedTokenizer = try db.makeTokenizer(arguments.isEmpty ? .unicode61() : FTS5TokenizerDescriptor(components: arguments))
    }

    func accept(token: String, flags: FTS5TokenFlags, for tokenization: FTS5Tokenization,
                tokenCallback: FTS5WrapperTokenCallback) throws {
        guard !["the", "a"].contains(token) else { return }
        try tokenCallback(token, flags)
        if token == "first" { try tokenCallback("1st", flags.union(.colocated)) }
    }
}
