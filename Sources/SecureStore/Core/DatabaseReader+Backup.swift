extension DatabaseReader {
    /// Copies this database into `writer`, replacing its content; see
    /// ``Database/backup(to:pagesPerStep:progress:)``, and its rule: an
    /// encrypted database is only copied into a keyed (or in-memory)
    /// destination, never into a plaintext file.
    ///
    /// ```swift
    /// var config = Configuration()
    /// config.prepareDatabase { db in try db.usePassphrase(backupPassphrase) }
    /// let copy = try DatabaseQueue(path: "/backups/app.db", configuration: config)
    /// try dbPool.backup(to: copy)
    /// ```
    public func backup(to writer: some DatabaseWriter, pagesPerStep: CInt = -1,
                       progress: ((DatabaseBackupProgress) throws -> Void)? = nil) throws {
        try writer.barrierWriteWithoutTransaction { destination in
            try read { source in
                try source.backup(to: destination, pagesPerStep: pagesPerStep, progress: progress)
            }
        }
    }
}
