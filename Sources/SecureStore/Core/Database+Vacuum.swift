extension Database {
    /// Rebuilds the database file, returning free pages to the file system
    /// (`VACUUM`). Outside of a transaction, and never inside a migration.
    ///
    /// ```swift
    /// try dbQueue.writeWithoutTransaction { db in try db.vacuum() }
    /// ```
    public func vacuum() throws {
        try execute(sql: "VACUUM")
    }

    /// A compacted copy of the database in a new file (`VACUUM INTO`).
    ///
    /// It needs SQLite 3.27: with SQLCipher 3.4.1 (SQLite 3.15.2) it throws
    /// an error that names the missing feature. An encrypted database is
    /// never copied this way (the copy's encryption would not be checked):
    /// use `Cipher.backup(at:key:to:)`.
    public func vacuum(into filePath: String) throws {
        try requireSQLite(3_027_000, feature: "VACUUM INTO")
        guard !isKeyed else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE,
                                message: "vacuum(into:) does not copy an encrypted database: use Cipher.backup(at:key:to:)")
        }
        try execute(literal: "VACUUM INTO \(filePath)")
    }
}
