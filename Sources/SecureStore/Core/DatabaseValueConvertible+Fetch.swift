// Fetching values of the first column: `Int.fetchOne(db, sql: ...)`.
//
// Two sets of methods: the general one decodes through DatabaseValue, the
// other reads columns directly for StatementColumnConvertible types. Swift
// picks the more specific one. With an adapter, the column is the first
// of the adapted row.

extension DatabaseValueConvertible {
    /// A cursor of the values of the first column. NULL or a value that does
    /// not convert is an error: fetch an Optional type to accept NULL.
    ///
    /// ```swift
    /// let names = try String.fetchCursor(db, sql: "SELECT name FROM player")
    /// ```
    public static func fetchCursor(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> DatabaseValueCursor<Self> {
        try fetchCursor(db.makeStatement(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// All the values of the first column.
    public static func fetchAll(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> [Self] {
        try fetchAll(db.cachedStatementForFetch(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// The value of the first column of the first row, or nil when there is
    /// no row or the value is NULL.
    public static func fetchOne(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> Self? {
        try fetchOne(db.cachedStatementForFetch(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// A cursor of the values of a prepared statement's first column.
    public static func fetchCursor(_ statement: Statement, arguments: StatementArguments? = nil,
                                   adapter: (any RowAdapter)? = nil) throws -> DatabaseValueCursor<Self> {
        try DatabaseValueCursor(statement: statement, arguments: arguments, column: valueColumn(statement, adapter))
    }

    /// All the values of a prepared statement's first column.
    public static func fetchAll(_ statement: Statement, arguments: StatementArguments? = nil,
                                adapter: (any RowAdapter)? = nil) throws -> [Self] {
        try Array(movingElementsOf: fetchCursor(statement, arguments: arguments, adapter: adapter))
    }

    /// The value of a prepared statement's first row, or nil.
    public static func fetchOne(_ statement: Statement, arguments: StatementArguments? = nil,
                                adapter: (any RowAdapter)? = nil) throws -> Self? {
        let cursor = try DatabaseValueCursor<Self?>(statement: statement, arguments: arguments, column: valueColumn(statement, adapter))
        return try cursor.next() ?? nil
    }

    /// A cursor of the values of a request's first column.
    public static func fetchCursor(_ db: Database, _ request: some FetchRequest) throws -> DatabaseValueCursor<Self> {
        let prepared = try request.makePreparedRequest(db, forSingleResult: false)
        return try DatabaseValueCursor(statement: prepared.statement, arguments: nil, column: prepared.valueColumn())
    }

    /// All the values of a request's first column.
    public static func fetchAll(_ db: Database, _ request: some FetchRequest) throws -> [Self] {
        try Array(movingElementsOf: fetchCursor(db, request))
    }

    /// The value of a request's first row, or nil.
    public static func fetchOne(_ db: Database, _ request: some FetchRequest) throws -> Self? {
        let prepared = try request.makePreparedRequest(db, forSingleResult: true)
        let cursor = try DatabaseValueCursor<Self?>(statement: prepared.statement, arguments: nil, column: prepared.valueColumn())
        return try cursor.next() ?? nil
    }

    /// The column of a value fetch: 0, or the first of the adapted row.
    static func valueColumn(_ statement: Statement, _ adapter: (any RowAdapter)?) throws -> Int {
        try PreparedRequest(statement: statement, adapter: adapter).valueColumn()
    }
}

extension DatabaseValueConvertible where Self: Hashable {
    /// The distinct values of the first column.
    public static func fetchSet(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> Set<Self> {
        try Set(fetchCursor(db, sql: sql, arguments: arguments, adapter: adapter))
    }

    /// The distinct values of a prepared statement's first column.
    public static func fetchSet(_ statement: Statement, arguments: StatementArguments? = nil,
                                adapter: (any RowAdapter)? = nil) throws -> Set<Self> {
        try Set(fetchCursor(statement, arguments: arguments, adapter: adapter))
    }

    /// The distinct values of a request's first column.
    public static func fetchSet(_ db: Database, _ request: some FetchRequest) throws -> Set<Self> {
        try Set(fetchCursor(db, request))
    }
}

extension DatabaseValueConvertible where Self: StatementColumnConvertible {
    /// A cursor of the values of the first column, through the fast path.
    public static func fetchCursor(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> FastDatabaseValueCursor<Self> {
        try fetchCursor(db.makeStatement(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// All the values of the first column, through the fast path.
    public static func fetchAll(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> [Self] {
        try fetchAll(db.cachedStatementForFetch(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// The value of the first column of the first row, through the fast path.
    public static func fetchOne(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> Self? {
        try fetchOne(db.cachedStatementForFetch(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// A cursor of a prepared statement's first column, through the fast path.
    public static func fetchCursor(_ statement: Statement, arguments: StatementArguments? = nil,
                                   adapter: (any RowAdapter)? = nil) throws -> FastDatabaseValueCursor<Self> {
        try FastDatabaseValueCursor(statement: statement, arguments: arguments, column: valueColumn(statement, adapter))
    }

    /// All the values of a prepared statement's first column.
    public static func fetchAll(_ statement: Statement, arguments: StatementArguments? = nil,
                                adapter: (any RowAdapter)? = nil) throws -> [Self] {
        try Array(movingElementsOf: fetchCursor(statement, arguments: arguments, adapter: adapter))
    }

    /// The value of a prepared statement's first row, or nil.
    public static func fetchOne(_ statement: Statement, arguments: StatementArguments? = nil,
                                adapter: (any RowAdapter)? = nil) throws -> Self? {
        let cursor = try FastDatabaseValueCursor<Self?>(statement: statement, arguments: arguments, column: valueColumn(statement, adapter))
        return try cursor.next() ?? nil
    }

    /// A cursor of a request's first column, through the fast path.
    public static func fetchCursor(_ db: Database, _ request: some FetchRequest) throws -> FastDatabaseValueCursor<Self> {
        let prepared = try request.makePreparedRequest(db, forSingleResult: false)
        return try FastDatabaseValueCursor(statement: prepared.statement, arguments: nil, column: prepared.valueColumn())
    }

    /// All the values of a request's first column.
    public static func fetchAll(_ db: Database, _ request: some FetchRequest) throws -> [Self] {
        try Array(movingElementsOf: fetchCursor(db, request))
    }

    /// The value of a request's first row, or nil.
    public static func fetchOne(_ db: Database, _ request: some FetchRequest) throws -> Self? {
        let prepared = try request.makePreparedRequest(db, forSingleResult: true)
        let cursor = try FastDatabaseValueCursor<Self?>(statement: prepared.statement, arguments: nil, column: prepared.valueColumn())
        return try cursor.next() ?? nil
    }
}

extension DatabaseValueConvertible where Self: StatementColumnConvertible & Hashable {
    /// The distinct values of the first column, through the fast path.
    public static func fetchSet(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil
    ) throws -> Set<Self> {
        try Set(fetchCursor(db, sql: sql, arguments: arguments, adapter: adapter))
    }

    /// The distinct values of a prepared statement's first column.
    public static func fetchSet(_ statement: Statement, arguments: StatementArguments? = nil,
                                adapter: (any RowAdapter)? = nil) throws -> Set<Self> {
        try Set(fetchCursor(statement, arguments: arguments, adapter: adapter))
    }

    /// The distinct values of a request's first column.
    public static func fetchSet(_ db: Database, _ request: some FetchRequest) throws -> Set<Self> {
        try Set(fetchCursor(db, request))
    }
}
