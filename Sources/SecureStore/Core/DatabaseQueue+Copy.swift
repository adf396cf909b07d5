extension DatabaseQueue {
    /// A queue on an in-memory copy of the database at `path`, for tests
    /// and previews: what it changes never reaches the file.
    ///
    /// `configuration` opens the file (give it the key) and the copy (its
    /// functions, its `readonly`, which makes the copy refuse writes once
    /// filled). The copy is in memory, where SQLCipher does not encrypt:
    /// like any in-memory database, its pages are plaintext in the process's
    /// memory, and nothing of it is written to disk.
    ///
    /// ```swift
    /// var config = Configuration()
    /// config.prepareDatabase { db in try db.usePassphrase(passphrase) }
    /// let fixture = try DatabaseQueue.inMemoryCopy(fromPath: "fixtures/v1.sqlite", configuration: config)
    /// try migrator.migrate(fixture)   // the fixture file is unchanged
    /// ```
    public static func inMemoryCopy(fromPath path: String, configuration: Configuration = Configuration()) throws -> DatabaseQueue {
        try copy(fromPath: path, to: ":memory:", configuration: configuration)
    }

    /// A queue on a private, temporary on-disk copy of the database at
    /// `path` (SQLite's unnamed database, deleted when the queue closes),
    /// for copies too large for memory.
    ///
    /// `configuration` opens the file and the copy alike: with a key, the
    /// copy is encrypted with it; an encrypted file is never copied into a
    /// plaintext one (see ``Database/backup(to:pagesPerStep:progress:)``).
    ///
    /// ```swift
    /// let scratch = try DatabaseQueue.temporaryCopy(fromPath: "app.sqlite", configuration: config)
    /// ```
    public static func temporaryCopy(fromPath path: String, configuration: Configuration = Configuration()) throws -> DatabaseQueue {
        try copy(fromPath: path, to: "", configuration: configuration)
    }

    /// Opens `path` read-only, copies it into a new queue at `copyPath`
    /// (written first, then read-only if `configuration` says so).
    private static func copy(fromPath path: String, to copyPath: String, configuration: Configuration) throws -> DatabaseQueue {
        var sourceConfiguration = configuration
        sourceConfiguration.readonly = true
        let source = try DatabaseQueue(path: path, configuration: sourceConfiguration)
        defer { try? source.close() }
        var copyConfiguration = configuration
        copyConfiguration.readonly = false
        let copy = try DatabaseQueue(path: copyPath, configuration: copyConfiguration)
        try source.backup(to: copy)
        // SQLite's read-only flag does nothing for these databases, and the
        // copy had to be written: writes are refused from here on instead.
        if configuration.readonly { try copy.inDatabase { try $0.beginReadOnly() } }
        return copy
    }
}
