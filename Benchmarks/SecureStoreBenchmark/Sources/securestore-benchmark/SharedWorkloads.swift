#if canImport(CSQLCipher)
import CSQLCipher
import SecureStore
#elseif canImport(SQLCipher)
import GRDB
import SQLCipher
#else
import GRDB
import GRDBSQLite
#endif
import Foundation

// W1 (insert), W2 (fetch), W5 (associations) and W6 (commits under
// observation): one source, compiled
// against SecureStore here and against GRDB 7.10.0 in grdb-comparison (a
// symbolic link there). The same Swift on both sides is the point: SecureStore
// promises GRDB's API, so the comparison needs no translation.

// MARK: W5: 10 books per author, fetched with including(all:)

struct Author: Codable, Equatable, FetchableRecord, PersistableRecord {
    var id: Int64
    var name: String
    static let books = hasMany(Book.self)
}

struct Book: Codable, Equatable, FetchableRecord, PersistableRecord {
    var id: Int64
    var authorId: Int64
    var title: String
    var year: Int64
}

/// An author and their books, decoded from `Author.including(all: Author.books)`.
struct AuthorInfo: Decodable, Equatable, FetchableRecord {
    var author: Author
    var books: [Book]
}

let createLibrary = """
    CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
    CREATE TABLE book (id INTEGER PRIMARY KEY, authorId INTEGER NOT NULL REFERENCES author(id),
                       title TEXT NOT NULL, year INTEGER NOT NULL);
    CREATE INDEX book_on_authorId ON book(authorId);
    """

/// `authors` authors with `booksPerAuthor` books each, in id order.
func makeLibrary(authors: Int, booksPerAuthor: Int = 10) -> [AuthorInfo] {
    (1...authors).map { a in
        let books = (0..<booksPerAuthor).map { b in
            Book(id: Int64((a - 1) * booksPerAuthor + b + 1), authorId: Int64(a),
                 title: "Book \(b) of author \(a)", year: Int64(1900 + (a + b) % 120))
        }
        return AuthorInfo(author: Author(id: Int64(a), name: "Author \(a)"), books: books)
    }
}

extension RawConnection {
    /// Writes the library in one transaction (untimed setup).
    func insert(_ library: [AuthorInfo]) throws {
        try execute("BEGIN")
        for info in library {
            try execute("INSERT INTO author VALUES (\(info.author.id), '\(info.author.name)')")
            for book in info.books {
                try execute("INSERT INTO book VALUES (\(book.id), \(book.authorId), '\(book.title)', \(book.year))")
            }
        }
        try execute("COMMIT")
    }

    /// The floor of W5: two queries, books grouped by author in a dictionary,
    /// as a careful C programmer would prefetch them.
    func fetchLibrary() throws -> [AuthorInfo] {
        var library: [AuthorInfo] = []
        var indexByAuthor: [Int64: Int] = [:]
        try forEachRow("SELECT id, name FROM author") { statement in
            let id = sqlite3_column_int64(statement, 0)
            indexByAuthor[id] = library.count
            library.append(AuthorInfo(author: Author(id: id, name: text(statement, 1)), books: []))
        }
        try forEachRow("SELECT id, authorId, title, year FROM book") { statement in
            let authorId = sqlite3_column_int64(statement, 1)
            guard let index = indexByAuthor[authorId] else { return }
            library[index].books.append(Book(id: sqlite3_column_int64(statement, 0), authorId: authorId,
                                             title: text(statement, 2), year: sqlite3_column_int64(statement, 3)))
        }
        return library
    }

    /// The floor of W6: `count` transactions of one insert each, on a WAL file
    /// with `synchronous = NORMAL` (the pools' settings).
    func commitEvents(_ count: Int) throws {
        try execute("PRAGMA journal_mode = WAL")
        try execute("PRAGMA synchronous = NORMAL")
        let insert = try prepare("INSERT INTO event (value) VALUES (?)")
        defer { sqlite3_finalize(insert) }
        for value in 0..<count {
            try execute("BEGIN IMMEDIATE")
            sqlite3_bind_int64(insert, 1, Int64(value))
            guard sqlite3_step(insert) == SQLITE_DONE else { throw RawError(description: "W6 insert") }
            sqlite3_reset(insert)
            try execute("COMMIT")
        }
    }

    private func forEachRow(_ sql: String, _ body: (OpaquePointer) throws -> Void) throws {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else { throw RawError(description: "\(sql): \(code)") }
            try body(statement)
        }
    }

    private func text(_ statement: OpaquePointer, _ index: Int32) -> String {
        String(decoding: UnsafeRawBufferPointer(start: sqlite3_column_text(statement, index),
                                                count: Int(sqlite3_column_bytes(statement, index))), as: UTF8.self)
    }
}

/// How a library opens a file in `mode` (a key only where SQLCipher is linked).
func makeConfiguration(key: String?) -> Configuration {
    var config = Configuration()
    #if canImport(CSQLCipher) || canImport(SQLCipher)
    if let key { config.prepareDatabase { db in try db.usePassphrase(key) } }
    #endif
    return config
}

