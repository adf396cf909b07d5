// Fetching rows from SQL or from a prepared statement, optionally seen
// through a row adapter.
extension Row {
    /// A cursor of the rows of a query. Rows are reused: copy one to keep it.
    ///
    /// ```swift
    /// let rows = try Row.fetchCursor(db, sql: "SELECT * FROM player WHERE score > ?", arguments: [10])
    /// while let row = try rows.next() { ... }
    /// ```
    public static func fetchCursor(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(),
        adapter: (any RowAdapter)? = nil
    ) throws -> RowCursor {
        try fetchCursor(db.makeStatement(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// All the rows of a query.
    public static func fetchAll(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(),
        adapter: (any RowAdapter)? = nil
    ) throws -> [Row] {
        try fetchAll(db.cachedStatementForFetch(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// The first row of a query, or nil.
    public static func fetchOne(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(),
        adapter: (any RowAdapter)? = nil
    ) throws -> Row? {
        try fetchOne(db.cachedStatementForFetch(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// The distinct rows of a query.
    public static func fetchSet(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(),
        adapter: (any RowAdapter)? = nil
    ) throws -> Set<Row> {
        try fetchSet(db.cachedStatementForFetch(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// A cursor of the rows of a prepared statement. With nil arguments the
    /// statement keeps its current bindings.
    public static func fetchCursor(_ statement: Statement, arguments: StatementArguments? = nil,
                                   adapter: (any RowAdapter)? = nil) throws -> RowCursor {
        let layouted = try adapter?.layoutedAdapter(from: RowLayout(names: statement.columnNames))
        return try RowCursor(statement: statement, arguments: arguments, adapter: layouted)
    }

    /// All the rows of a prepared statement.
    public static func fetchAll(_ statement: Statement, arguments: StatementArguments? = nil,
                                adapter: (any RowAdapter)? = nil) throws -> [Row] {
        try Array(movingElementsOf: fetchCursor(statement, arguments: arguments, adapter: adapter).map { $0.copy() })
    }

    /// The first row of a prepared statement, or nil.
    public static func fetchOne(_ statement: Statement, arguments: StatementArguments? = nil,
                                adapter: (any RowAdapter)? = nil) throws -> Row? {
        let cursor = try fetchCursor(statement, arguments: arguments, adapter: adapter)
        // The cursor resets the statement when released: copy before that.
        return try withExtendedLifetime(cursor) { try cursor.next()?.copy() }
    }

    /// The distinct rows of a prepared statement.
    public static func fetchSet(_ statement: Statement, arguments: StatementArguments? = nil,
                                adapter: (any RowAdapter)? = nil) throws -> Set<Row> {
        try Set(fetchCursor(statement, arguments: arguments, adapter: adapter).map { $0.copy() })
    }
}
