internal import CSQLCipher

extension SecretBytes: StatementBinding {
    /// Binds the bytes as a blob, as the key of `ATTACH DATABASE ... KEY ?`
    /// needs, without a copy in the statement's arguments. SQLite copies
    /// them into its own memory, which SQLCipher wipes when it frees it
    /// (always on SQLCipher 3; with ``Configuration/cipherMemorySecurity``
    /// on SQLCipher 4). No bytes bind an empty blob: `KEY ''` attaches a
    /// plaintext file.
    ///
    /// ```swift
    /// let attach = try db.makeStatement(sql: "ATTACH DATABASE ? AS other KEY ?")
    /// _ = path.bind(to: attach.sqliteStatement, at: 1)
    /// _ = passphrase.bind(to: attach.sqliteStatement, at: 2)
    /// try attach.execute()
    /// ```
    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        withUnsafeBytes { bytes in
            guard let address = bytes.baseAddress, !bytes.isEmpty else { return sqlite3_bind_zeroblob(sqliteStatement, index, 0) }
            return sqlite3_bind_blob(sqliteStatement, index, address, CInt(bytes.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        }
    }
}
