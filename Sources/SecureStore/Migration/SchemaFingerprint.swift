/// A hash of the database schema, to detect changes made outside migrations.
extension Database {
    /// SHA-256 of the normalized schema: every table, index, view and
    /// trigger (SQLite's internal objects and the migration bookkeeping
    /// tables left out), sorted, with white space runs folded to one space.
    ///
    /// Two databases with the same schema have the same fingerprint,
    /// whatever their data and however their SQL was indented.
    public func schemaFingerprint() throws -> String {
        let rows = try Row.fetchAll(self, sql: """
            SELECT type, name, tbl_name, sql FROM sqlite_master
            WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
              AND tbl_name NOT IN ('\(MigrationHistory.tableName)', '\(MigrationHistory.grdbTableName)')
            ORDER BY type, name
            """)
        let lines = rows.map { row -> String in
            let sql = (row["sql"] as String?).map(Self.foldWhiteSpace) ?? ""
            return [row["type"] as String, row["name"], row["tbl_name"], sql].joined(separator: "\u{1F}")
        }
        return SHA256Digest.hex(of: lines.joined(separator: "\n"))
    }

    private static func foldWhiteSpace(_ sql: String) -> String {
        sql.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}