/// Makes `file` hold `items`, with raw C (untimed).
func makeItemFile(_ file: String, items: [Item], key: String?) throws {
    removeDatabase(file)
    let raw = try RawConnection(path: file, key: key)
    try raw.execute(createTable)
    try raw.insert(items)
}

/// W1: `items` inserted in one transaction into an empty `file`, through
/// one prepared statement and as Codable records, beside the raw-C floor.
func insertCases(items: [Item], file: String, mode: String, key: String?) -> [Case] {
    func emptyFile() throws {
        removeDatabase(file)
        try RawConnection(path: file, key: key).execute(createTable)
    }
    func check(_ count: Int) throws {
        guard count == items.count else { throw RawError(description: "W1 inserted \(count) rows") }
    }
    /// The queue of a case, on an empty file.
    func emptyQueue() throws -> DatabaseQueue {
        try emptyFile()
        return try DatabaseQueue(path: file, configuration: makeConfiguration(key: key))
    }
    return [
        Case(workload: "W1 insert", mode: mode, variant: "raw C", floor: "raw C") {
            try emptyFile()
            let connection = try RawConnection(path: file, key: key)
            let time = try seconds { try connection.insert(items) }
            try check(Int(connection.scalar("SELECT count(*) FROM item")))
            return time
        },
        Case(workload: "W1 insert", mode: mode, variant: "statement", floor: "raw C") {
            let dbQueue = try emptyQueue()
            let time = try seconds {
                try dbQueue.write { db in
                    let statement = try db.makeStatement(sql: "INSERT INTO item (id, a, b, c) VALUES (?, ?, ?, ?)")
                    for item in items {
                        try statement.execute(arguments: [item.id, item.a, item.b, item.c])
                    }
                }
            }
            try check(dbQueue.read { try Item.fetchCount($0) })
            return time
        },
        Case(workload: "W1 insert", mode: mode, variant: "Codable record", floor: "raw C") {
            let dbQueue = try emptyQueue()
            let time = try seconds {
                try dbQueue.write { db in
                    for item in items { try item.insert(db) }
                }
            }
            try check(dbQueue.read { try Item.fetchCount($0) })
            return time
        },
    ]
}

/// W2: `file`, which holds `items` (``makeItemFile(_:items:key:)``),
/// fetched whole as rows and as Decodable records, beside the raw-C floor.
func fetchCases(items: [Item], file: String, mode: String, key: String?) -> [Case] {
    /// Fetches with `fetch`, checks the result, returns the seconds of the fetch.
    func measure(_ fetch: () throws -> [Item]) throws -> Double {
        var fetched: [Item] = []
        let time = try seconds { fetched = try fetch() }
        guard fetched == items else { throw RawError(description: "W2 fetched \(fetched.count) different rows") }
        return time
    }
    return [
        Case(workload: "W2 fetch", mode: mode, variant: "raw C", floor: "raw C") {
            let connection = try RawConnection(path: file, key: key)
            return try measure { try connection.fetchAll() }
        },
        Case(workload: "W2 fetch", mode: mode, variant: "Row", floor: "raw C") {
            let dbQueue = try DatabaseQueue(path: file, configuration: makeConfiguration(key: key))
            return try measure {
                try dbQueue.read { db in
                    var result: [Item] = []
                    let rows = try Row.fetchCursor(db, sql: "SELECT id, a, b, c FROM item")
                    while let row = try rows.next() {
                        result.append(Item(id: row[0], a: row[1], b: row[2], c: row[3]))
                    }
                    return result
                }
            }
        },
        Case(workload: "W2 fetch", mode: mode, variant: "Decodable record", floor: "raw C") {
            let dbQueue = try DatabaseQueue(path: file, configuration: makeConfiguration(key: key))
            return try measure { try dbQueue.read { try Item.fetchAll($0) } }
        },
    ]
}

/// W5: every author with their books, through the query interface, beside
/// the raw-C floor.
func associationCases(library: [AuthorInfo], file: String, mode: String, key: String?) throws -> [Case] {
    removeDatabase(file)
    do {
        let raw = try RawConnection(path: file, key: key)
        try raw.execute(createLibrary)
        try raw.insert(library)
    }
    func check(_ fetched: [AuthorInfo]) throws {
        guard fetched == library else { throw RawError(description: "W5 fetched a different library") }
    }
    return [
        Case(workload: "W5 associations", mode: mode, variant: "raw C", floor: "raw C") {
            let connection = try RawConnection(path: file, key: key)
            var fetched: [AuthorInfo] = []
            let time = try seconds { fetched = try connection.fetchLibrary() }
            try check(fetched)
            return time
        },
        Case(workload: "W5 associations", mode: mode, variant: "including(all:)", floor: "raw C") {
            let dbQueue = try DatabaseQueue(path: file, configuration: makeConfiguration(key: key))
            var fetched: [AuthorInfo] = []
            let time = try seconds {
                fetched = try dbQueue.read { db in
                    try Author.including(all: Author.books).asRequest(of: AuthorInfo.self).fetchAll(db)
                }
            }
            try check(fetched)
            return time
        },
    ]
}

