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
    /// ```swift
    /// try dbQueue.vacuum(into: "/var/backups/app.sqlite")
    /// ```
    ///
    /// It needs SQLite 3.27: with SQLCipher 3.4.1 (SQLite 3.15.2) it throws
    /// an error that names the missing feature. The copy is created private
    /// (0600), and must not exist. On SQLCipher 4 the copy of an encrypted
    /// database is encrypted with the same key and settings; a copy that
    /// comes out in plaintext is removed, and this method throws.
    public func vacuum(into filePath: String) throws {
        try requireSQLite(3_027_000, feature: "VACUUM INTO")
        try PrivateFile.createEmpty(filePath)
        do {
            try execute(literal: "VACUUM INTO \(filePath)")
            if isKeyed, (try cipherSettings?.plaintextHeaderSize ?? 0) == 0, Database.hasPlaintextHeader(path: filePath) {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: """
                    VACUUM INTO wrote a plaintext copy of the encrypted database \(path): the copy was removed; \
                    use Cipher.backup(at:key:to:)
                    """)
            }
        } catch {
            PrivateFile.removeDatabaseFiles(filePath)
            throw error
        }
    }
}
