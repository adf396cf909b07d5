/// A request that can be turned into a prepared statement:
/// ``QueryInterfaceRequest``, ``SQLRequest``, or a type of your own.
///
/// ```swift
/// struct BestPlayers: FetchRequest {
///     typealias RowDecoder = Player
///     var sqlSubquery: SQLSubquery { request.sqlSubquery }
///     private var request: SQLRequest<Player> { "SELECT * FROM player ORDER BY score DESC LIMIT 10" }
///     func makePreparedRequest(_ db: Database, forSingleResult: Bool) throws -> PreparedRequest {
///         try request.makePreparedRequest(db, forSingleResult: forSingleResult)
///     }
///     func fetchCount(_ db: Database) throws -> Int { try request.fetchCount(db) }
/// }
/// let players = try BestPlayers().fetchAll(db)
/// ```
public protocol FetchRequest<RowDecoder>: SQLSubqueryable, DatabaseRegionConvertible {
    /// What the fetched rows decode into.
    associatedtype RowDecoder

    /// The statement that runs the request. `forSingleResult` lets a request
    /// add `LIMIT 1`.
    func makePreparedRequest(_ db: Database, forSingleResult singleResult: Bool) throws -> PreparedRequest

    /// The number of rows the request fetches.
    func fetchCount(_ db: Database) throws -> Int
}

extension FetchRequest {
    /// The tables, columns and rows the request reads, as SQLite's
    /// authorizer reported them when the statement was prepared.
    public func databaseRegion(_ db: Database) throws -> DatabaseRegion {
        try makePreparedRequest(db, forSingleResult: false).statement.databaseRegion
    }

    /// The same request, with its rows seen through an adapter.
    public func adapted(_ adapter: @escaping @Sendable (Database) throws -> any RowAdapter) -> AdaptedFetchRequest<Self> {
        AdaptedFetchRequest(base: self, adapter: adapter)
    }
}

/// A prepared request: a statement with its arguments bound, the adapter
/// of its rows, and, for requests that prefetch associations, the fetch
/// that follows.
public struct PreparedRequest {
    /// The statement.
    public var statement: Statement
    /// The adapter applied to each row, if any.
    public var adapter: (any RowAdapter)?
    /// Fetches the prefetched associations of the fetched rows.
    var supplementaryFetch: ((_ db: Database, _ rows: [Row]) throws -> Void)?

    /// A prepared request.
    public init(statement: Statement, adapter: (any RowAdapter)? = nil) {
        self.statement = statement
        self.adapter = adapter
    }

    init(statement: Statement, adapter: (any RowAdapter)?, supplementaryFetch: ((Database, [Row]) throws -> Void)?) {
        self.statement = statement
        self.adapter = adapter
        self.supplementaryFetch = supplementaryFetch
    }

    /// The layouted adapter of the statement's rows.
    func layoutedAdapter() throws -> LayoutedRowAdapter? {
        try adapter?.layoutedAdapter(from: RowLayout(names: statement.columnNames))
    }

    /// Every row, copied, with its prefetched associations.
    func fetchAllRows(_ db: Database) throws -> [Row] {
        let cursor = try RowCursor(statement: statement, arguments: nil, adapter: layoutedAdapter())
        let rows = try Array(movingElementsOf: cursor.map { $0.copy() })
        try supplementaryFetch?(db, rows)
        return rows
    }

    /// The column of the value fetches: the first of the adapted row.
    func valueColumn() throws -> Int {
        guard let adapter = try layoutedAdapter() else { return 0 }
        guard let first = adapter.mapping.columns.first else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the row adapter selects no column to fetch values from")
        }
        return first.index
    }

    /// The first row, copied, with its prefetched associations.
    func fetchOneRow(_ db: Database) throws -> Row? {
        let cursor = try RowCursor(statement: statement, arguments: nil, adapter: layoutedAdapter())
        guard let row = try withExtendedLifetime(cursor, { try cursor.next()?.copy() }) else { return nil }
        try supplementaryFetch?(db, [row])
        return row
    }
}

