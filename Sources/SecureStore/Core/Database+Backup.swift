internal import CSQLCipher

extension Database {
    /// Copies this database into `destination`, replacing its content, with
    /// SQLite's online backup API.
    ///
    /// ```swift
    /// try dbQueue.inDatabase { source in
    ///     try otherQueue.writeWithoutTransaction { destination in
    ///         try source.backup(to: destination)
    ///     }
    /// }
    /// ```
    ///
    /// With SQLCipher the backup API writes each page through the
    /// destination's own key: a keyed destination gets an encrypted copy
    /// (with its key, which may differ from the source's), an unkeyed one a
    /// **plaintext** copy. So the backup of an encrypted database into an
    /// unencrypted file is refused with `SQLITE_MISUSE`, before anything is
    /// written: use `Cipher.decrypt(at:key:to:)` to export plaintext on
    /// purpose. An in-memory destination is allowed: nothing reaches a disk.
    ///
    /// - parameters:
    ///   - destination: the connection that receives the copy; keyed, or
    ///     in memory, when the source is encrypted.
    ///   - pagesPerStep: the pages copied per step; -1 copies all at once.
    ///   - progress: called after each step; an error it throws stops the
    ///     backup (the destination keeps what it had).
    public func backup(to destination: Database, pagesPerStep: CInt = -1,
                       progress: ((DatabaseBackupProgress) throws -> Void)? = nil) throws {
        if isKeyed, !destination.isKeyed, !destination.isInMemory {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: """
                backup(to:) would write a plaintext copy of the encrypted database \(path) into \(destination.path): \
                give the destination a key (usePassphrase in its Configuration.prepareDatabase), or export plaintext \
                on purpose with Cipher.decrypt(at:key:to:)
                """)
        }
        guard let backup = sqlite3_backup_init(destination.sqliteConnection, "main", sqliteConnection, "main") else {
            throw DatabaseError(resultCode: destination.lastErrorCode, message: destination.lastErrorMessage)
        }
        var finished = false
        defer { if !finished { sqlite3_backup_finish(backup) } }
        while true {
            let code = sqlite3_backup_step(backup, pagesPerStep)
            if code == SQLITE_READONLY, destination.isInMemory {
                // SQLite's message is "not an error" here.
                throw DatabaseError(resultCode: .SQLITE_READONLY, message: """
                    backup(to:) cannot copy \(path) into the in-memory database \(destination.path): its page size \
                    or reserved bytes differ from the source's (an encrypted page keeps room for SQLCipher's HMAC), \
                    and SQLite changes them only in an empty database: copy into an empty one
                    """)
            }
            guard code == SQLITE_OK || code == SQLITE_DONE else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: destination.lastErrorMessage)
            }
            let step = DatabaseBackupProgress(remainingPageCount: Int(sqlite3_backup_remaining(backup)),
                                              totalPageCount: Int(sqlite3_backup_pagecount(backup)),
                                              isCompleted: code == SQLITE_DONE)
            if step.isCompleted {
                // Done: a progress error can no longer stop anything.
                try? progress?(step)
                break
            }
            try progress?(step)
        }
        finished = true
        let code = sqlite3_backup_finish(backup)
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: destination.lastErrorMessage)
        }
        destination.clearSchemaCache()
    }

    /// True for `:memory:` databases and named in-memory ones
    /// (`file:name?mode=memory`). Not for the unnamed one (path ""): SQLite
    /// keeps that one in a temporary file once it outgrows its cache.
    var isInMemory: Bool {
        path == ":memory:" || (path.hasPrefix("file:") && path.contains("mode=memory"))
    }
}
