import Foundation

/// File-level encryption operations: encrypt, decrypt, rekey, back up,
/// upgrade and verify database files.
///
/// Every operation that writes a file writes a temporary file beside the
/// target, fsyncs it, verifies it (it opens with its key; schema, row counts
/// and `user_version` match the source), and only then renames it into
/// place: a crash leaves either the old file or the new one, never a mix.
///
/// ```swift
/// try Cipher.encrypt(plaintextAt: "app.sqlite", to: "app.sqlite", key: CipherKey(passphrase: "secret"))
/// try Cipher.rekey(at: "app.sqlite", from: CipherKey(passphrase: "secret"), to: CipherKey(passphrase: "new"))
/// let report = try Cipher.verify(at: "app.sqlite", key: CipherKey(passphrase: "new"))
/// ```
///
/// SQLite's backup API is never used: with SQLCipher it writes a plaintext
/// copy of a keyed database into an unkeyed file.
///
/// An operation that replaces a file never does it under a connection:
/// while a queue or pool of this process, or another process, has the
/// file open, it throws ``ResultCode/SECURESTORE_BUSY_IN_USE`` and changes
/// nothing (see ``ReplaceOptions``). It replaces the file a symbolic link
/// names, not the link.
///
/// ## Topics
///
/// ### Replacing a file
///
/// - ``encrypt(plaintextAt:to:key:replacing:progress:)``
/// - ``rekey(at:from:to:replacing:progress:)``
/// - ``upgrade(at:key:newSettings:replacing:progress:)``
/// - ``ReplaceOptions``
///
/// ### Copying a file
///
/// - ``decrypt(at:key:to:progress:)``
/// - ``backup(at:key:to:progress:)``
/// - ``ExportSummary``
/// - ``Progress``
public enum Cipher {
    /// What an export copied, as verified in the new file.
    public struct ExportSummary: Sendable, Hashable {
        /// Row counts by table, migration history included.
        public var rowCounts: [String: Int]
        /// `PRAGMA user_version` of the file.
        public var userVersion: Int
        /// The cipher settings the new file was written with, every one
        /// given; nil for a plaintext file.
        public var cipherSettings: CipherSettings?

        /// The summary of a file, with the settings of a new one.
        public init(rowCounts: [String: Int], userVersion: Int, cipherSettings: CipherSettings? = nil) {
            self.rowCounts = rowCounts
            self.userVersion = userVersion
            self.cipherSettings = cipherSettings
        }
    }

    /// Reports the fraction written (0...1) while a file is exported.
    public typealias Progress = @Sendable (Double) -> Void

    /// Makes an encrypted copy of a plaintext SQLite file. With
    /// `destination == source` the encrypted file replaces the plaintext
    /// one atomically. A passphrase whose settings name no `kdf_iter` gets
    /// ``CipherSettings/newFileDefaults`` (1,300,000 iterations on
    /// SQLCipher 3.4.x).
    @discardableResult
    public static func encrypt(plaintextAt source: String, to destination: String, key: CipherKey,
                               replacing options: ReplaceOptions = ReplaceOptions(),
                               progress: Progress? = nil) throws -> ExportSummary {
        guard Database.hasPlaintextHeader(path: source) else {
            throw DatabaseError(resultCode: .SQLITE_NOTADB,
                                message: "\(source) is not a plaintext SQLite database (already encrypted, or not a database)")
        }
        return try export(from: source, sourceKey: nil, to: destination, destinationKey: key, keepsFormat: false,
                          progress: progress, replacing: options)
    }

    /// Writes a PLAINTEXT copy of an encrypted file. Refuses to write over
    /// the source.
    @discardableResult
    public static func decrypt(at source: String, key: CipherKey, to destination: String,
                               progress: Progress? = nil) throws -> ExportSummary {
        guard !samePath(source, destination) else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "decrypt never writes over its source: give another output file")
        }
        return try export(from: source, sourceKey: key, to: destination, destinationKey: nil, keepsFormat: false,
                          progress: progress)
    }

    /// Re-encrypts a file with a new key, and the new key's cipher settings
    /// (raise `kdf_iter`, change the page size) over the library's
    /// defaults: on SQLCipher 4, a SQLCipher 3 file comes out in SQLCipher
    /// 4's format unless the new key's settings say `compatibility: 3` (a
    /// fleet that SQLCipher 3 hosts still read, with SQLCipher 3's 64,000
    /// iterations and a warning). A new passphrase whose settings name
    /// neither gets ``CipherSettings/newFileDefaults`` (1,300,000 iterations
    /// on SQLCipher 3.4.x). Until the final rename the old file is
    /// untouched; after it, only the new key opens the file.
    ///
    /// Writers of other processes cannot write while it runs: they
    /// wait for their busy timeout, then fail with `SQLITE_BUSY` (nothing
    /// they were told succeeded is lost).
    @discardableResult
    public static func rekey(at path: String, from oldKey: CipherKey, to newKey: CipherKey,
                             replacing options: ReplaceOptions = ReplaceOptions(),
                             progress: Progress? = nil) throws -> ExportSummary {
        try export(from: path, sourceKey: oldKey, to: path, destinationKey: newKey, keepsFormat: false, progress: progress,
                   replacing: options)
    }

    /// An encrypted copy with the same key and settings as the file.
    @discardableResult
    public static func backup(at source: String, key: CipherKey?, to destination: String,
                              progress: Progress? = nil) throws -> ExportSummary {
        guard !samePath(source, destination) else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the backup must go to another file")
        }
        return try export(from: source, sourceKey: key, to: destination, destinationKey: key, keepsFormat: true,
                          progress: progress)
    }

    static func samePath(_ lhs: String, _ rhs: String) -> Bool {
        URL(fileURLWithPath: lhs).standardizedFileURL.resolvingSymlinksInPath().path
            == URL(fileURLWithPath: rhs).standardizedFileURL.resolvingSymlinksInPath().path
    }
}
