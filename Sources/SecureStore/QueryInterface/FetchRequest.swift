/// A request that can be turned into a prepared statement: `SQLRequest`,
/// `QueryInterfaceRequest`, or a type of your own.
///
/// ```swift
/// struct BestPlayers: FetchRequest {
///     typealias RowDecoder = Player
///     func makePreparedRequest(_ db: Database, forSingleResult: Bool) throws -> PreparedRequest {
///         try SQLRequest<Player>(sql: "SELECT * FROM player ORDER BY score DESC LIMIT 10")
///             .makePreparedRequest(db, forSingleResult: forSingleResult)
///     }
///     func fetchCount(_ db: Database) throws -> Int { ... }
/// }
/// ```
public protocol FetchRequest<RowDecoder> {
    /// What the fetched rows decode into.
    associatedtype RowDecoder

    /// The statement that runs the request. `forSingleResult` lets a request
    /// add `LIMIT 1`.
    func makePreparedRequest(_ db: Database, forSingleResult singleResult: Bool) throws -> PreparedRequest

    /// The number of rows the request fetches.
    func fetchCount(_ db: Database) throws -> Int
}

/// A prepared statement, ready to fetch.
public struct PreparedRequest {
    public var statement: Statement

    public init(statement: Statement) {
        self.statement = statement
    }
}

extension FetchRequest {
    /// The same request, decoding rows into another type.
    public func asRequest<T>(of type: T.Type) -> AnyFetchRequest<T> {
        AnyFetchRequest(self)
    }
}

/// A type-erased request.
public struct AnyFetchRequest<RowDecoder>: FetchRequest {
    private let prepare: (Database, Bool) throws -> PreparedRequest
    private let count: (Database) throws -> Int

    public init<Base: FetchRequest>(_ base: Base) {
        prepare = { try base.makePreparedRequest($0, forSingleResult: $1) }
        count = { try base.fetchCount($0) }
    }

    public func makePreparedRequest(_ db: Database, forSingleResult singleResult: Bool) throws -> PreparedRequest {
        try prepare(db, singleResult)
    }

    public func fetchCount(_ db: Database) throws -> Int { try count(db) }
}

// MARK: Fetching rows and values

extension FetchRequest where RowDecoder == Row {
    public func fetchCursor(_ db: Database) throws -> RowCursor {
        try Row.fetchCursor(makePreparedRequest(db, forSingleResult: false).statement)
    }
    public func fetchAll(_ db: Database) throws -> [Row] {
        try Row.fetchAll(makePreparedRequest(db, forSingleResult: false).statement)
    }
    public func fetchOne(_ db: Database) throws -> Row? {
        try Row.fetchOne(makePreparedRequest(db, forSingleResult: true).statement)
    }
}

extension FetchRequest where RowDecoder: DatabaseValueConvertible {
    public func fetchAll(_ db: Database) throws -> [RowDecoder] {
        try RowDecoder.fetchAll(makePreparedRequest(db, forSingleResult: false).statement)
    }
    public func fetchOne(_ db: Database) throws -> RowDecoder? {
        try RowDecoder.fetchOne(makePreparedRequest(db, forSingleResult: true).statement)
    }
}

extension FetchRequest where RowDecoder: DatabaseValueConvertible & StatementColumnConvertible {
    public func fetchAll(_ db: Database) throws -> [RowDecoder] {
        try RowDecoder.fetchAll(makePreparedRequest(db, forSingleResult: false).statement)
    }
    public func fetchOne(_ db: Database) throws -> RowDecoder? {
        try RowDecoder.fetchOne(makePreparedRequest(db, forSingleResult: true).statement)
    }
}

/// Counting by wrapping the request: `SELECT COUNT(*) FROM (...)`.
extension FetchRequest {
    func countByWrapping(_ db: Database) throws -> Int {
        let statement = try makePreparedRequest(db, forSingleResult: false).statement
        return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (\(statement.sql))", arguments: statement.arguments) ?? 0
    }
}
