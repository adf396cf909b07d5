extension Database {
    /// Creates a table.
    ///
    /// ```swift
    /// try db.create(table: "brandRGDB") { t in
    ///     t.primaryKey("brandId", .text)
    ///     t.column("name", .text).notNull()
    /// }
    /// ```
    public func create(table name: String, options: TableOptions = [], body: (TableDefinition) throws -> Void) throws {
        let definition = TableDefinition(name: name, options: options)
        try body(definition)
        for statement in try definition.statements() { try execute(sql: statement) }
    }

    /// Creates a table (GRDB's older spelling of the options).
    public func create(table name: String, temporary: Bool = false, ifNotExists: Bool = false, withoutRowID: Bool = false,
                       body: (TableDefinition) throws -> Void) throws {
        var options: TableOptions = []
        if temporary { options.insert(.temporary) }
        if ifNotExists { options.insert(.ifNotExists) }
        if withoutRowID { options.insert(.withoutRowID) }
        try create(table: name, options: options, body: body)
    }

    /// Drops a table.
    public func drop(table name: String) throws {
        try execute(sql: "DROP TABLE \(name.quotedDatabaseIdentifier)")
    }

    /// Renames a table.
    public func rename(table name: String, to newName: String) throws {
        try execute(sql: "ALTER TABLE \(name.quotedDatabaseIdentifier) RENAME TO \(newName.quotedDatabaseIdentifier)")
    }

    /// Creates an index.
    public func create(index name: String, on table: String, columns: [String], unique: Bool = false,
                       ifNotExists: Bool = false, condition: (any SQLExpressible)? = nil) throws {
        var sql = "CREATE " + (unique ? "UNIQUE " : "") + "INDEX " + (ifNotExists ? "IF NOT EXISTS " : "")
        sql += name.quotedDatabaseIdentifier + " ON " + table.quotedDatabaseIdentifier + "(" + TableDefinition.list(columns) + ")"
        if let condition { sql += " WHERE " + (try SQLLiteral.inline(condition.sqlExpression)) }
        try execute(sql: sql)
    }

    /// Drops an index.
    public func drop(index name: String) throws {
        try execute(sql: "DROP INDEX \(name.quotedDatabaseIdentifier)")
    }
}
