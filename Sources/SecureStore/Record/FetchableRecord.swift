import Foundation

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
///
/// ## Topics
///
/// ### Customizing the format of columns
///
/// - ``databaseDecodingUserInfo``
/// - ``databaseJSONDecoder(for:)``
/// - ``databaseDataDecodingStrategy(for:)``
/// - ``databaseDateDecodingStrategy(for:)``
/// - ``databaseColumnDecodingStrategy``
public protocol FetchableRecord {
    /// Decodes a record from a row.
    init(row: Row) throws

    /// The `userInfo` of the decoder of `Decodable` records, and of the
    /// JSON decoders of their nested values.
    static var databaseDecodingUserInfo: [CodingUserInfoKey: Any] { get }

    /// The JSON decoder of a column that stores a nested `Decodable` value.
    static func databaseJSONDecoder(for column: String) -> JSONDecoder

    /// How a `Data` property is read.
    static func databaseDataDecodingStrategy(for column: String) -> DatabaseDataDecodingStrategy

    /// How a `Date` property is read.
    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy

    /// How columns name coding keys.
    static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { get }
}

extension FetchableRecord {
    /// Empty.
    public static var databaseDecodingUserInfo: [CodingUserInfoKey: Any] { [:] }

    /// Base64 data, dates as milliseconds since 1970, and an error for
    /// NaN and infinity, with ``databaseDecodingUserInfo``.
    public static func databaseJSONDecoder(for column: String) -> JSONDecoder {
        JSONDecoder.databaseDefault(userInfo: databaseDecodingUserInfo)
    }

    /// `.deferredToData`.
    public static func databaseDataDecodingStrategy(for column: String) -> DatabaseDataDecodingStrategy { .deferredToData }

    /// `.deferredToDate`.
    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .deferredToDate }

    /// `.useDefaultKeys`.
    public static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { .useDefaultKeys }
}

