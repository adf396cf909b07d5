/// A type that can be built from a database row.
///
/// ```swift
/// struct Player: Decodable, FetchableRecord, TableRecord {
///     var id: Int64
///     var name: String
/// }
/// let players = try Player.fetchAll(db)                        // all rows of "player"
/// let best = try Player.fetchOne(db, sql: "SELECT * FROM player ORDER BY score DESC")
/// ```
///
/// `Decodable` types get `init(row:)` for free: each property reads the
/// column of the same name; nested `Codable` values are read from JSON text.
public protocol FetchableRecord {
    init(row: Row) throws
}

extension FetchableRecord {
    /// A cursor of records from SQL.
    public static func fetchCursor(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> RecordCursor<Self> {
        try RecordCursor(statement: db.makeStatement(sql: sql), arguments: arguments)
    }

    public static func fetchAll(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> [Self] {
        try fetchAll(db.cachedStatementForFetch(sql: sql), arguments: arguments)
    }

    public static func fetchOne(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> Self? {
        try fetchOne(db.cachedStatementForFetch(sql: sql), arguments: arguments)
    }

    /// A cursor of records from a prepared statement.
    public static func fetchCursor(_ statement: Statement, arguments: StatementArguments? = nil) throws -> RecordCursor<Self> {
        try RecordCursor(statement: statement, arguments: arguments)
    }

    public static func fetchAll(_ statement: Statement, arguments: StatementArguments? = nil) throws -> [Self] {
        try Array(fetchCursor(statement, arguments: arguments))
    }

    public static func fetchOne(_ statement: Statement, arguments: StatementArguments? = nil) throws -> Self? {
        try fetchCursor(statement, arguments: arguments).next()
    }
}

extension FetchableRecord where Self: Hashable {
    public static func fetchSet(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> Set<Self> {
        try Set(fetchCursor(db, sql: sql, arguments: arguments))
    }
}

extension FetchableRecord where Self: TableRecord {
    /// All the records of the table.
    public static func fetchAll(_ db: Database) throws -> [Self] { try all().fetchAll(db) }
    /// The first record of the table.
    public static func fetchOne(_ db: Database) throws -> Self? { try all().fetchOne(db) }
    /// A cursor of the records of the table.
    public static func fetchCursor(_ db: Database) throws -> RecordCursor<Self> { try all().fetchCursor(db) }

    /// The record with this primary key, or nil.
    public static func fetchOne(_ db: Database, key: some DatabaseValueConvertible) throws -> Self? {
        try filter(key: key).fetchOne(db)
    }

    /// The record with these column values, or nil.
    public static func fetchOne(_ db: Database, key: [String: (any DatabaseValueConvertible)?]) throws -> Self? {
        try filter(key: key).fetchOne(db)
    }

    /// The records with these primary keys.
    public static func fetchAll<Key: DatabaseValueConvertible>(_ db: Database, keys: some Collection<Key>) throws -> [Self] {
        try filter(keys: keys).fetchAll(db)
    }
}

extension FetchableRecord where Self: TableRecord & Identifiable, ID: DatabaseValueConvertible {
    public static func fetchOne(_ db: Database, id: ID) throws -> Self? { try fetchOne(db, key: id) }
    public static func fetchAll(_ db: Database, ids: some Collection<ID>) throws -> [Self] { try fetchAll(db, keys: ids) }
}

extension FetchRequest where RowDecoder: FetchableRecord {
    public func fetchCursor(_ db: Database) throws -> RecordCursor<RowDecoder> {
        try RowDecoder.fetchCursor(makePreparedRequest(db, forSingleResult: false).statement)
    }
    public func fetchAll(_ db: Database) throws -> [RowDecoder] {
        try RowDecoder.fetchAll(makePreparedRequest(db, forSingleResult: false).statement)
    }
    public func fetchOne(_ db: Database) throws -> RowDecoder? {
        try RowDecoder.fetchOne(makePreparedRequest(db, forSingleResult: true).statement)
    }
}

extension FetchRequest where RowDecoder: FetchableRecord & Hashable {
    public func fetchSet(_ db: Database) throws -> Set<RowDecoder> {
        try Set(fetchCursor(db))
    }
}

/// A cursor of records.
public final class RecordCursor<Record: FetchableRecord>: DatabaseCursor {
    public var statement: Statement { stepper.statement }
    private let stepper: StatementStepper
    private let row: Row

    init(statement: Statement, arguments: StatementArguments?) throws {
        stepper = try StatementStepper(statement: statement, arguments: arguments)
        row = Row(statement: statement)
    }

    public func next() throws -> Record? {
        guard try stepper.step() else { return nil }
        return try Record(row: row)
    }
}
