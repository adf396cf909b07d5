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