// MARK: W6: small commits on a pool, with and without a ValueObservation

/// Counts what an observation delivers, from its queue.
final class ObservedCount: @unchecked Sendable {
    private let condition = NSCondition()
    private var latest = -1
    private var error: (any Error)?
    func set(_ value: Int) { condition.withLock { latest = value; condition.broadcast() } }
    func fail(_ error: any Error) { condition.withLock { self.error = error; condition.broadcast() } }

    /// Waits until the observation has seen `value` (untimed).
    func wait(for value: Int) throws {
        let deadline = Date(timeIntervalSinceNow: 60)
        condition.lock()
        defer { condition.unlock() }
        while latest != value, error == nil, condition.wait(until: deadline) {}
        if let error { throw error }
        guard latest == value else { throw RawError(description: "W6: the observation saw \(latest), not \(value)") }
    }
}

/// W6: `count` write transactions of one insert each on a pool, bare and
/// while a `ValueObservation` of the row count is active, beside the raw-C
/// floor. What matters is the observed/bare ratio of each library.
///
/// The observation counts a column, `count(value)`, not `COUNT(*)`: SQLite
/// 3.15.2 (the SQLCipher 3 line) reports no read to the authorizer for
/// `COUNT(*)`, and GRDB 7.10 built on it never sees a change to such an
/// observation (SecureStore asks the statement's program which tables it
/// opens). Both libraries must observe the same read to be compared.
/// GRDB's `tracking` fetches each value on the writer, after the commit;
/// SecureStore's on a reader, without holding the writer. Each pool is
/// closed before the next case removes its file: a file must not be
/// unlinked while a connection still has it open (SQLite's "How To Corrupt").
func observationCases(count: Int, file: String, mode: String, key: String?) -> [Case] {
    let createEvents = "CREATE TABLE event (id INTEGER PRIMARY KEY, value INTEGER NOT NULL)"
    func emptyFile() throws {
        removeDatabase(file)
        try RawConnection(path: file, key: key).execute(createEvents)
    }
    func commits(_ dbPool: DatabasePool) throws -> Double {
        try seconds {
            for value in 0..<count {
                try dbPool.write { db in try db.execute(sql: "INSERT INTO event (value) VALUES (?)", arguments: [value]) }
            }
        }
    }
    let queue = DispatchQueue(label: "W6 observation")
    /// The commits while a `ValueObservation` of the row count is active.
    /// In lockstep, each commit waits until the observation has delivered
    /// it: one fetch and one notification per commit, never several
    /// commits seen by one fetch as threads happen to run. The same work
    /// every run, which the instruction gate needs (scripts/bench-instructions.sh).
    func observedCommits(lockstep: Bool) throws -> Double {
        try emptyFile()
        let dbPool = try DatabasePool(path: file, configuration: makeConfiguration(key: key))
        let observed = ObservedCount()
        let cancellable = ValueObservation
            .tracking { db in try Int.fetchOne(db, sql: "SELECT count(value) FROM event") ?? 0 }
            .start(in: dbPool, scheduling: .async(onQueue: queue), onError: observed.fail, onChange: observed.set)
        let time: Double
        do {
            defer { cancellable.cancel() }
            try observed.wait(for: 0)
            time = try seconds {
                for value in 0..<count {
                    try dbPool.write { db in try db.execute(sql: "INSERT INTO event (value) VALUES (?)", arguments: [value]) }
                    if lockstep { try observed.wait(for: value + 1) }
                }
            }
            try observed.wait(for: count)
        }
        try dbPool.close()
        return time
    }
    return [
        Case(workload: "W6 observed commits", mode: mode, variant: "raw C", floor: "raw C") {
            try emptyFile()
            let connection = try RawConnection(path: file, key: key)
            return try seconds { try connection.commitEvents(count) }
        },
        Case(workload: "W6 observed commits", mode: mode, variant: "pool, no observation", floor: "raw C") {
            try emptyFile()
            let dbPool = try DatabasePool(path: file, configuration: makeConfiguration(key: key))
            let time = try commits(dbPool)
            guard try dbPool.read({ db in try Int.fetchOne(db, sql: "SELECT count(*) FROM event") }) == count else {
                throw RawError(description: "W6 lost commits")
            }
            try dbPool.close()
            return time
        },
        Case(workload: "W6 observed commits", mode: mode, variant: "pool, count observed", floor: "pool, no observation") {
            try observedCommits(lockstep: false)
        },
        Case(workload: "W6 observed commits", mode: mode, variant: "pool, count observed, lockstep", floor: "raw C") {
            try observedCommits(lockstep: true)
        },
    ]
}
