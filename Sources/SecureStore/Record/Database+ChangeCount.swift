extension Database {
    /// Runs `statement`, a change of `table`, and returns how many rows it
    /// changed, as GRDB counts them: for a view, the rows its INSTEAD OF
    /// triggers changed (`sqlite3_changes` counts none through a view);
    /// for a table, the rows of the statement itself (triggers and foreign
    /// key actions left out, and FTS5's extra counts with them).
    func changedRowCount(ofTable table: String, running statement: () throws -> Void) throws -> Int {
        guard try isCachedView(table) else {
            try statement()
            return changesCount
        }
        let before = totalChangesCount
        try statement()
        return totalChangesCount - before
    }

    /// True if `name` is a view, from the schema cache after the first ask.
    private func isCachedView(_ name: String) throws -> Bool {
        try validateSchemaCache()
        let key = name.lowercased()
        if let known = schemaCache.isView[key] { return known }
        let isView = try viewExists(name)
        schemaCache.isView[key] = isView
        return isView
    }
}
