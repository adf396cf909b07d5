extension Database {
    /// Creates a table.
    ///
    /// ```swift
    /// try db.create(table: "player") { t in
    ///     t.autoIncrementedPrimaryKey("id")
    ///     t.column("name", .text).notNull()
    /// }
    /// // CREATE TABLE "player" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "name" TEXT NOT NULL)
    /// ```
    public func create(table name: String, options: TableOptions = [], body: (TableDefinition) throws -> Void) throws {
        let definition = TableDefinition(name: name, options: options)
        try body(definition)
        try execute(sql: try SQLTableGenerator(self, table: definition).sql())
    }

    /// Creates a table (GRDB's older spelling of the options).
    @_disfavoredOverload
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

    /// Creates a view from a request.
    ///
    /// ```swift
    /// try db.create(view: "bestPlayers", as: Player.order(Column("score").desc).limit(10))
    /// ```
    public func create(view name: String, options: ViewOptions = [], columns: [String]? = nil, as request: any SQLSubqueryable) throws {
        var literal: SQL = "CREATE "
        if options.contains(.temporary) { literal += "TEMPORARY " }
        literal += "VIEW "
        if options.contains(.ifNotExists) { literal += "IF NOT EXISTS " }
        literal += "\(identifier: name) "
        if let columns { literal += "(" + columns.map { "\(identifier: $0)" }.joined(separator: ", ") + ") " }
        literal += "AS \(request.sqlSubquery)"
        try execute(sql: try literal.sql(SQLGenerationContext(self, inlinesValues: true)))
    }

    /// Creates a view from an SQL literal.
    public func create(view name: String, options: ViewOptions = [], columns: [String]? = nil, asLiteral sqlLiteral: SQL) throws {
        try create(view: name, options: options, columns: columns, as: SQLRequest<Row>(literal: sqlLiteral))
    }

    /// Drops a view.
    public func drop(view name: String) throws {
        try execute(sql: "DROP VIEW \(name.quotedDatabaseIdentifier)")
    }

    /// Creates an index.
    public func create(index name: String, on table: String, columns: [String], options: IndexOptions = [],
                       condition: (any SQLExpressible)? = nil) throws {
        try execute(sql: try IndexDefinition(name: name, table: table, expressions: columns.map { .column($0) },
                                             options: options, condition: condition?.sqlExpression).sql(self))
    }

    /// Creates an index (GRDB's older spelling of the options).
    @_disfavoredOverload
    public func create(index name: String, on table: String, columns: [String], unique: Bool = false,
                       ifNotExists: Bool = false, condition: (any SQLExpressible)? = nil) throws {
        var options: IndexOptions = []
        if unique { options.insert(.unique) }
        if ifNotExists { options.insert(.ifNotExists) }
        try create(index: name, on: table, columns: columns, options: options, condition: condition)
    }

    /// Creates an index on expressions.
    public func create(index name: String, on table: String, expressions: [any SQLExpressible], options: IndexOptions = [],
                       condition: (any SQLExpressible)? = nil) throws {
        try execute(sql: try IndexDefinition(name: name, table: table, expressions: expressions.map(\.sqlExpression),
                                             options: options, condition: condition?.sqlExpression).sql(self))
    }

    /// Creates an index named `index_<table>_on_<columns>`.
    public func create(indexOn table: String, columns: [String], options: IndexOptions = [],
                       condition: (any SQLExpressible)? = nil) throws {
        try create(index: Database.defaultIndexName(on: table, columns: columns), on: table, columns: columns,
                   options: options, condition: condition)
    }

    /// Drops an index.
    public func drop(index name: String) throws {
        try execute(sql: "DROP INDEX \(name.quotedDatabaseIdentifier)")
    }

    /// Drops the one index on exactly these columns, if there is one.
    public func drop(indexOn table: String, columns: [String]) throws {
        let wanted = columns.map { $0.lowercased() }
        let matching = try indexes(on: table).filter { $0.columns.map { $0.lowercased() } == wanted }
        if matching.count == 1 { try drop(index: matching[0].name) }
    }

    /// `REINDEX collation`.
    public func reindex(collation: Database.CollationName) throws {
        try execute(sql: "REINDEX \(collation.rawValue)")
    }

    /// `REINDEX collation` of a custom collation.
    public func reindex(collation: DatabaseCollation) throws {
        try reindex(collation: Database.CollationName(rawValue: collation.name))
    }
}
