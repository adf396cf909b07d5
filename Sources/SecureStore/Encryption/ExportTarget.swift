import Foundation

/// How an export keys its new file and opens it again to verify it, so that
/// the key derivations (PBKDF2: most of the cost of an export) overlap other
/// work instead of following it.
///
/// For a passphrase, the new file's key is derived twice, at once: by
/// SQLCipher, as the export attaches the file with the passphrase and
/// writes its first page, and here on another thread
/// (``KeyDerivation/sqlcipherKeyAndSalt(passphrase:salt:parameters:)``,
/// the OpenSSL function SQLCipher calls). The verification opens the
/// finished file with the key derived here: it opens only if both
/// derivations agree, so the passphrase opens the file. No other
/// connection uses the file while the export writes it, so the export
/// never waits for a lock.
///
/// Where the line sets a new file's salt before its first page (SQLCipher
/// 4's `cipher_salt`), the salt is chosen here and the derivation starts
/// before the source opens, beside SQLCipher's derivation of the source's
/// key. SQLCipher 3 chooses the salt itself: the derivation starts once the
/// export has written the first page, with the salt read from it, and runs
/// beside the export.
///
/// A raw key needs no derivation, and a plaintext copy no key: the
/// verification opens the file with them as they are.
///
/// ```swift
/// let newFile = ExportTarget(path: temporary, key: newKey)
/// // ATTACH with newFile.attachKey(), the pragmas of newFile.attachSettings,
/// // write the first page, then:
/// try newFile.firstPageWritten(in: db, schema: "securestore_export")
/// // sqlcipher_export, then:
/// let copy = try newFile.verificationConnection(config)
/// ```
///
/// The export uses it on its own thread only; the derivation runs in a
/// ``BackgroundWork``.
///
/// ## Topics
///
/// ### Keying the new file
///
/// - ``attachKey()``
/// - ``attachSettings``
/// - ``firstPageWritten(in:schema:)``
///
/// ### Verifying it
///
/// - ``verificationConnection(_:)``
/// - ``verificationConfiguration(_:)``
/// - ``discard()``
final class ExportTarget {
    private let path: String
    private let key: CipherKey?
    /// The settings to attach the file with: the key's, with the chosen
    /// salt where the line takes one.
    let attachSettings: CipherSettings?
    /// The passphrase to derive the key from, and how.
    private let derivation: (passphrase: SecretBytes, parameters: KeyDerivation.Parameters)?
    /// The key and salt (48 bytes) derived here, once started.
    private var derived: BackgroundWork<SecretBytes>?

    /// Prepares the new file at `path` for `key` (its settings every one
    /// explicit), or for a plaintext copy when `key` is nil; on a line that
    /// takes a new file's salt, starts deriving the key.
    init(path: String, key: CipherKey?) {
        self.path = path
        self.key = key
        let line = SQLCipherLibrary.line
        guard let key, case .passphrase(let passphrase) = key.material, key.derivesKey else {
            attachSettings = key?.settings
            derivation = nil
            return
        }
        let parameters = line.keyDerivation(for: key.settings)
        derivation = (passphrase, parameters)
        guard line.setsNewFileSalt else {
            attachSettings = key.settings
            return
        }
        var settings = key.settings
        settings.salt = key.settings.salt ?? Self.randomSalt()
        attachSettings = settings
        startDerivation(salt: settings.salt)
    }

    /// The key to `ATTACH` the file with: the passphrase bytes, or
    /// `x'<hex>'` for a raw key.
    func attachKey() throws -> SecretBytes {
        try key?.attachKeyText() ?? SecretBytes([])
    }

    /// Call once the export wrote the first page, through `db`, where the
    /// file is attached as `schema`: unless it started already, the
    /// derivation starts, with the salt SQLCipher wrote.
    func firstPageWritten(in db: Database, schema: String) {
        guard derivation != nil, derived == nil else { return }
        startDerivation(salt: db.fileSalt(schema: schema))
    }

    /// The configuration to open the finished copy with for its
    /// verification: `configuration`, the one the verification uses with
    /// the key itself, or, with a key derived here, that raw key instead.
    func verificationConfiguration(_ configuration: Configuration) throws -> Configuration {
        guard let derived, let settings = attachSettings else { return configuration }
        var rawKeyed = CipherKey(material: .rawKey(try derived.value()), settings: Self.rawKeySettings(settings))
            .configuration(readonly: configuration.readonly)
        rawKeyed.busyMode = configuration.busyMode
        return rawKeyed
    }

    /// The connection to verify the finished copy with, opened with
    /// ``verificationConfiguration(_:)``; the caller closes it.
    func verificationConnection(_ configuration: Configuration) throws -> Database {
        let opening = try verificationConfiguration(configuration)
        do {
            return try Database(path: path, configuration: opening)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB && derived != nil && attachSettings != nil {
            throw DatabaseError(resultCode: .SQLITE_NOTADB, message: """
                the key derived beside SQLCipher does not open the new file \(path) (the two derivations differ); \
                nothing was replaced
                """)
        }
    }

    /// Waits for the derivation: nothing is left running for a file about
    /// to be removed.
    func discard() {
        _ = derived?.result()
    }

    /// Starts deriving the key with `salt` (nil: the salt could not be
    /// read, which the verification reports).
    private func startDerivation(salt: Data?) {
        guard let (passphrase, parameters) = derivation else { return }
        let path = path
        derived = BackgroundWork {
            guard let salt else {
                throw DatabaseError(resultCode: .SQLITE_IOERR, message: "cannot read the salt of the new file \(path)")
            }
            guard let keyAndSalt = KeyDerivation.sqlcipherKeyAndSalt(passphrase: passphrase, salt: salt, parameters: parameters) else {
                throw DatabaseError(resultCode: .SQLITE_ERROR, message: "cannot derive the key of \(path) (\(parameters))")
            }
            return keyAndSalt
        }
    }

    /// `settings` for a raw key: without those of the key derivation, which
    /// a raw key does not use (and on SQLCipher 4, a `kdf_iter` or
    /// `cipher_compatibility` after a raw key leaves an attached database
    /// unable to write), nor the salt, which the key carries.
    private static func rawKeySettings(_ settings: CipherSettings) -> CipherSettings {
        var settings = settings
        (settings.compatibility, settings.kdfIterations, settings.kdfAlgorithm, settings.salt) = (nil, nil, nil, nil)
        return settings
    }

    /// 16 random bytes from the system's generator.
    private static func randomSalt() -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}
