// Fetching values of the first column: `Int.fetchOne(db, sql: ...)`.
//
// Two sets of methods: the general one decodes through DatabaseValue, the
// other reads columns directly for StatementColumnConvertible types. Swift
// picks the more specific one.

extension DatabaseValueConvertible {
    /// A cursor of the values of the first column. NULL or a value that does
    /// not convert is an error: fetch an Optional type to accept NULL.
    ///
    /// ```swift
    /// let names = try String.fetchCursor(db, sql: "SELECT name FROM player")
    /// ```
    public static func fetchCursor(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> DatabaseValueCursor<Self> {
        try DatabaseValueCursor(statement: db.makeStatement(sql: sql), arguments: arguments)
    }

    /// All the values of the first column.
    public static func fetchAll(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> [Self] {
        try fetchAll(db.cachedStatementForFetch(sql: sql), arguments: arguments)
    }

    /// The value of the first column of the first row, or nil when there is
    /// no row or the value is NULL.
    public static func fetchOne(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> Self? {
        try fetchOne(db.cachedStatementForFetch(sql: sql), arguments: arguments)
    }

    public static func fetchCursor(_ statement: Statement, arguments: StatementArguments? = nil) throws -> DatabaseValueCursor<Self> {
        try DatabaseValueCursor(statement: statement, arguments: arguments)
    }

    public static func fetchAll(_ statement: Statement, arguments: StatementArguments? = nil) throws -> [Self] {
        try Array(fetchCursor(statement, arguments: arguments))
    }

    public static func fetchOne(_ statement: Statement, arguments: StatementArguments? = nil) throws -> Self? {
        let cursor = try DatabaseValueCursor<Self?>(statement: statement, arguments: arguments)
        return try cursor.next() ?? nil
    }
}

extension DatabaseValueConvertible where Self: Hashable {
    /// The distinct values of the first column.
    public static func fetchSet(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> Set<Self> {
        try Set(fetchCursor(db, sql: sql, arguments: arguments))
    }
}

extension DatabaseValueConvertible where Self: StatementColumnConvertible {
    public static func fetchCursor(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> FastDatabaseValueCursor<Self> {
        try FastDatabaseValueCursor(statement: db.makeStatement(sql: sql), arguments: arguments)
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

    public static func fetchCursor(_ statement: Statement, arguments: StatementArguments? = nil) throws -> FastDatabaseValueCursor<Self> {
        try FastDatabaseValueCursor(statement: statement, arguments: arguments)
    }

    public static func fetchAll(_ statement: Statement, arguments: StatementArguments? = nil) throws -> [Self] {
        try Array(fetchCursor(statement, arguments: arguments))
    }

    public static func fetchOne(_ statement: Statement, arguments: StatementArguments? = nil) throws -> Self? {
        let cursor = try FastDatabaseValueCursor<Self?>(statement: statement, arguments: arguments)
        return try cursor.next() ?? nil
    }
}

extension DatabaseValueConvertible where Self: StatementColumnConvertible & Hashable {
    public static func fetchSet(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> Set<Self> {
        try Set(fetchCursor(db, sql: sql, arguments: arguments))
    }
}
