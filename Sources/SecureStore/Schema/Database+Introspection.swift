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
}

extension String {
    /// The string as a quoted SQL identifier: `"name"`, with inner double
    /// quotes doubled.
    public var quotedDatabaseIdentifier: String {
        "\"" + replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
