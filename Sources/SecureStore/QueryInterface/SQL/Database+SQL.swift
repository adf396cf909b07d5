// Running SQL literals: `db.execute(literal: "... \(value)")`, where
// interpolated values become statement arguments and interpolated columns
// and tables are quoted.

extension Database {
    /// Prepares the statement of an SQL literal, with its arguments set when
    /// it has some.
    ///
    /// ```swift
    /// let statement = try db.makeStatement(literal: "SELECT * FROM player WHERE name = \(name)")
    /// ```
    public func makeStatement(literal sqlLiteral: SQL) throws -> Statement {
        let (sql, arguments) = try sqlLiteral.build(self)
        let statement = try makeStatement(sql: sql)
        // A literal without arguments leaves them to the fetch or execute
        // that follows (a `?` is then bound there), as in GRDB.
        if !arguments.isEmpty { try statement.setArguments(arguments) }
        return statement
    }

    /// The cached statement of an SQL literal, with its arguments set when
    /// it has some (see ``makeStatement(literal:)``).
    public func cachedStatement(literal sqlLiteral: SQL) throws -> Statement {
        let (sql, arguments) = try sqlLiteral.build(self)
        let statement = try cachedStatement(sql: sql)
        if !arguments.isEmpty { try statement.setArguments(arguments) }
        return statement
    }

    /// Runs the statements of an SQL literal.
    ///
    /// ```swift
    /// try db.execute(literal: "INSERT INTO player (name) VALUES (\(name))")
    /// ```
    public func execute(literal sqlLiteral: SQL) throws {
        let (sql, arguments) = try sqlLiteral.build(self)
        try execute(sql: sql, arguments: arguments)
    }

    /// The statements of an SQL literal that holds several.
    public func allStatements(literal sqlLiteral: SQL) throws -> SQLStatementCursor {
        let (sql, arguments) = try sqlLiteral.build(self)
        return try allStatements(sql: sql, arguments: arguments)
    }
}
