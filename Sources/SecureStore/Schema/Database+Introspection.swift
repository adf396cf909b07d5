// Reading the schema: tables, views and triggers, columns, primary keys,
// indexes, foreign keys. Without a schema name, a table is looked up as
// SQLite resolves unqualified names: temp, then main, then attached
// databases.

extension Database {
    /// True if a table with this name exists, ignoring case. Views are not
    /// tables: see ``viewExists(_:in:)``.
    ///
    /// ```swift
    /// if try db.tableExists("player") { ... }
    /// ```
    public func tableExists(_ name: String, in schemaName: String? = nil) throws -> Bool {
        try schemaObjectExists(type: "table", name: name, in: schemaName)
    }

    /// True if a view with this name exists, ignoring case.
    public func viewExists(_ name: String, in schemaName: String? = nil) throws -> Bool {
        try schemaObjectExists(type: "view", name: name, in: schemaName)
    }

    /// True if a trigger with this name exists, ignoring case.
    public func triggerExists(_ name: String, in schemaName: String? = nil) throws -> Bool {
        try schemaObjectExists(type: "trigger", name: name, in: schemaName)
    }

    /// True for the tables of SQLite itself (`sqlite_master`...).
    public static func isSQLiteInternalTable(_ tableName: String) -> Bool {
        tableName.starts(with: "sqlite_") || tableName.starts(with: "pragma_")
    }

    /// True for the tables of GRDB and SecureStore (`grdb_migrations`).
    public static func isGRDBInternalTable(_ tableName: String) -> Bool {
        tableName.starts(with: "grdb_")
    }

    /// The name of a table as the schema spells it, or nil when there is no
    /// such table (views are not tables).
    func canonicalTableName(_ table: String) throws -> String? {
        for schema in try schemaNames() {
            if let name = try String.fetchOne(
                self, sql: "SELECT name FROM \(masterTable(schema)) WHERE type = 'table' AND name = ? COLLATE NOCASE",
                arguments: [table]) {
                return name
            }
        }
        return nil
    }

    /// The schemas to search for an unqualified name, in SQLite's order.
    func schemaNames() throws -> [String] {
        let attached = try Row.fetchAll(self, sql: "PRAGMA database_list").map { $0["name"] as String }
            .filter { $0 != "main" && $0 != "temp" }
        return ["temp", "main"] + attached
    }

