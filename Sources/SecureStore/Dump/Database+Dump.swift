/// Text dumps of query results, tables and whole databases, for tests,
/// debugging and `migrate-tool inspect --dump`. Each prints to standard
/// output unless given a stream.
///
/// ```swift
/// try dbQueue.read { db in
///     try db.dumpContent()   // the schema, then every table's rows
/// }
/// ```
extension Database {
    /// Prints the rows of every statement of `sql`.
    ///
    /// ```swift
    /// try db.dumpSQL("SELECT * FROM player ORDER BY id")
    /// // 1|Arthur|500
    /// // 2|Barbara|1000
    /// ```
    ///
    /// - parameters:
    ///   - sql: one or more statements; those without rows print nothing.
    ///   - format: how rows are printed (``DebugDumpFormat`` by default).
    ///   - stream: where the text goes; standard output when nil.
    public func dumpSQL(_ sql: SQL, format: some DumpFormat = .debug(), to stream: (any TextOutputStream)? = nil) throws {
        var output = DumpStream(stream)
        try dump(allStatements(literal: sql), format: format, to: &output)
    }

    /// Prints the rows of a request and, below them, each association it
    /// prefetches with `including(all:)`, under its name.
    ///
    /// - parameters:
    ///   - request: the request.
    ///   - format: how rows are printed (``DebugDumpFormat`` by default).
    ///   - stream: where the text goes; standard output when nil.
    public func dumpRequest(_ request: some FetchRequest, format: some DumpFormat = .debug(),
                            to stream: (any TextOutputStream)? = nil) throws {
        var output = DumpStream(stream)
        try dump(request, format: format, to: &output)
    }

    /// Prints the rows of tables and views: tables in primary key order,
    /// views in their own order, or a stable one.
    ///
    /// - parameters:
    ///   - tables: the names of tables and views.
    ///   - format: how rows are printed (``DebugDumpFormat`` by default).
    ///   - tableHeader: whether each name is printed above its rows (by
    ///     default when there are several).
    ///   - stableOrder: when true, the rows of views are sorted on all
    ///     their columns, so that the output is the same from run to run.
    ///   - stream: where the text goes; standard output when nil.
    public func dumpTables(_ tables: [String], format: some DumpFormat = .debug(),
                           tableHeader: DumpTableHeaderOptions = .automatic, stableOrder: Bool = false,
                           to stream: (any TextOutputStream)? = nil) throws {
        var output = DumpStream(stream)
        try dump(tables: tables, format: format, header: tableHeader == .always || tables.count > 1,
                 stableOrder: stableOrder, to: &output)
    }

    /// Prints the schema (``dumpSchema(to:)``), then the rows of every
    /// table, each under its name, in primary key order.
    ///
    /// - parameters:
    ///   - format: how rows are printed (``DebugDumpFormat`` by default).
    ///   - stream: where the text goes; standard output when nil.
    public func dumpContent(format: some DumpFormat = .debug(), to stream: (any TextOutputStream)? = nil) throws {
        var output = DumpStream(stream)
        let objects = try dumpedSchemaObjects()
        writeSchema(objects, to: &output)
        let tables = objects.filter { $0.type == "table" }.map(\.name)
        for table in tables {
            output.write("\n")
            output.writeLine(table)
            try dump(Table(table).orderByPrimaryKey(), format: format, to: &output)
        }
    }

    /// Prints the `CREATE` statements of the schema under `sqlite_master`:
    /// tables and views by name (case-insensitive), each table followed by
    /// its indexes and triggers. SQLite's own objects and the migration
    /// history table are left out.
    ///
    /// - parameter stream: where the text goes; standard output when nil.
    public func dumpSchema(to stream: (any TextOutputStream)? = nil) throws {
        var output = DumpStream(stream)
        writeSchema(try dumpedSchemaObjects(), to: &output)
    }

    // MARK: Steps