/// A request whose rows are seen through an adapter.
public struct AdaptedFetchRequest<Base: FetchRequest>: FetchRequest {
    /// What the rows decode into.
    public typealias RowDecoder = Base.RowDecoder

    let base: Base
    let adapter: @Sendable (Database) throws -> any RowAdapter

    /// The base request as a subquery.
    public var sqlSubquery: SQLSubquery { base.sqlSubquery }

    /// The base request's count.
    public func fetchCount(_ db: Database) throws -> Int { try base.fetchCount(db) }

    /// The base request, with the adapter after its own.
    public func makePreparedRequest(_ db: Database, forSingleResult singleResult: Bool = false) throws -> PreparedRequest {
        var prepared = try base.makePreparedRequest(db, forSingleResult: singleResult)
        let extra = try adapter(db)
        prepared.adapter = prepared.adapter.map { ChainedAdapter(first: $0, second: extra) } ?? extra
        return prepared
    }
}

/// A type-erased request.
public struct AnyFetchRequest<RowDecoder>: FetchRequest {
    private let subquery: @Sendable () -> SQLSubquery
    private let prepare: @Sendable (Database, Bool) throws -> PreparedRequest
    private let count: @Sendable (Database) throws -> Int

    /// Erases a request's type.
    public init(_ request: some FetchRequest<RowDecoder>) {
        self.init(erasing: request)
    }

    private init<Request: FetchRequest>(erasing request: Request) {
        let sqlSubquery = request.sqlSubquery
        subquery = { sqlSubquery }
        prepare = { try request.makePreparedRequest($0, forSingleResult: $1) }
        count = { try request.fetchCount($0) }
    }

    private init(subquery: @escaping @Sendable () -> SQLSubquery, prepare: @escaping @Sendable (Database, Bool) throws -> PreparedRequest,
                 count: @escaping @Sendable (Database) throws -> Int) {
        self.subquery = subquery
        self.prepare = prepare
        self.count = count
    }

    /// The same request, decoding rows into another type.
    public func asRequest<T>(of type: T.Type) -> AnyFetchRequest<T> {
        AnyFetchRequest<T>(subquery: subquery, prepare: prepare, count: count)
    }

    /// The request as a subquery.
    public var sqlSubquery: SQLSubquery { subquery() }

    /// The request's statement.
    public func makePreparedRequest(_ db: Database, forSingleResult singleResult: Bool = false) throws -> PreparedRequest {
        try prepare(db, singleResult)
    }

    /// The request's count.
    public func fetchCount(_ db: Database) throws -> Int { try count(db) }
}

extension FetchRequest {
    /// The same request, decoding rows into another type, type-erased.
    public func asRequest<T>(of type: T.Type) -> AnyFetchRequest<T> {
        AnyFetchRequest<RowDecoder>(self).asRequest(of: T.self)
    }
}

// MARK: - Fetching rows

extension FetchRequest where RowDecoder == Row {
    /// A cursor of the rows of the request.
    public func fetchCursor(_ db: Database) throws -> RowCursor { try Row.fetchCursor(db, self) }
    /// All the rows of the request.
    public func fetchAll(_ db: Database) throws -> [Row] { try Row.fetchAll(db, self) }
    /// The distinct rows of the request.
    public func fetchSet(_ db: Database) throws -> Set<Row> { try Row.fetchSet(db, self) }
    /// The first row of the request, or nil.
    public func fetchOne(_ db: Database) throws -> Row? { try Row.fetchOne(db, self) }
}

extension Row {
    /// A cursor of the rows of a request. With prefetched associations, the
    /// rows are fetched first, then handed out.
    public static func fetchCursor(_ db: Database, _ request: some FetchRequest) throws -> RowCursor {
        let prepared = try request.makePreparedRequest(db, forSingleResult: false)
        if prepared.supplementaryFetch != nil { return RowCursor(rows: try prepared.fetchAllRows(db), statement: prepared.statement) }
        return try RowCursor(statement: prepared.statement, arguments: nil, adapter: prepared.layoutedAdapter())
    }

    /// All the rows of a request.
    public static func fetchAll(_ db: Database, _ request: some FetchRequest) throws -> [Row] {
        try request.makePreparedRequest(db, forSingleResult: false).fetchAllRows(db)
    }