    /// The schema named `schemaName`, as SQLite spells it; an error for an
    /// unknown schema.
    private func checkedSchemaName(_ schemaName: String) throws -> String {
        // Names no attached database can take.
        switch schemaName.lowercased() {
        case "main": return "main"
        case "temp": return "temp"
        default: break
        }
        guard let name = try schemaNames().first(where: { $0.lowercased() == schemaName.lowercased() }) else {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "no such schema: \(schemaName)")
        }
        return name
    }

    func masterTable(_ schemaName: String) -> String {
        schemaName == "temp" ? "sqlite_temp_master" : "\(schemaName.quotedDatabaseIdentifier).sqlite_master"
    }

    private func schemaObjectExists(type: String, name: String, in schemaName: String?) throws -> Bool {
        let schemas = try schemaName.map { [try checkedSchemaName($0)] } ?? schemaNames()
        return try schemas.contains { schema in
            try Bool.fetchOne(
                self, sql: "SELECT EXISTS (SELECT 1 FROM \(masterTable(schema)) WHERE type = ? AND name = ? COLLATE NOCASE)",
                arguments: [type, name]) ?? false
        }
    }

    /// The schema of a table or view: the given one, or the first that has
    /// it; an error names a missing table.
    private func schema(of table: String, in schemaName: String?) throws -> String {
        try locate(table, in: schemaName).schema
    }

    /// The schema of a table or view, as ``schema(of:in:)`` finds it, and
    /// whether it is a table (a schema has at most one table or view of a
    /// name).
    ///
    /// Without a schema name, one query looks in temp, then main, and the
    /// attached databases are listed only when neither has the table:
    /// each query costs its preparation, about 150,000 instructions, at
    /// the first use of a table on each connection. (Finding a table of
    /// main took seven queries; a primary key now takes three statements,
    /// where it took eighteen.)
    private func locate(_ table: String, in schemaName: String?) throws -> (schema: String, isTable: Bool) {
        let filter = "type IN ('table', 'view') AND name = ?1 COLLATE NOCASE"
        /// The table's type in one schema, or nil.
        func type(in schema: String) throws -> String? {
            try String.fetchOne(self, sql: "SELECT type FROM \(masterTable(schema)) WHERE \(filter)", arguments: [table])
        }
        if let schemaName {
            let schema = try checkedSchemaName(schemaName)
            if let type = try type(in: schema) { return (schema, type == "table") }
        } else {
            // Two scalar subqueries: a `UNION ALL` sorted to put temp
            // first took SQLite's mutexes more often (the instruction
            // gate's W5: 0.12 -> 0.22 lock calls per author).
            let sql = """
                SELECT (SELECT type FROM sqlite_temp_master WHERE \(filter)), \
                (SELECT type FROM main.sqlite_master WHERE \(filter))
                """
            if let row = try Row.fetchOne(self, sql: sql, arguments: [table]) {
                if let type = row[0] as String? { return ("temp", type == "table") }
                if let type = row[1] as String? { return ("main", type == "table") }
            }
            for schema in try schemaNames().dropFirst(2) {
                if let type = try type(in: schema) { return (schema, type == "table") }
            }
        }
        throw DatabaseError(resultCode: .SQLITE_ERROR, message: "no such table: \(table)")
    }

    /// The key of a table's entries in the schema cache.
    private func schemaCacheKey(_ table: String, in schemaName: String?) -> String {
        "\(schemaName?.lowercased() ?? "")\u{0}\(table.lowercased())"
    }

    // MARK: Columns

    /// The columns of a table or view, in order. A missing table is an
    /// error.
    public func columns(in table: String, in schemaName: String? = nil) throws -> [ColumnInfo] {
        try validateSchemaCache()
        let cacheKey = schemaCacheKey(table, in: schemaName)
        if let columns = schemaCache.columns[cacheKey] { return columns }
        return try fetchColumns(in: table, schema: self.schema(of: table, in: schemaName), cacheKey: cacheKey)
    }

    /// The columns of a table or view of a schema known to have it, kept
    /// in the schema cache under `cacheKey`.
    private func fetchColumns(in table: String, schema: String, cacheKey: String) throws -> [ColumnInfo] {
        let columns = try ColumnInfo.fetchAll(self, sql: "PRAGMA \(schema.quotedDatabaseIdentifier).table_info(\(table.quotedDatabaseIdentifier))")
        schemaCache.columns[cacheKey] = columns
        return columns
    }

    // MARK: Primary key

    /// The primary key of a table.
    public func primaryKey(_ table: String, in schemaName: String? = nil) throws -> PrimaryKeyInfo {
        try validateSchemaCache()
        let cacheKey = schemaCacheKey(table, in: schemaName)
        if let primaryKey = schemaCache.primaryKeys[cacheKey] { return primaryKey }
        let (schema, isTable) = try locate(table, in: schemaName)
        guard isTable else {
            let primaryKey = try viewPrimaryKey(table, schema: schema)
            schemaCache.primaryKeys[cacheKey] = primaryKey
            return primaryKey
        }
        let columns = try schemaCache.columns[cacheKey] ?? fetchColumns(in: table, schema: schema, cacheKey: cacheKey)
        let keyColumns = columns.filter { $0.primaryKeyIndex > 0 }.sorted { $0.primaryKeyIndex < $1.primaryKeyIndex }
        let primaryKey: PrimaryKeyInfo
        if keyColumns.isEmpty {
            primaryKey = .hiddenRowID
        } else {
            let hasRowID = try tableHasRowID(table, in: schemaName)
            // As SQLite does, an INTEGER PRIMARY KEY is an alias of the rowid.
            primaryKey = hasRowID && keyColumns.count == 1 && keyColumns[0].type.uppercased() == "INTEGER"
                ? .rowID(keyColumns[0])
                : .regular(keyColumns, tableHasRowID: hasRowID)
        }
        schemaCache.primaryKeys[cacheKey] = primaryKey
        return primaryKey
    }

    /// The primary key the schema source in effect gives a view of
    /// `schema`; views have none otherwise.
    private func viewPrimaryKey(_ view: String, schema: String) throws -> PrimaryKeyInfo {
        let schemaID: DatabaseSchemaID = switch schema.lowercased() {
        case "main": .main
        case "temp": .temp
        default: .attached(schema)
        }
        // No source, a source that does not know the view, or one that
        // says it has no key (an empty list).
        guard let names = try schemaSource?.columnsForPrimaryKey(self, inView: DatabaseObjectID(name: view, schemaID: schemaID)),
              !names.isEmpty
        else {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "database view \(view) has no primary key")
        }
        let columns = try self.columns(in: view, in: schema)
        let keyColumns = try names.map { name in
            guard let column = columns.first(where: { $0.name.lowercased() == name.lowercased() }) else {
                throw DatabaseError(resultCode: .SQLITE_ERROR, message: "the schema source gives view \(view) a primary key column \(name) it does not have")
            }
            return column
        }
        return .regular(keyColumns, tableHasRowID: false)
    }

    /// False for WITHOUT ROWID tables: selecting their rowid does not compile.
    private func tableHasRowID(_ table: String, in schemaName: String?) throws -> Bool {
        let qualified = (schemaName.map { $0.quotedDatabaseIdentifier + "." } ?? "") + table.quotedDatabaseIdentifier
        do {
            _ = try makeStatement(sql: "SELECT rowid FROM \(qualified)")
            return true
        } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR {
            return false
        }
    }

    /// The schema version (changes with every schema change).
    public func schemaVersion() throws -> Int32 {
        Int32(try Int.fetchOne(self, sql: "PRAGMA schema_version") ?? 0)
    }

    /// Forgets what the connection knows of the schema.
    public func clearSchemaCache() {
        schemaCache.clear()
    }

    // MARK: Indexes

    /// The indexes of a table, automatic ones included, sorted by name.
    /// Indexes on expressions are left out.
    public func indexes(on table: String, in schemaName: String? = nil) throws -> [IndexInfo] {
        let schema = try self.schema(of: table, in: schemaName).quotedDatabaseIdentifier
        return try Row.fetchAll(self, sql: "PRAGMA \(schema).index_list(\(table.quotedDatabaseIdentifier))").compactMap { row in
            let name: String = row["name"]
            var columns: [String] = []
            let parts = try Row.fetchAll(self, sql: "PRAGMA \(schema).index_info(\(name.quotedDatabaseIdentifier))")
            for part in parts.sorted(by: { ($0["seqno"] as Int) < ($1["seqno"] as Int) }) {
                guard let column = part["name"] as String? else { return nil }  // an expression
                columns.append(column)
            }
            return IndexInfo(name: name, columns: columns, isUnique: row["unique"], origin: row["origin"] ?? .createIndex)
        }.sorted { $0.name < $1.name }
    }

    // MARK: Foreign keys

    /// The foreign keys of a table. Destination columns the schema leaves
    /// implicit are the destination's primary key.
    public func foreignKeys(on table: String, in schemaName: String? = nil) throws -> [ForeignKeyInfo] {
        let schema = try self.schema(of: table, in: schemaName).quotedDatabaseIdentifier
        let rows = try Row.fetchAll(self, sql: "PRAGMA \(schema).foreign_key_list(\(table.quotedDatabaseIdentifier))")
        let grouped = Dictionary(grouping: rows) { $0["id"] as Int }
        return try grouped.keys.sorted().compactMap { id in
            guard let parts = grouped[id]?.sorted(by: { ($0["seq"] as Int) < ($1["seq"] as Int) }), let first = parts.first else { return nil }
            let destination: String = first["table"]
            var implicitColumns: [String]?
            var mapping: [(origin: String, destination: String)] = []
            for (index, part) in parts.enumerated() {
                if let column = part["to"] as String? {
                    mapping.append((part["from"], column))
                } else {
                    if implicitColumns == nil { implicitColumns = try primaryKey(destination, in: schemaName).columns }
                    let columns = implicitColumns ?? []
                    mapping.append((part["from"], index < columns.count ? columns[index] : Column.rowID.name))
                }
            }
            return ForeignKeyInfo(id: id, destinationTable: destination, mapping: mapping,
                                  onDelete: first["on_delete"], onUpdate: first["on_update"])
        }
    }

    /// The rows that break a foreign key, in the whole database.
    public func foreignKeyViolations() throws -> RecordCursor<ForeignKeyViolation> {
        try ForeignKeyViolation.fetchCursor(self, sql: "PRAGMA foreign_key_check")
    }

    /// The rows of a table that break one of its foreign keys.
    public func foreignKeyViolations(in table: String, in schemaName: String? = nil) throws -> RecordCursor<ForeignKeyViolation> {
        let schema = try self.schema(of: table, in: schemaName).quotedDatabaseIdentifier
        return try ForeignKeyViolation.fetchCursor(self, sql: "PRAGMA \(schema).foreign_key_check(\(table.quotedDatabaseIdentifier))")
    }

    /// Throws an `SQLITE_CONSTRAINT_FOREIGNKEY` error for the first row
    /// that breaks a foreign key, naming its table, foreign key and values.
    public func checkForeignKeys() throws {
        if let violation = try foreignKeyViolations().next() { throw violation.databaseError(self) }
    }

    /// Throws for the first row of a table that breaks a foreign key.
    public func checkForeignKeys(in table: String, in schemaName: String? = nil) throws {
        if let violation = try foreignKeyViolations(in: table, in: schemaName).next() { throw violation.databaseError(self) }
    }
}

extension String {
    /// The string as a quoted SQL identifier: `"name"`, with inner double
    /// quotes doubled.
    public var quotedDatabaseIdentifier: String {
        "\"" + replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// `count` SQL parameter placeholders separated by commas, for statements
/// written by hand:
///
/// ```swift
/// let ids = [1, 2, 3]
/// let sql = "SELECT * FROM player WHERE id IN (\(databaseQuestionMarks(count: ids.count)))"
/// let players = try Player.fetchAll(db, sql: sql, arguments: StatementArguments(ids))
/// ```
public func databaseQuestionMarks(count: Int) -> String {
    Array(repeating: "?", count: count).joined(separator: ",")
}
