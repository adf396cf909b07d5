import Foundation
import SecureStore

// A small library catalogue on an encrypted file: authors, books and
// reviews, read with associations, a request extension of our own, SQL
// literals and a subquery. Run by Tests/MigrateToolTests/LibraryExampleTests.
//
//   LIBRARY_PASSPHRASE=... library-example /path/to/library.db
//
// The passphrase comes from the environment, never from the arguments
// (which every local user can read in the process list).

struct Author: Codable, FetchableRecord, MutablePersistableRecord {
    var id: Int64?
    var name: String
    var country: String

    static let books = hasMany(Book.self)
    static let reviews = hasMany(Review.self, through: books, using: Book.reviews)

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let name = Column(CodingKeys.name)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

struct Book: Codable, FetchableRecord, MutablePersistableRecord {
    var id: Int64?
    var authorId: Int64
    var title: String
    var year: Int

    static let author = belongsTo(Author.self)
    static let reviews = hasMany(Review.self)

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let authorId = Column(CodingKeys.authorId)
        static let title = Column(CodingKeys.title)
        static let year = Column(CodingKeys.year)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

struct Review: Codable, FetchableRecord, MutablePersistableRecord {
    var id: Int64?
    var bookId: Int64
    var stars: Int

    enum Columns {
        static let bookId = Column(CodingKeys.bookId)
        static let stars = Column(CodingKeys.stars)
    }
}

/// What the catalogue asks of any request of books, or of an author's
/// books: the same two methods serve `Book.all()` and `Author.books`.
extension DerivableRequest<Book> {
    /// Books published in `year` or later.
    func published(since year: Int) -> Self { filter(Book.Columns.year >= year) }

    /// Books in title order.
    func orderedByTitle() -> Self { order(Book.Columns.title) }
}

/// An author with their books.
struct AuthorInfo: Decodable, FetchableRecord {
    var author: Author
    var books: [Book]
}

/// A book with its author and what its reviews add up to.
struct BookInfo: Decodable, FetchableRecord {
    var book: Book
    var author: Author
    var reviewCount: Int
    var averageReviewStars: Double?
}

/// The schema, as migrations.
var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("Library-v1") { db in
        try db.create(table: "author") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("name", .text).notNull()
            t.column("country", .text).notNull()
        }
        try db.create(table: "book") { t in
            t.autoIncrementedPrimaryKey("id")
            t.belongsTo("author", onDelete: .cascade).notNull()
            t.column("title", .text).notNull()
            t.column("year", .integer).notNull()
        }
        try db.create(table: "review") { t in
            t.autoIncrementedPrimaryKey("id")
            t.belongsTo("book", onDelete: .cascade).notNull()
            t.column("stars", .integer).notNull().check { $0 >= 1 && $0 <= 5 }
        }
    }
    return migrator
}

/// The catalogue, written once.
func seed(_ db: Database) throws {
    let catalogue: [(String, String, [(String, Int, [Int])])] = [
        ("Toni Morrison", "US", [("Beloved", 1987, [5, 5, 4]), ("Song of Solomon", 1977, [4])]),
        ("Chinua Achebe", "NG", [("Things Fall Apart", 1958, [5, 4]), ("Arrow of God", 1964, [])]),
        ("Italo Calvino", "IT", [("Invisible Cities", 1972, [4, 3]), ("If on a Winter's Night a Traveler", 1979, [3])]),
    ]
    for (name, country, books) in catalogue {
        let author = try Author(id: nil, name: name, country: country).inserted(db)
        for (title, year, stars) in books {
            let book = try Book(id: nil, authorId: author.id!, title: title, year: year).inserted(db)
            for star in stars { _ = try Review(id: nil, bookId: book.id!, stars: star).inserted(db) }
        }
    }
}

func report(_ db: Database) throws -> [String] {
    var lines: [String] = []

    // Associations: every author with their books, prefetched in one query.
    let authors = try Author
        .including(all: Author.books.orderedByTitle())
        .order(Author.Columns.name)
        .asRequest(of: AuthorInfo.self)
        .fetchAll(db)
    for info in authors {
        lines.append("\(info.author.name) (\(info.author.country)): " + info.books.map(\.title).joined(separator: ", "))
    }

    // The request extension on an association: each author's books since 1970.
    let recent = try Author
        .annotated(with: Author.books.published(since: 1970).count.forKey("recentCount"))
        .order(Author.Columns.name)
        .asRequest(of: Row.self)
        .fetchAll(db)
    lines.append("books since 1970: " + recent.map { "\($0["name"] as String) \($0["recentCount"] as Int)" }.joined(separator: ", "))

    // Aggregates of an association, joined to the book's author.
    let ranked = try Book
        .including(required: Book.author)
        .annotated(with: Book.reviews.count, Book.reviews.average(Review.Columns.stars))
        .order(sql: "averageReviewStars DESC, book.title")   // the alias GRDB gives the average
        .asRequest(of: BookInfo.self)
        .fetchAll(db)
    for info in ranked {
        let average = info.averageReviewStars.map { String(format: "%.2f", $0) } ?? "-"
        lines.append("\(info.book.title) by \(info.author.name): \(info.reviewCount) reviews, \(average) stars")
    }

    // SQL literals: interpolated values are bound, never pasted into the SQL.
    let pattern = "%of%"
    let titled = try SQLRequest<Book>(literal: "SELECT * FROM book WHERE title LIKE \(pattern) ORDER BY year").fetchAll(db)
    lines.append("titles with \"of\": " + titled.map(\.title).joined(separator: ", "))
    let sixties = try Book.filter(literal: "year BETWEEN \(1960) AND \(1969)").fetchAll(db)
    lines.append("the 1960s: " + sixties.map(\.title).joined(separator: ", "))

    // A subquery: the authors of a book that got five stars.
    let fiveStarBooks = Review.filter(Review.Columns.stars == 5).select(Review.Columns.bookId)
    let authorIds = Book.filter(fiveStarBooks.contains(Book.Columns.id)).select(Book.Columns.authorId)
    let acclaimed = try Author.filter(authorIds.contains(Author.Columns.id)).order(Author.Columns.name).fetchAll(db)
    lines.append("five-star authors: " + acclaimed.map(\.name).joined(separator: ", "))

    // Through an association of an association: every review of an author.
    let morrison = try Author.filter(Author.Columns.name == "Toni Morrison").fetchOne(db)!
    let stars = try morrison.request(for: Author.reviews).order(Review.Columns.stars).fetchAll(db).map(\.stars)
    lines.append("Toni Morrison's reviews: " + stars.map(String.init).joined(separator: " "))
    return lines
}

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: LIBRARY_PASSPHRASE=... library-example DATABASE\n".utf8))
    exit(64)
}
guard let passphrase = ProcessInfo.processInfo.environment["LIBRARY_PASSPHRASE"], !passphrase.isEmpty else {
    FileHandle.standardError.write(Data("library-example: set LIBRARY_PASSPHRASE to the database's passphrase\n".utf8))
    exit(64)
}
do {
    var config = Configuration()
    config.prepareDatabase { db in try db.usePassphrase(passphrase) }
    let dbQueue = try DatabaseQueue(path: CommandLine.arguments[1], configuration: config)
    try migrator.migrate(dbQueue)
    try dbQueue.write { db in
        if try Author.all().isEmpty(db) { try seed(db) }
    }
    for line in try dbQueue.read(report) { print(line) }
} catch {
    FileHandle.standardError.write(Data("library-example: \(error)\n".utf8))
    exit(1)
}
