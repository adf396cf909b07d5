extension Database {
    /// Runs `block` with another schema source in effect (nil: none), then
    /// puts the previous one back.
    ///
    /// Migrations run without a schema source, so that what a migration
    /// does never depends on code that may change after it shipped. One
    /// that needs a view's primary key says so:
    ///
    /// ```swift
    /// migrator.registerMigration("Zalora-v3") { db in
    ///     try db.withSchemaSource(ViewKeys()) {
    ///         let key = try db.primaryKey("playerName")
    ///         // ...
    ///     }
    /// }
    /// ```
    ///
    /// What the connection knew of the schema is forgotten on the way in
    /// and on the way out: primary keys read through one source are not
    /// answers under another.
    public func withSchemaSource<T>(
        _ schemaSource: (any DatabaseSchemaSource)?,
        execute block: () throws -> T
    ) rethrows -> T {
        let previous = self.schemaSource
        self.schemaSource = schemaSource
        clearSchemaCache()
        defer {
            self.schemaSource = previous
            clearSchemaCache()
        }
        return try block()
    }
}
