import Foundation

/// How an export keys its new file and opens it again to verify it, so that
/// the key derivations (PBKDF2: most of the cost of an export at
/// SQLCipher 4's defaults) overlap other work instead of following it.
///
/// Where the line sets a new file's salt before its first page (SQLCipher
/// 4's `cipher_salt`) and the key is a passphrase, the salt is chosen here,
/// and the key is derived twice at once: by SQLCipher, as the export
/// attaches the file with the passphrase and that salt and writes its first
/// page, and here on another thread
/// (``KeyDerivation/sqlcipherKeyAndSalt(passphrase:salt:parameters:)``),
/// started before the source opens, beside SQLCipher's derivation of the
/// source's key. The verification opens the finished file with the key
/// derived here: it opens only if both derivations agree, so the
/// passphrase opens the file. No other connection uses the file while
/// the export writes it.
///
/// Elsewhere (SQLCipher 3, raw keys, plaintext copies), the export
/// attaches the file with the key as it is, and the verification opens it
/// with that key on another thread while the export writes it.
///
/// ```swift
/// let newFile = ExportTarget(path: temporary, key: newKey)
/// // ATTACH with newFile.attachKey(), the pragmas of newFile.attachSettings,
/// // write the first page, then:
/// newFile.firstPageWritten(verifyingWith: config)
/// // sqlcipher_export, fsync, then:
/// let copy = try newFile.verificationConnection(config)
/// ```
///
/// `@unchecked Sendable`: `opened` and `derived` are each written once, on
/// their threads, before their semaphore is signalled, and read only after
/// waiting for it; the other properties are used on the export's thread
/// only.
final class ExportTarget: @unchecked Sendable {
    private let path: String
    private let key: CipherKey?
    /// The settings to attach the file with: the key's, with the chosen
    /// salt.
    let attachSettings: CipherSettings?
    private let openSignal = DispatchSemaphore(value: 0)
    private let deriveSignal = DispatchSemaphore(value: 0)
    private var opened: Result<Database, any Error>?
    private var derived: Result<SecretBytes, any Error>?
    private var derivesBeside = false
    private var openStarted = false
    private var taken = false

    /// Starts deriving the key of the new file at `path` with `key` (its
    /// settings every one explicit), or nothing when `key` is nil.
    init(path: String, key: CipherKey?) {
        self.path = path
        self.key = key
        let line = SQLCipherLibrary.line
        guard let key, case .passphrase(let passphrase) = key.material, key.derivesKey, line.setsNewFileSalt else {
            attachSettings = key?.settings
            return
        }
        let salt = key.settings.salt ?? Self.randomSalt()
        var settings = key.settings
        settings.salt = salt
        attachSettings = settings
        derivesBeside = true
        let parameters = line.keyDerivation(for: key.settings)
        Thread.detachNewThread { [self] in
            derived = Result {
                guard let keyAndSalt = KeyDerivation.sqlcipherKeyAndSalt(passphrase: passphrase, salt: salt, parameters: parameters) else {
                    throw DatabaseError(resultCode: .SQLITE_ERROR, message: "cannot derive the key of \(path) (\(parameters))")
                }
                return keyAndSalt
            }
            deriveSignal.signal()
        }
    }

    /// The key to `ATTACH` the file with: the passphrase bytes, or
    /// `x'<hex>'` for a raw key.
    func attachKey() throws -> SecretBytes {
        try key?.attachKeyText() ?? SecretBytes([])
    }

    /// Call once the export wrote the first page (the salt is on disk):
    /// unless the key was derived here, the verification's connection
    /// starts opening the file, and derives its key while the export runs.
    func firstPageWritten(verifyingWith configuration: Configuration) {
        guard !derivesBeside else { return }
        openStarted = true
        Thread.detachNewThread { [self] in
            opened = Result { try Database(path: path, configuration: configuration) }
            openSignal.signal()
        }
    }

    /// The connection to verify the finished copy with; the caller closes
    /// it. `configuration` is the one the verification uses with the key
    /// itself; with a key derived here, it gets that raw key instead.
    func verificationConnection(_ configuration: Configuration) throws -> Database {
        taken = true
        do {
            guard derivesBeside, let settings = attachSettings else {
                openSignal.wait()
                openSignal.signal()
                return try opened!.get()
            }
            var rawKeyed = CipherKey(material: .rawKey(try derivedKey()), settings: Self.rawKeySettings(settings))
                .configuration(readonly: configuration.readonly)
            rawKeyed.busyMode = configuration.busyMode
            return try Database(path: path, configuration: rawKeyed)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB && derivesBeside {
            throw DatabaseError(resultCode: .SQLITE_NOTADB, message: """
                the key derived beside SQLCipher does not open the new file \(path) (the two derivations differ); \
                nothing was replaced
                """)
        }
    }

    /// Waits for the threads, and closes the verification's connection
    /// unless ``verificationConnection(_:)`` handed it out: nothing is left
    /// open on a file about to be removed.
    func discard() {
        if derivesBeside { _ = try? derivedKey() }
        guard openStarted else { return }
        openSignal.wait()
        openSignal.signal()
        if !taken, case .success(let db)? = opened { try? db.close() }
    }

    /// The key and salt derived here (48 bytes), once derived.
    private func derivedKey() throws -> SecretBytes {
        deriveSignal.wait()
        deriveSignal.signal()
        return try derived!.get()
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
