/// A request from raw SQL.
///
/// ```swift
/// let request = SQLRequest<Player>(sql: "SELECT * FROM player WHERE score > ?", arguments: [1000])
/// let players = try request.fetchAll(db)
/// // Interpolated values and expressions are bound, not spliced:
/// let named: SQLRequest<Player> = "SELECT * FROM player WHERE name = \(name)"
/// ```
public struct SQLRequest<RowDecoder>: FetchRequest {
    public var sql: String
    public var arguments: StatementArguments
    /// When true, the statement is kept by the connection for reuse.
    public var cached: Bool

    public init(sql: String, arguments: StatementArguments = StatementArguments(), cached: Bool = false) {
        self.sql = sql
        self.arguments = arguments
        self.cached = cached
    }

    public func makePreparedRequest(_ db: Database, forSingleResult singleResult: Bool) throws -> PreparedRequest {
        let statement = cached ? try db.cachedStatementForFetch(sql: sql) : try db.makeStatement(sql: sql)
        try statement.setArguments(arguments)
        return PreparedRequest(statement: statement)
    }

    public func fetchCount(_ db: Database) throws -> Int {
        try countByWrapping(db)
    }

    /// The same SQL, decoding rows into another type.
    public func asRequest<T>(of type: T.Type) -> SQLRequest<T> {
        SQLRequest<T>(sql: sql, arguments: arguments, cached: cached)
    }
}

extension SQLRequest: ExpressibleByStringInterpolation {
    public init(stringLiteral value: String) {
        self.init(sql: value)
    }

    public init(stringInterpolation: SQLInterpolation) {
        self.init(sql: stringInterpolation.sql, arguments: StatementArguments(stringInterpolation.values))
    }
}

/// Builds SQL from a string literal: interpolated values and expressions
/// become bound arguments; `\(sql: "...")` inserts raw SQL.
public struct SQLInterpolation: StringInterpolationProtocol {
    var sql = ""
    var values: [DatabaseValue] = []

    public init(literalCapacity: Int, interpolationCount: Int) {
        sql.reserveCapacity(literalCapacity + interpolationCount)
    }

    public mutating func appendLiteral(_ literal: String) {
        sql += literal
    }

    /// A value or expression, bound as arguments.
    public mutating func appendInterpolation(_ expression: some SQLExpressible) {
        sql += expression.sqlExpression.sql(&values)
    }

    /// A nil value: NULL.
    public mutating func appendInterpolation<T: SQLExpressible>(_ value: T?) {
        if let value { appendInterpolation(value) } else { sql += "NULL" }
    }

    /// Raw SQL text, inserted as is.
    public mutating func appendInterpolation(sql text: String) {
        sql += text
    }

    /// A quoted identifier: `\(identifier: "my table")`.
    public mutating func appendInterpolation(identifier: String) {
        sql += identifier.quotedDatabaseIdentifier
    }
}