extension FetchableRecord {
    /// A cursor of records from SQL.
    public static func fetchCursor(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> RecordCursor<Self> {
        try fetchCursor(db.makeStatement(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// All the records of a query.
    @inlinable
    public static func fetchAll(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> [Self] {
        try fetchAll(db.cachedStatementForFetch(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// The first record of a query, or nil.
    public static func fetchOne(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> Self? {
        try fetchOne(db.cachedStatementForFetch(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// A cursor of records from a prepared statement.
    public static func fetchCursor(_ statement: Statement, arguments: StatementArguments? = nil,
                                   adapter: (any RowAdapter)? = nil) throws -> RecordCursor<Self> {
        let layouted = try adapter?.layoutedAdapter(from: RowLayout(names: statement.columnNames))
        return try RecordCursor(statement: statement, arguments: arguments, adapter: layouted)
    }

    /// All the records of a prepared statement.
    @inlinable
    public static func fetchAll(_ statement: Statement, arguments: StatementArguments? = nil,
                                adapter: (any RowAdapter)? = nil) throws -> [Self] {
        try fetchCursor(statement, arguments: arguments, adapter: adapter).all()
    }

    /// The first record of a prepared statement, or nil.
    public static func fetchOne(_ statement: Statement, arguments: StatementArguments? = nil,
                                adapter: (any RowAdapter)? = nil) throws -> Self? {
        try fetchCursor(statement, arguments: arguments, adapter: adapter).next()
    }

    /// A cursor of the records of a request. With prefetched associations,
    /// the records are fetched first, then handed out.
    public static func fetchCursor(_ db: Database, _ request: some FetchRequest) throws -> RecordCursor<Self> {
        let prepared = try request.makePreparedRequest(db, forSingleResult: false)
        if prepared.supplementaryFetch != nil {
            return RecordCursor(records: try prepared.fetchAllRows(db).map(Self.init(row:)), statement: prepared.statement)
        }
        return try RecordCursor(statement: prepared.statement, arguments: nil, adapter: prepared.layoutedAdapter())
    }

    /// All the records of a request, with their prefetched associations.
    @inlinable
    public static func fetchAll(_ db: Database, _ request: some FetchRequest) throws -> [Self] {
        var prefetched: [Self] = []
        guard let cursor = try cursorForAll(db, request, prefetched: &prefetched) else { return prefetched }
        return try cursor.all()
    }

    /// The cursor of `fetchAll(_:_:)` over the request's statement, or nil
    /// when the request prefetches associations: its records are then
    /// decoded already, and returned in `prefetched` as they are (through
    /// a cursor, each would be copied once more).
    @usableFromInline
    static func cursorForAll(_ db: Database, _ request: some FetchRequest, prefetched: inout [Self]) throws -> RecordCursor<Self>? {
        let prepared = try request.makePreparedRequest(db, forSingleResult: false)
        if prepared.supplementaryFetch != nil {
            prefetched = try prepared.fetchAllRows(db).map(Self.init(row:))
            return nil
        }
        return try RecordCursor(statement: prepared.statement, arguments: nil, adapter: prepared.layoutedAdapter())
    }

    /// The first record of a request, or nil.
    public static func fetchOne(_ db: Database, _ request: some FetchRequest) throws -> Self? {
        let prepared = try request.makePreparedRequest(db, forSingleResult: true)
        if prepared.supplementaryFetch != nil { return try prepared.fetchOneRow(db).map(Self.init(row:)) }
        return try RecordCursor(statement: prepared.statement, arguments: nil, adapter: prepared.layoutedAdapter()).next()
    }
}

extension FetchableRecord where Self: Hashable {
    /// The distinct records of a query.
    public static func fetchSet(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> Set<Self> {
        try Set(fetchCursor(db, sql: sql, arguments: arguments, adapter: adapter))
    }

    /// The distinct records of a prepared statement.
    public static func fetchSet(_ statement: Statement, arguments: StatementArguments? = nil,
                                adapter: (any RowAdapter)? = nil) throws -> Set<Self> {
        try Set(fetchCursor(statement, arguments: arguments, adapter: adapter))
    }

    /// The distinct records of a request.
    public static func fetchSet(_ db: Database, _ request: some FetchRequest) throws -> Set<Self> {
        try Set(fetchAll(db, request))
    }
}

/// A cursor of records.
public final class RecordCursor<Record: FetchableRecord>: DatabaseCursor {
    /// The statement the records come from.
    public let statement: Statement
    @usableFromInline let stepper: StatementStepper?
    /// The statement's row (an empty row when the records were decoded
    /// already): not optional, so that each record reads it in place.
    @usableFromInline let row: Row
    private var decoded: IndexingIterator<[Record]>?

    init(statement: Statement, arguments: StatementArguments?, adapter: LayoutedRowAdapter? = nil) throws {
        self.statement = statement
        stepper = try StatementStepper(statement: statement, arguments: arguments)
        let base = Row(statement: statement)
        row = adapter.map { Row(base: base, adapter: $0) } ?? base
    }

    /// A cursor over records already decoded (with prefetched associations).
    init(records: [Record], statement: Statement) {
        self.statement = statement
        stepper = nil
        row = Row()
        decoded = records.makeIterator()
    }

    /// The next element, or nil after the last.
    public func next() throws -> Record? {
        // Optional chaining reads the stepper in place: `guard let` would
        // retain and release it (and the row) at every record.
        switch try stepper?.step() {
        case true?: return try Record(row: row)
        case false?: return nil
        case nil: return decoded?.next()
        }
    }

    /// The remaining records, as `Array(cursor)` would gather them, each
    /// decoded where the array keeps it: not returned as an optional and
    /// moved, as `next()` does.
    ///
    /// Inlinable, with the `fetchAll` methods that call it: the loop is
    /// specialized for the record type where the records are fetched,
    /// and calls the record's initializer directly, not through its
    /// conformance (measured: 262 instructions fewer per `Decodable`
    /// record of four columns, BENCHMARKS.md).
    @inlinable
    func all() throws -> [Record] {
        guard let stepper else { return try Array(movingElementsOf: self) }
        return try Array(gathering: { target in
            guard try stepper.step() else { return false }
            target.initialize(to: try Record(row: row))
            return true
        })
    }
}
