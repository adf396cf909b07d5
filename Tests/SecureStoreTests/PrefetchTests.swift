import Foundation
import SecureStore
import TestSupport
import XCTest

/// `including(all:)` on an encrypted file: the SQL of the prefetch, the
/// grouping of children into their parents, and records decoded from the
/// copied rows (which share one container per record type).
final class PrefetchTests: SecureStoreTestCase {
    private struct Author: Codable, Equatable, FetchableRecord, PersistableRecord {
        var id: Int64
        var name: String
        static let books = hasMany(Book.self)
        static let booksByName = hasMany(Book.self, key: "booksByName",
                                         using: ForeignKey(["authorName"], to: ["name"]))
    }

    private struct Book: Codable, Hashable, FetchableRecord, PersistableRecord {
        var id: Int64
        var authorId: Int64
        var authorName: String
        var title: String
        static let author = belongsTo(Author.self)
    }

    private struct AuthorInfo: Decodable, FetchableRecord {
        var author: Author
        var books: [Book]
    }

    private struct AuthorBookSet: Decodable, FetchableRecord {
        var author: Author
        var books: Set<Book>
    }

    private struct BookInfo: Decodable, FetchableRecord {
        var book: Book
        var author: Author
    }

    private var dbQueue: DatabaseQueue!
    private let traced = TraceBox()

    /// `count` authors with `booksPerAuthor` books each.
    private func makeLibrary(authors count: Int, booksPerAuthor: Int, name: (Int) -> String = { "Author \($0)" }) throws {
        dbQueue = try makeTracedQueue(into: traced)
        try dbQueue.write { db in
            try db.execute(sql: """
                CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE book (id INTEGER PRIMARY KEY, authorId INTEGER NOT NULL REFERENCES author(id),
                                   authorName TEXT NOT NULL, title TEXT NOT NULL);
                """)
        }
        try fill(authors: count, booksPerAuthor: booksPerAuthor, name: name)
    }

    /// Replaces the library with `count` authors of `booksPerAuthor` books each.
    private func fill(authors count: Int, booksPerAuthor: Int, name: (Int) -> String = { "Author \($0)" }) throws {
        try dbQueue.write { db in
            try db.execute(sql: "DELETE FROM book; DELETE FROM author")
            for a in 1...count {
                try Author(id: Int64(a), name: name(a)).insert(db)
                for b in 0..<booksPerAuthor {
                    try Book(id: Int64((a - 1) * booksPerAuthor + b + 1), authorId: Int64(a),
                             authorName: name(a), title: "Book \(b) of \(a)").insert(db)
                }
            }
        }
    }

    func testBeyond999ParentsTheKeysAreIntegerLiteralsAndEveryBookFindsItsAuthor() throws {
        try makeLibrary(authors: 1_200, booksPerAuthor: 3)
        let infos = try dbQueue.read { db in
            traced.clear()
            return try Author.including(all: Author.books).asRequest(of: AuthorInfo.self).fetchAll(db)
        }
        let keys = (1...1_200).map(String.init).joined(separator: ", ")
        XCTAssertTrue(traced.allStatements().contains { $0.contains("WHERE \"authorId\" IN (\(keys))") },
                      traced.allStatements().joined(separator: "\n"))
        XCTAssertEqual(infos.count, 1_200)
        for info in infos {
            XCTAssertEqual(info.books.map(\.authorId), Array(repeating: info.author.id, count: 3))
            XCTAssertEqual(info.books.map(\.title), (0..<3).map { "Book \($0) of \(info.author.id)" })
        }
        let sets = try dbQueue.read { db in
            try Author.including(all: Author.books).asRequest(of: AuthorBookSet.self).fetchAll(db)
        }
        XCTAssertEqual(sets.map(\.books), infos.map { Set($0.books) })
    }

