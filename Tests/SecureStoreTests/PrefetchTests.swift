import Foundation
import SecureStore
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
}
