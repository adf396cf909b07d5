import Foundation
internal import CSQLCipher

// Keying, rekeying and the key check. Every sqlite3_key / sqlite3_rekey
// call of the library is in this file.
extension Database {
    /// The SQLCipher version, e.g. "3.4.1".
    public var cipherVersion: String {
        get throws {
            guard let version = try String.fetchOne(self, sql: "PRAGMA cipher_version") else {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "this SQLite library has no SQLCipher codec")
            }
            return version
        }
    }

    /// Gives the key of an encrypted database, as a passphrase. Call it in
    /// ``Configuration/prepareDatabase(_:)``. SQLCipher derives the key with
    /// PBKDF2, `kdf_iter` rounds.
    ///
    /// A new file gets an iteration count that meets current guidance when
    /// the configuration's ``CipherSettings`` name none (see
    /// ``CipherSettings/newFileDefaults``: 1,300,000 rounds of
    /// PBKDF2-HMAC-SHA1 on SQLCipher 3.4.x, about 0.6 s per open; SQLCipher
    /// 4's 256,000 of SHA-512 on 4.x); an existing file opens with the
    /// settings it was made with, found in turn. A ``DatabasePool`` derives
    /// once for all its connections. Servers that open often can give a
    /// raw key instead (``useRawKey(_:)-(SecretBytes)``), which skips the
    /// derivation.
    ///
    /// A passphrase of the form `x'<64 hex digits>'` is a raw key.
    public func usePassphrase(_ passphrase: String) throws {
        try usePassphrase(SecretBytes(passphrase.utf8))
    }

    /// Gives the key of an encrypted database, as passphrase bytes.
    public func usePassphrase(_ passphrase: Data) throws {
        try usePassphrase(SecretBytes(passphrase))
    }

    /// Gives the key of an encrypted database, as passphrase bytes kept in
    /// protected memory: SecureStore makes no other copy of them that
    /// outlives the call, nor of a key it derives from them.
    ///
    /// In a ``DatabasePool`` the passphrase is derived once per pool, with
    /// the KDF the connection really uses; the other connections are keyed
    /// with the derived raw key.
    public func usePassphrase(_ passphrase: SecretBytes) throws {
        guard !passphrase.isEmpty else { throw Database.emptyKeyError() }
        if !passphrase.isRawKeyText { prepareKeyDerivationOfNewFile() }
        guard let cache = configuration.keyCache else { return try applyKey(passphrase) }
        let settings = keyingSettings
        let parameters = cache.keyDerivation(configured: SQLCipherLibrary.line.keyDerivation(for: settings))
        lastPassphrase = passphrase
        if let keyAndSalt = cache.keyAndSalt(passphrase: passphrase, fileSalt: { fileSalt }, parameters: parameters,
                                             settings: settings) {
            try applyKey(try Database.rawKeyText(keyAndSalt))
            derivedKeyParameters = parameters
            return
        }
        // A new file has no salt yet, and a file with a plaintext header
        // keeps its salt elsewhere: SQLCipher derives this one.
        try applyKey(cache.effectivePassphrase(passphrase))
    }

    /// True when this connection was given a key derived by the pool with
    /// another KDF than the one `prepareDatabase` left it with (GRDB's way:
    /// `PRAGMA kdf_iter` or `cipher_compatibility` after `usePassphrase`):
    /// the key is wrong, and `prepareDatabase` must run again. The pool
    /// derives with the connection's KDF from then on.
    func derivedKeyMissesSettings() throws -> Bool {
        guard let used = derivedKeyParameters, let cache = configuration.keyCache else { return false }
        derivedKeyParameters = nil
        // Unless `prepareDatabase` assigned a cipher setting (before or
        // after the key), the connection has the settings the key was
        // derived for: no need to read them back (three PRAGMAs per pool
        // connection).
        guard authorizer.assignedCipherSetting, let settings = try cipherSettings else { return false }
        let effective = SQLCipherLibrary.line.keyDerivation(for: settings)
        guard effective != used else { return false }
        cache.observe(effective)
        return true
    }

    /// Gives a raw 256-bit key (32 bytes), which skips key derivation, or 48
    /// bytes: the key followed by the file's 16-byte salt.
    public func useRawKey(_ key: Data) throws {
        try useRawKey(SecretBytes(key))
    }

    /// Gives a raw key kept in protected memory (32 bytes, or 48: key and
    /// salt).
    public func useRawKey(_ key: SecretBytes) throws {
        try applyKey(try Database.rawKeyText(key))
    }

    /// sqlite3_key, then the cipher settings, which must follow the key.
    private func applyKey(_ key: SecretBytes) throws {
        try checkOpen()
        try checkNotGuardingMigration("sqlite3_key")
        let pragmas = try SQLCipherLibrary.line.pragmas(for: keyingSettings, schema: nil)
        let code = key.withUnsafeBytes { sqlite3_key(sqliteConnection, $0.baseAddress, CInt($0.count)) }
        guard code == SQLITE_OK else { throw DatabaseError(connection: sqliteConnection, code: code) }
        isKeyed = true
        for pragma in pragmas { try execute(sql: pragma) }
    }

    /// Re-encrypts the database with a new passphrase (`sqlite3_rekey`).
    /// The connection must be keyed: SQLCipher 3.4.1 silently does nothing
    /// on a plaintext file, so this throws instead.
    public func changePassphrase(_ passphrase: String) throws {
        try changePassphrase(SecretBytes(passphrase.utf8))
    }

    /// Re-encrypts the database with new passphrase bytes.
    public func changePassphrase(_ passphrase: Data) throws {
        try changePassphrase(SecretBytes(passphrase))
    }

    /// Re-encrypts the database with new passphrase bytes kept in protected
    /// memory.
    public func changePassphrase(_ passphrase: SecretBytes) throws {
        try checkOpen()
        try checkNotGuardingMigration("changePassphrase")
        guard !passphrase.isEmpty else { throw Database.emptyKeyError() }
        guard isKeyed else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "cannot change the key of an unencrypted database: \(path) was opened without a key; encrypt it first")
        }
        // sqlite3_rekey commits the transaction so far: the key may change
        // first thing in a transaction (GRDB's `write { db in try
        // db.changePassphrase(...) }`), not after changes, which it would
        // commit early, out of their transaction.
        guard !(isInsideTransaction && authorizer.transactionHasWrites) else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: """
                cannot change the key after changes in the same transaction: sqlite3_rekey would commit them early. \
                Change the key first in the transaction, or outside of one
                """)
        }
        let code = passphrase.withUnsafeBytes { sqlite3_rekey(sqliteConnection, $0.baseAddress, CInt($0.count)) }
        // Prepared statements stay valid across a rekey: the cache is kept.
        guard code == SQLITE_OK else { throw DatabaseError(connection: sqliteConnection, code: code) }
    }

    /// Re-encrypts the database with a new raw 32-byte key.
    public func changeRawKey(_ key: Data) throws {
        try changeRawKey(SecretBytes(key))
    }

    /// Re-encrypts the database with a new raw 32-byte key kept in
    /// protected memory.
    public func changeRawKey(_ key: SecretBytes) throws {
        try changePassphrase(try Database.rawKeyText(key))
    }

    /// `x'<hex>'`: SQLCipher's text form of a raw key, in protected memory.
    /// Raw bytes given to sqlite3_key would be taken as a passphrase.
    static func rawKeyText(_ key: SecretBytes) throws -> SecretBytes {
        guard key.count == 32 || key.count == 48 else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE,
                                message: "a raw key must be 32 bytes (or 48: key and salt), not \(key.count)")
        }
        let hexDigits: StaticString = "0123456789abcdef"
        return key.withUnsafeBytes { bytes in
            SecretBytes(capacity: bytes.count * 2 + 3) { text in
                text[0] = UInt8(ascii: "x")
                text[1] = UInt8(ascii: "'")
                for (offset, byte) in bytes.enumerated() {
                    text[2 + 2 * offset] = hexDigits.utf8Start[Int(byte >> 4)]
                    text[3 + 2 * offset] = hexDigits.utf8Start[Int(byte & 0x0F)]
                }
                text[text.count - 1] = UInt8(ascii: "'")
                return text.count
            }
        }
    }

    private static func emptyKeyError() -> DatabaseError {
        DatabaseError(resultCode: .SQLITE_MISUSE,
                      message: "empty key: SQLCipher would leave the database unencrypted")
    }

    // MARK: Legacy HMAC salt mask

    /// SQLCipher 3.4.1 keeps `cipher_hmac_salt_mask` in one variable for
    /// the whole process: while it is changed, every connection that
    /// derives its key gets a wrong one. Changes are serialized here, and
    /// the default (0x3a) is restored before the lock is released.
    private static let saltMaskLock = NSLock()

    /// Reads the file (so that SQLCipher derives the key) with another
    /// HMAC salt mask in effect: SQLCipher 2.0 beta files used 0x00. Open
    /// the connection with `checksKey: false`.
    package func verifyReadable(withHMACSaltMask mask: UInt8) throws {
        try Database.saltMaskLock.withLock {
            try execute(sql: "PRAGMA cipher_hmac_salt_mask = \"x'\(String(format: "%02x", mask))'\"")
            defer { try? execute(sql: "PRAGMA cipher_hmac_salt_mask = \"x'3a'\"") }
            do {
                try verifyReadable()
            } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
                throw unreadableFileError()
            }
        }
    }

    // MARK: The key check at open

    /// Reads the schema: the first read is where SQLCipher finds out that a
    /// key is wrong (sqlite3_key itself always succeeds).
    ///
    /// A file that holds bytes but not one whole page is not a database:
    /// SQLite would read it as empty, and the first write would replace
    /// what it holds. It is refused as unreadable, and left as it is.
    func verifyReadable() throws {
        // The size first: a file that another connection fills meanwhile
        // has whole pages by the time SQLite counts them.
        let size = path.isEmpty || path == ":memory:" ? 0 : PrivateFile.size(of: path) ?? 0
        _ = try Int.fetchOne(self, sql: "SELECT count(*) FROM sqlite_master")
        // 65,536 bytes hold a whole page of any page size: a file that
        // large needs no count (one statement less per open).
        guard size > 0, size < 65536, try Int.fetchOne(self, sql: "PRAGMA page_count") == 0 else { return }
        throw DatabaseError(resultCode: .SQLITE_NOTADB,
                            message: "\(path) holds \(size) bytes, less than a database page: it is not a database")
    }

    /// SQLCipher chooses a new file's random salt when it writes the first
    /// page. A connection keyed while the file is still empty picks a salt
    /// of its own, and cannot read the file once another connection has
    /// written it. Writing the first page at open, under the write lock,
    /// makes every later connection read the salt from the file.
    func writeFirstPageOfEmptyFile() throws {
        guard isKeyed, !configuration.readonly, !path.isEmpty, path != ":memory:" else { return }
        guard try Int.fetchOne(self, sql: "PRAGMA page_count") == 0 else { return }
        try execute(sql: "BEGIN IMMEDIATE TRANSACTION; COMMIT TRANSACTION")
    }

    /// SQLite's text for `SQLITE_NOTADB`.
    static let notADatabaseText = ResultCode.SQLITE_NOTADB.errorString ?? "file is encrypted or is not a database"
}