    /// The distinct rows of a request.
    public static func fetchSet(_ db: Database, _ request: some FetchRequest) throws -> Set<Row> {
        Set(try fetchAll(db, request))
    }

    /// The first row of a request, or nil.
    public static func fetchOne(_ db: Database, _ request: some FetchRequest) throws -> Row? {
        try request.makePreparedRequest(db, forSingleResult: true).fetchOneRow(db)
    }
}

// MARK: - Fetching values

extension FetchRequest where RowDecoder: DatabaseValueConvertible {
    /// A cursor of the values of the first column.
    public func fetchCursor(_ db: Database) throws -> DatabaseValueCursor<RowDecoder> { try RowDecoder.fetchCursor(db, self) }
    /// All the values of the first column.
    public func fetchAll(_ db: Database) throws -> [RowDecoder] { try RowDecoder.fetchAll(db, self) }
    /// The value of the first column of the first row, or nil.
    public func fetchOne(_ db: Database) throws -> RowDecoder? { try RowDecoder.fetchOne(db, self) }
}

extension FetchRequest where RowDecoder: DatabaseValueConvertible & Hashable {
    /// The distinct values of the first column.
    public func fetchSet(_ db: Database) throws -> Set<RowDecoder> { try RowDecoder.fetchSet(db, self) }
}

extension FetchRequest where RowDecoder: DatabaseValueConvertible & StatementColumnConvertible {
    /// A cursor of the values of the first column, through the fast path.
    public func fetchCursor(_ db: Database) throws -> FastDatabaseValueCursor<RowDecoder> { try RowDecoder.fetchCursor(db, self) }
    /// All the values of the first column, through the fast path.
    public func fetchAll(_ db: Database) throws -> [RowDecoder] { try RowDecoder.fetchAll(db, self) }
    /// The value of the first column of the first row, or nil.
    public func fetchOne(_ db: Database) throws -> RowDecoder? { try RowDecoder.fetchOne(db, self) }
}

extension FetchRequest where RowDecoder: DatabaseValueConvertible & StatementColumnConvertible & Hashable {
    /// The distinct values of the first column, through the fast path.
    public func fetchSet(_ db: Database) throws -> Set<RowDecoder> { try RowDecoder.fetchSet(db, self) }
}

extension FetchRequest {
    /// A cursor of optional values of the first column (NULL is nil).
    public func fetchCursor<Wrapped>(_ db: Database) throws -> DatabaseValueCursor<Wrapped?>
    where RowDecoder == Wrapped?, Wrapped: DatabaseValueConvertible {
        try Optional<Wrapped>.fetchCursor(db, self)
    }

    /// All the optional values of the first column (NULL is nil).
    public func fetchAll<Wrapped>(_ db: Database) throws -> [Wrapped?] where RowDecoder == Wrapped?, Wrapped: DatabaseValueConvertible {
        try Optional<Wrapped>.fetchAll(db, self)
    }

    /// The optional value of the first row (nil for no row or NULL).
    public func fetchOne<Wrapped>(_ db: Database) throws -> Wrapped? where RowDecoder == Wrapped?, Wrapped: DatabaseValueConvertible {
        try Optional<Wrapped>.fetchOne(db, self) ?? nil
    }
}

// MARK: - Fetching records

extension FetchRequest where RowDecoder: FetchableRecord {
    /// A cursor of the records of the request.
    public func fetchCursor(_ db: Database) throws -> RecordCursor<RowDecoder> { try RowDecoder.fetchCursor(db, self) }
    /// All the records of the request, with their prefetched associations.
    @inlinable
    public func fetchAll(_ db: Database) throws -> [RowDecoder] { try RowDecoder.fetchAll(db, self) }
    /// The first record of the request, or nil.
    public func fetchOne(_ db: Database) throws -> RowDecoder? { try RowDecoder.fetchOne(db, self) }
}

extension FetchRequest where RowDecoder: FetchableRecord & Hashable {
    /// The distinct records of the request.
    public func fetchSet(_ db: Database) throws -> Set<RowDecoder> { try RowDecoder.fetchSet(db, self) }
}