    /// Authors without books, decoded on several threads at once: an empty
    /// array of prefetched records must not be written into the empty
    /// array's storage, one global shared by all threads (fails under
    /// `--sanitize=thread` without the fix).
    func testEmptyAssociationsDecodeOnManyThreadsAtOnce() throws {
        let pool = try DatabasePool(path: path("library.db"), configuration: keyedConfiguration(passphrase: "library"))
        try pool.write { db in
            try db.execute(sql: """
                CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE book (id INTEGER PRIMARY KEY, authorId INTEGER NOT NULL REFERENCES author(id),
                                   authorName TEXT NOT NULL, title TEXT NOT NULL);
                """)
            for id in 1...20 { try Author(id: Int64(id), name: "Author \(id)").insert(db) }
        }
        let booksFound = Locked(0), errors = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<25 {
                do {
                    let infos = try pool.read { db in
                        try Author.including(all: Author.books).asRequest(of: AuthorInfo.self).fetchAll(db)
                    }
                    booksFound.withLock { $0 += infos.reduce(0) { $0 + $1.books.count } }
                } catch {
                    errors.withLock { $0 += 1 }
                }
            }
        }
        XCTAssertEqual(errors.withLock { $0 }, 0)
        XCTAssertEqual(booksFound.withLock { $0 }, 0)
        try pool.close()
    }

    func testBeyond999TextKeysAreQuotedBySQLite() throws {
        try makeLibrary(authors: 1_001, booksPerAuthor: 1, name: { "O'Author \($0)" })
        let infos = try dbQueue.read { db in
            traced.clear()
            return try Author.including(all: Author.booksByName).asRequest(of: NamedAuthorInfo.self).fetchAll(db)
        }
        XCTAssertTrue(traced.allStatements().contains { $0.contains("IN ('O''Author 1', 'O''Author 10',") },
                      traced.allStatements().joined(separator: "\n"))
        XCTAssertEqual(infos.count, 1_001)
        XCTAssertTrue(infos.allSatisfy { $0.booksByName.map(\.authorName) == [$0.author.name] })
    }

    private struct NamedAuthorInfo: Decodable, FetchableRecord {
        var author: Author
        var booksByName: [Book]
    }

    func testParentsThatShareAKeyGetTheSameChildren() throws {
        // Authors 1 and 2 share a name: both get the books of that name.
        try makeLibrary(authors: 3, booksPerAuthor: 2, name: { $0 == 3 ? "Other" : "Twin" })
        let infos = try dbQueue.read { db in
            try Author.including(all: Author.booksByName).order(Column("id")).asRequest(of: NamedAuthorInfo.self).fetchAll(db)
        }
        XCTAssertEqual(infos.map { $0.booksByName.map(\.id) }, [[1, 2, 3, 4], [1, 2, 3, 4], [5, 6]])
    }

    func testRecordsOfSeveralTypesDecodeFromTheSameCopiedRows() throws {
        try makeLibrary(authors: 4, booksPerAuthor: 2)
        try dbQueue.read { db in
            // BookInfo decodes `book` from the whole row, with a container of
            // its own: the two record types do not share one.
            let infos = try Book.including(required: Book.author).order(Column("id")).asRequest(of: BookInfo.self).fetchAll(db)
            XCTAssertEqual(infos.map(\.book.id), Array(1...8))
            XCTAssertEqual(infos.map(\.author.id), [1, 1, 2, 2, 3, 3, 4, 4])
            // The copies of one fetch, decoded as two types in turn, then
            // again in reverse order: each record reads its own row.
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM book ORDER BY id")
            let books = try rows.map(Book.init(row:))
            let idsOnly = try rows.map { try BookID(row: $0).id }
            let reversed = try rows.reversed().map(Book.init(row:))
            XCTAssertEqual(books.map(\.title), rows.map { $0["title"] as String })
            XCTAssertEqual(idsOnly, Array(1...8))
            XCTAssertEqual(reversed, books.reversed())
        }
    }

    private struct BookID: Decodable, FetchableRecord {
        var id: Int64
    }

    // MARK: Rows side by side

    /// Keeps its row, as `Record` does to tell its changes: the copy of the
    /// row that moves over the prefetched values is a row of its own.
    private struct KeptRow: FetchableRecord {
        var row: Row
        init(row: Row) { self.row = row.copy() }
    }

    private struct AuthorKeptRows: Decodable, FetchableRecord {
        var author: Author
        var books: [KeptRowBook]
    }

    private struct KeptRowBook: Decodable, FetchableRecord {
        var title: String
        var row: Row
        init(row: Row) throws {
            title = row["title"]
            self.row = row.copy()
        }
        init(from decoder: any Decoder) throws { fatalError("decoded with init(row:)") }
    }

    func testRecordsThatCopyTheirRowKeepTheValuesOfTheirOwnRow() throws {
        try makeLibrary(authors: 3, booksPerAuthor: 4)
        let infos = try dbQueue.read { db in
            try Author.including(all: Author.books).order(Column("id")).asRequest(of: AuthorKeptRows.self).fetchAll(db)
        }
        for info in infos {
            XCTAssertEqual(info.books.map(\.title), (0..<4).map { "Book \($0) of \(info.author.id)" })
            XCTAssertEqual(info.books.map { $0.row["title"] as String }, info.books.map(\.title))
            XCTAssertEqual(info.books.map { $0.row["authorId"] as Int64 }, Array(repeating: info.author.id, count: 4))
        }
        // A Record keeps a copy of its row: no change is seen after a fetch.
        let records = try dbQueue.read { db in
            try Row.fetchAll(db, Author.including(all: Author.books).order(Column("id")))
                .map { try $0.decode([BookRecord].self, forKey: "books") }
        }
        XCTAssertEqual(records.map { $0.map(\.title) }, (1...3).map { a in (0..<4).map { "Book \($0) of \(a)" } })
        XCTAssertTrue(records.joined().allSatisfy { !$0.hasDatabaseChanges })
    }

    private final class BookRecord: Record {
        var title: String
        override class var databaseTableName: String { "book" }
        required init(row: Row) throws {
            title = row["title"]
            try super.init(row: row)
        }
        override func encode(to container: inout PersistenceContainer) throws {
            container["title"] = title
        }
    }

    func testPrefetchedRowsAreRowsOfTheirOwnThatOutliveTheFetch() throws {
        try makeLibrary(authors: 3, booksPerAuthor: 2)
        let rows = try dbQueue.read { db in
            try Row.fetchAll(db, Author.including(all: Author.books).order(Column("id")))
        }
        let books = rows.map { $0.prefetchedRows["books"] ?? [] }
        XCTAssertEqual(books.map { $0.map { $0["id"] as Int64 } }, [[1, 2], [3, 4], [5, 6]])
        XCTAssertEqual(books[1][0].columnNames, ["id", "authorId", "authorName", "title", "grdb_authorId"])
        XCTAssertEqual(books[1][0].databaseValues, [3.databaseValue, 2.databaseValue, "Author 2".databaseValue, "Book 0 of 2".databaseValue, 2.databaseValue])
        XCTAssertEqual(rows[0], rows[0].copy())
        XCTAssertNotEqual(rows[0], rows[1])
    }

    func testChildrenOrderedAcrossParentsKeepTheirOrderWithinEachParent() throws {
        try makeLibrary(authors: 3, booksPerAuthor: 3)
        let byTitle = Author.hasMany(Book.self).order(Column("title").desc)
        let infos = try dbQueue.read { db in
            try Author.including(all: byTitle).order(Column("id")).asRequest(of: AuthorInfo.self).fetchAll(db)
        }
        XCTAssertEqual(infos.map { $0.books.map(\.id) }, [[3, 2, 1], [6, 5, 4], [9, 8, 7]])
    }

    func testChildrenWithScopesOrPrefetchesOfTheirOwnAreGroupedToo() throws {
        try makeLibrary(authors: 2, booksPerAuthor: 2)
        let infos = try dbQueue.read { db in
            try Author
                .including(all: Author.books.including(required: Book.author.forKey("writer")))
                .order(Column("id"))
                .asRequest(of: AuthorBookInfos.self)
                .fetchAll(db)
        }
        XCTAssertEqual(infos.map { $0.books.map(\.book.id) }, [[1, 2], [3, 4]])
        XCTAssertEqual(infos.map { $0.books.map(\.writer.id) }, [[1, 1], [2, 2]])
    }

    private struct AuthorBookInfos: Decodable, FetchableRecord {
        struct BookWriter: Decodable, FetchableRecord {
            var book: Book
            var writer: Author
        }
        var author: Author
        var books: [BookWriter]
    }

    func testIntegerKeysThatAreSparseNegativeOrSharedFindTheirParents() throws {
        try makeLibrary(authors: 1, booksPerAuthor: 0)
        // Sparse and negative keys are hashed; 1...3 below sit in a table.
        let ids: [Int64] = [-3, 7, 5_000_000_000]
        try dbQueue.write { db in
            try db.execute(sql: "DELETE FROM author")
            for (index, id) in ids.enumerated() {
                try Author(id: id, name: "Author \(id)").insert(db)
                for b in 0...index {
                    try Book(id: Int64(index * 10 + b), authorId: id, authorName: "Author \(id)", title: "Book \(b)").insert(db)
                }
            }
        }
        let infos = try dbQueue.read { db in
            try Author.including(all: Author.books).order(Column("id")).asRequest(of: AuthorInfo.self).fetchAll(db)
        }
        XCTAssertEqual(infos.map(\.author.id), ids)
        XCTAssertEqual(infos.map { $0.books.map(\.id) }, [[0], [10, 11], [20, 21, 22]])
        // Books of one author share the parent key of their siblings.
        XCTAssertEqual(try siblingIDs(), [[0], [10, 11], [10, 11], [20, 21, 22], [20, 21, 22], [20, 21, 22]])
        // The same with dense keys (in a table).
        try fill(authors: 3, booksPerAuthor: 2)
        traced.clear()
        XCTAssertEqual(try siblingIDs(), [[1, 2], [1, 2], [3, 4], [3, 4], [5, 6], [5, 6]])
        // Each key once in the filter.
        XCTAssertTrue(traced.allStatements().contains { $0.contains("\"authorId\" IN (1, 2, 3)") },
                      traced.allStatements().joined(separator: "\n"))
    }

    /// For each book, the books of its author, through a parent key that
    /// books share.
    private func siblingIDs() throws -> [[Int64]] {
        let siblings = Book.hasMany(Book.self, key: "siblings", using: ForeignKey(["authorId"], to: ["authorId"]))
        return try dbQueue.read { db in
            try Row.fetchAll(db, Book.including(all: siblings).order(Column("id")))
                .map { row in try row.decode([Book].self, forKey: "siblings").map(\.id) }
        }
    }

    func testARecordThatFailsToDecodeStopsTheFetchWithItsError() throws {
        try makeLibrary(authors: 2, booksPerAuthor: 3)
        try dbQueue.write { db in try db.execute(sql: "UPDATE book SET authorName = '12' WHERE id <> 5") }
        XCTAssertThrowsError(try dbQueue.read { db in
            try Author.including(all: Author.hasMany(NumberedBook.self)).asRequest(of: AuthorNumberedBooks.self).fetchAll(db)
        }) { error in
            XCTAssertTrue("\(error)".contains("authorName"), "\(error)")
        }
    }

    /// Decodes the author name as a number: fails on "Author 2".
    private struct NumberedBook: Decodable, FetchableRecord, TableRecord {
        static let databaseTableName = "book"
        var id: Int64
        var authorName: Int64
    }

    private struct AuthorNumberedBooks: Decodable, FetchableRecord {
        var author: Author
        var books: [NumberedBook]
    }
}
