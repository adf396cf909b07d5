extension Database {
    /// True if a table (or view) with this name exists, ignoring case.
    ///
    /// ```swift
    /// if try db.tableExists("player") { ... }
    /// ```
    public func tableExists(_ name: String, in schemaName: String? = nil) throws -> Bool {
        let master = schemaName.map { "\($0.quotedDatabaseIdentifier).sqlite_master" } ?? "sqlite_master"
        return try Bool.fetchOne(
            self,
            sql: "SELECT EXISTS (SELECT 1 FROM \(master) WHERE type IN ('table', 'view') AND name = ? COLLATE NOCASE)",
            arguments: [name]) ?? false
    }

    /// A column, as `PRAGMA table_info` describes it.
    public struct ColumnInfo: Sendable, Hashable {
        public var name: String
        /// The declared type, e.g. "TEXT"; empty when none was declared.
        public var type: String
        public var isNotNull: Bool
        /// The default value's SQL, if any.
        public var defaultValueSQL: String?
        /// 1-based position in the primary key, 0 when not part of it.
        public var primaryKeyIndex: Int
    }

    /// The columns of a table, in order. A missing table is an error.
    public func columns(in table: String) throws -> [ColumnInfo] {
        try validateSchemaCache()
        let key = table.lowercased()
        if let columns = schemaCache.columns[key] { return columns }
        let columns = try uncachedColumns(in: table)
        schemaCache.columns[key] = columns
        return columns
    }

    private func uncachedColumns(in table: String) throws -> [ColumnInfo] {
        let rows = try Row.fetchAll(self, sql: "PRAGMA table_info(\(table.quotedDatabaseIdentifier))")
        guard !rows.isEmpty else {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "no such table: \(table)")
        }
        return rows.map { row in
            ColumnInfo(name: row["name"], type: row["type"] ?? "", isNotNull: row["notnull"],
                       defaultValueSQL: row["dflt_value"], primaryKeyIndex: row["pk"])
        }
    }

    /// A table's primary key.
    public struct PrimaryKeyInfo: Sendable, Hashable {
        /// The columns, in key order; `["rowid"]` for a table without a
        /// declared primary key.
        public var columns: [String]
        /// The column that is the rowid (an INTEGER PRIMARY KEY), if any.
        public var rowIDColumn: String?
    }

    /// The primary key of a table.
    public func primaryKey(_ table: String) throws -> PrimaryKeyInfo {
        try validateSchemaCache()
        let key = table.lowercased()
        if let primaryKey = schemaCache.primaryKeys[key] { return primaryKey }
        let primaryKey = try uncachedPrimaryKey(table)
        schemaCache.primaryKeys[key] = primaryKey
        return primaryKey
    }

    private func uncachedPrimaryKey(_ table: String) throws -> PrimaryKeyInfo {
        let keyColumns = try columns(in: table).filter { $0.primaryKeyIndex > 0 }.sorted { $0.primaryKeyIndex < $1.primaryKeyIndex }
        guard !keyColumns.isEmpty else { return PrimaryKeyInfo(columns: ["rowid"], rowIDColumn: "rowid") }
        let isRowID = keyColumns.count == 1 && keyColumns[0].type.uppercased() == "INTEGER"
        return PrimaryKeyInfo(columns: keyColumns.map(\.name), rowIDColumn: isRowID ? keyColumns[0].name : nil)
    }

    /// The schema version (changes with every schema change).
    public func schemaVersion() throws -> Int32 {
        Int32(try Int.fetchOne(self, sql: "PRAGMA schema_version") ?? 0)
    }
}

extension String {
    /// The string as a quoted SQL identifier: `"name"`, with inner double
    /// quotes doubled.
    public var quotedDatabaseIdentifier: String {
        "\"" + replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

extension Database {
    /// An index, as `PRAGMA index_list` and `index_info` describe it.
    public struct IndexInfo: Sendable, Hashable {
        public var name: String
        public var columns: [String]
        public var isUnique: Bool
        /// "c" (CREATE INDEX), "u" (UNIQUE constraint) or "pk".
        public var origin: String
    }

    /// The indexes of a table, automatic ones included.
    public func indexes(on table: String) throws -> [IndexInfo] {
        try Row.fetchAll(self, sql: "PRAGMA index_list(\(table.quotedDatabaseIdentifier))").map { row in
            let name: String = row["name"]
            let columns = try Row.fetchAll(self, sql: "PRAGMA index_info(\(name.quotedDatabaseIdentifier))")
                .sorted { ($0["seqno"] as Int) < ($1["seqno"] as Int) }
                .map { $0["name"] as String? ?? "" }
            return IndexInfo(name: name, columns: columns, isUnique: row["unique"], origin: row["origin"] ?? "c")
        }.sorted { $0.name < $1.name }
    }

    /// A foreign key of a table.
    public struct ForeignKeyInfo: Sendable, Hashable {
        public var destinationTable: String
        /// (origin column, destination column) pairs; the destination is
        /// nil when the key refers to the destination's primary key.
        public var mapping: [(origin: String, destination: String?)]
        public var onDelete: String
        public var onUpdate: String

        public static func == (lhs: ForeignKeyInfo, rhs: ForeignKeyInfo) -> Bool {
            lhs.destinationTable == rhs.destinationTable && lhs.onDelete == rhs.onDelete && lhs.onUpdate == rhs.onUpdate
                && lhs.mapping.map(\.origin) == rhs.mapping.map(\.origin) && lhs.mapping.map(\.destination) == rhs.mapping.map(\.destination)
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(destinationTable)
            hasher.combine(mapping.map(\.origin))
        }
    }

    /// The foreign keys of a table.
    public func foreignKeys(on table: String) throws -> [ForeignKeyInfo] {
        let rows = try Row.fetchAll(self, sql: "PRAGMA foreign_key_list(\(table.quotedDatabaseIdentifier))")
        let grouped = Dictionary(grouping: rows) { $0["id"] as Int }
        return grouped.keys.sorted().compactMap { id in
            guard let parts = grouped[id]?.sorted(by: { ($0["seq"] as Int) < ($1["seq"] as Int) }), let first = parts.first else { return nil }
            return ForeignKeyInfo(destinationTable: first["table"],
                                  mapping: parts.map { ($0["from"] as String, $0["to"] as String?) },
                                  onDelete: first["on_delete"], onUpdate: first["on_update"])
        }
    }

    /// Throws if a row breaks a foreign key, naming the table and rowid.
    public func checkForeignKeys() throws {
        if let violation = try Row.fetchOne(self, sql: "PRAGMA foreign_key_check") {
            let rowid: Int64? = violation[1]
            throw DatabaseError(
                resultCode: .SQLITE_CONSTRAINT_FOREIGNKEY,
                message: "FOREIGN KEY constraint violation: table \(violation[0] as String)\(rowid.map { " (rowid \($0))" } ?? "") references a missing row of \(violation[2] as String)")
        }
    }
}
