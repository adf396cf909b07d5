/// A request from raw SQL or an SQL literal.
///
/// ```swift
/// let request = SQLRequest<Player>(sql: "SELECT * FROM player WHERE score > ?", arguments: [1000])
/// let players = try request.fetchAll(db)
/// // Interpolated values are bound, columns and tables quoted:
/// let named: SQLRequest<Player> = "SELECT * FROM \(Player.self) WHERE \(Column("name")) = \(name)"
/// ```
public struct SQLRequest<RowDecoder>: FetchRequest {
    /// The adapter of the fetched rows.
    public var adapter: (any RowAdapter)?
    /// The SQL literal.
    private(set) var sqlLiteral: SQL
    /// True when the statement is kept by the connection for reuse.
    let isCached: Bool

    private init(storing literal: SQL, adapter: (any RowAdapter)?, cached: Bool) {
        sqlLiteral = literal
        self.adapter = adapter
        isCached = cached
    }

    /// A request from raw SQL and arguments.
    public init(sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil,
                cached: Bool = false) {
        self.init(storing: SQL(sql: sql, arguments: arguments), adapter: adapter, cached: cached)
    }

    /// A request from an SQL literal.
    public init(literal sqlLiteral: SQL, adapter: (any RowAdapter)? = nil, cached: Bool = false) {
        self.init(storing: sqlLiteral, adapter: adapter, cached: cached)
    }

    /// The request as a subquery.
    public var sqlSubquery: SQLSubquery { .literal(sqlLiteral) }

    /// `SELECT COUNT(*) FROM (...)`.
    public func fetchCount(_ db: Database) throws -> Int {
        let count: SQLRequest<Int> = "SELECT COUNT(*) FROM (\(self))"
        return try count.fetchOne(db) ?? 0
    }

    /// The statement, its arguments bound.
    public func makePreparedRequest(_ db: Database, forSingleResult singleResult: Bool = false) throws -> PreparedRequest {
        let context = SQLGenerationContext(db)
        let sql = try sqlLiteral.sql(context)
        let statement = isCached ? try db.cachedStatementForFetch(sql: sql) : try db.makeStatement(sql: sql)
        try statement.setArguments(context.arguments)
        return PreparedRequest(statement: statement, adapter: adapter)
    }

    /// The same SQL, decoding rows into another type.
    public func asRequest<T>(of type: T.Type) -> SQLRequest<T> {
        SQLRequest<T>(storing: sqlLiteral, adapter: adapter, cached: isCached)
    }
}

extension SQLRequest where RowDecoder == Row {
    /// A request of rows from raw SQL.
    public init(sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil,
                cached: Bool = false) {
        self.init(storing: SQL(sql: sql, arguments: arguments), adapter: adapter, cached: cached)
    }

    /// A request of rows from an SQL literal.
    public init(literal sqlLiteral: SQL, adapter: (any RowAdapter)? = nil, cached: Bool = false) {
        self.init(storing: sqlLiteral, adapter: adapter, cached: cached)
    }
}

extension SQLRequest: ExpressibleByStringInterpolation {
    /// A request from SQL without arguments.
    public init(stringLiteral value: String) { self.init(storing: SQL(sql: value), adapter: nil, cached: false) }

    /// A request with interpolated values, columns, tables and subqueries.
    public init(stringInterpolation: SQLInterpolation) {
        self.init(storing: SQL(stringInterpolation: stringInterpolation), adapter: nil, cached: false)
    }
}
