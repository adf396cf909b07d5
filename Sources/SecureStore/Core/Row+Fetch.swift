// Fetching rows from SQL or from a prepared statement.
extension Row {
    /// A cursor of the rows of a query. Rows are reused: copy one to keep it.
    ///
    /// ```swift
    /// let rows = try Row.fetchCursor(db, sql: "SELECT * FROM player WHERE score > ?", arguments: [10])
    /// while let row = try rows.next() { ... }
    /// ```
    public static func fetchCursor(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> RowCursor {
        try RowCursor(statement: db.makeStatement(sql: sql), arguments: arguments)
    }

    /// All the rows of a query.
    public static func fetchAll(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> [Row] {
        try fetchAll(db.cachedStatementForFetch(sql: sql), arguments: arguments)
    }

    /// The first row of a query, or nil.
    public static func fetchOne(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> Row? {
        try fetchOne(db.cachedStatementForFetch(sql: sql), arguments: arguments)
    }

    /// The distinct rows of a query.
    public static func fetchSet(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> Set<Row> {
        try fetchSet(db.cachedStatementForFetch(sql: sql), arguments: arguments)
    }

    /// A cursor of the rows of a prepared statement. With nil arguments the
    /// statement keeps its current bindings.
    public static func fetchCursor(_ statement: Statement, arguments: StatementArguments? = nil) throws -> RowCursor {
        try RowCursor(statement: statement, arguments: arguments)
    }

    /// All the rows of a prepared statement.
    public static func fetchAll(_ statement: Statement, arguments: StatementArguments? = nil) throws -> [Row] {
        try Array(fetchCursor(statement, arguments: arguments).map { $0.copy() })
    }

    /// The first row of a prepared statement, or nil.
    public static func fetchOne(_ statement: Statement, arguments: StatementArguments? = nil) throws -> Row? {
        let cursor = try fetchCursor(statement, arguments: arguments)
        // The cursor resets the statement when released: copy before that.
        return try withExtendedLifetime(cursor) { try cursor.next()?.copy() }
    }

    /// The distinct rows of a prepared statement.
    public static func fetchSet(_ statement: Statement, arguments: StatementArguments? = nil) throws -> Set<Row> {
        try Set(fetchCursor(statement, arguments: arguments).map { $0.copy() })
    }
}