    private func dump(_ statements: some Cursor<Statement>, format: some DumpFormat, to output: inout DumpStream) throws {
        while let statement = try statements.next() {
            var rowFormat = format
            statement.reset()
            while try statement.step() {
                try rowFormat.writeRow(self, statement: statement, to: &output)
            }
            rowFormat.finalize(self, statement: statement, to: &output)
        }
    }

    private func dump(_ request: some FetchRequest, format: some DumpFormat, to output: inout DumpStream) throws {
        let prepared = try request.makePreparedRequest(self, forSingleResult: false)
        try dump(AnyCursor([prepared.statement]), format: format, to: &output)
        guard prepared.supplementaryFetch != nil else { return }
        // Fetching the rows runs the prefetches, which hand each
        // association's request to the observer first.
        var associations: [(QueryInterfaceRequest<Row>, [String])] = []
        let previous = prefetchObserver
        prefetchObserver = { request, keyPath in associations.append((request, keyPath)) }
        defer { prefetchObserver = previous }
        _ = try prepared.fetchAllRows(self)
        prefetchObserver = previous
        for (association, keyPath) in associations {
            output.write("\n")
            output.writeLine(keyPath.joined(separator: "."))
            try dump(association, format: format, to: &output)
        }
    }

    private func dump(tables: [String], format: some DumpFormat, header: Bool, stableOrder: Bool,
                      to output: inout DumpStream) throws {
        for (index, table) in tables.enumerated() {
            if index > 0 { output.write("\n") }
            if header { output.writeLine(table) }
            if try tableExists(table) {
                try dump(Table(table).orderByPrimaryKey(), format: format, to: &output)
            } else if stableOrder {
                try dump(Table(table).all().withStableOrder(), format: format, to: &output)
            } else {
                try dump(Table(table).all(), format: format, to: &output)
            }
        }
    }

    // MARK: Schema

    private struct SchemaObject {
        var type: String
        var name: String
        var tableName: String
        var sql: String
    }

    /// Tables and views by lowercased name, each table followed by its
    /// indexes and triggers.
    private func dumpedSchemaObjects() throws -> [SchemaObject] {
        let rows = try Row.fetchAll(self, sql: """
            SELECT type, name, tbl_name, sql FROM sqlite_master
            WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND tbl_name NOT IN (?, ?)
            """, arguments: [MigrationHistory.tableName, MigrationAuditLog.tableName])
        let shadowTables = try shadowTableNames()
        let objects = rows.map { SchemaObject(type: $0["type"], name: $0["name"], tableName: $0["tbl_name"], sql: $0["sql"]) }
            .filter { !shadowTables.contains($0.tableName.lowercased()) }
        let byName: (SchemaObject, SchemaObject) -> Bool = { ($0.name.lowercased(), $0.name) < ($1.name.lowercased(), $1.name) }
        let owners = objects.filter { $0.type == "table" || $0.type == "view" }.sorted(by: byName)
        let owned = Dictionary(grouping: objects.filter { $0.type == "index" || $0.type == "trigger" }) { $0.tableName.lowercased() }
        return owners.flatMap { owner in
            [owner] + (owned[owner.name.lowercased()] ?? []).sorted { ($0.type, $0.name.lowercased()) < ($1.type, $1.name.lowercased()) }
        }
    }

    /// The lowercased names of the tables a virtual table keeps its data in
    /// (FTS's `_content`, `_segments`...), which dumps leave out as GRDB
    /// does. `PRAGMA table_list` names them from SQLite 3.37; older SQLite
    /// cannot tell them apart, and dumps show them.
    private func shadowTableNames() throws -> Set<String> {
        guard Database.sqliteLibVersionNumber >= 3_037_000 else { return [] }
        let names = try String.fetchAll(self, sql: "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'shadow'")
        return Set(names.map { $0.lowercased() })
    }

    private func writeSchema(_ objects: [SchemaObject], to output: inout DumpStream) {
        output.writeLine("sqlite_master")
        for object in objects { output.writeLine(object.sql + ";") }
    }
}
