import Foundation

// The cipher settings of a connection: what keying applies, what SQLCipher
// really uses, and the detection of older file formats at open.
extension Database {
    /// The cipher settings this connection really uses, read from SQLCipher
    /// after the key (nil for a connection without a key): what the file was
    /// opened with, not a default assumed from a SQLCipher version.
    ///
    /// ```swift
    /// let settings = try dbQueue.read { db in try db.cipherSettings }
    /// settings?.kdfAlgorithm     // .sha512 on SQLCipher 4's defaults
    /// settings?.compatibility    // 3 for a SQLCipher 3 file opened on SQLCipher 4
    /// ```
    ///
    /// ``CipherSettings/compatibility`` holds the file format these
    /// settings describe (see ``CipherSettings/formatVersion``), or nil for
    /// a combination of no SQLCipher version.
    public var cipherSettings: CipherSettings? {
        get throws {
            guard isKeyed else { return nil }
            return try SQLCipherLibrary.line.effectiveSettings(self)
        }
    }

    /// The settings keying applies: the configuration's, over the format
    /// the open is trying.
    var keyingSettings: CipherSettings {
        var settings = configuration.cipherSettings
        if let compatibility = cipherFormatOverride?.compatibility { settings.compatibility = compatibility }
        if let iterations = cipherFormatOverride?.kdfIterations { settings.kdfIterations = iterations }
        return settings
    }

    /// Before a passphrase keys a new, empty file: SecureStore's iteration
    /// count for new files when the configuration names none (1,300,000 on
    /// SQLCipher 3.4.x; see ``CipherSettings/newFileDefaults``), and a
    /// warning in ``Database/logError`` when the KDF it gets is below the
    /// guidance. A pool's other connections start with the same count.
    func prepareKeyDerivationOfNewFile() {
        guard cipherFormatOverride == nil, isNewFile else { return }
        let line = SQLCipherLibrary.line
        if let strong = line.strengthened(configuration.cipherSettings) {
            cipherFormatOverride = CipherSettings(kdfIterations: strong.kdfIterations)
            return
        }
        if let warning = line.weakKeyDerivationWarning(for: configuration.cipherSettings, path: path) {
            Database.logError?(.SQLITE_WARNING, warning)
        }
    }

    /// True for a file that holds nothing yet: SQLCipher will choose its
    /// salt, and the settings keying gives are the ones it is made with.
    private var isNewFile: Bool {
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:"), !configuration.readonly else { return false }
        return (PrivateFile.size(of: path) ?? 0) == 0 && (PrivateFile.size(of: path + "-wal") ?? 0) == 0
    }

    /// Before `prepareDatabase`: SQLCipher's process-wide options that the
    /// configuration asks for.
    func prepareCipher() throws {
        if configuration.cipherMemorySecurity {
            try SQLCipherLibrary.line.require("cipher_memory_security", since: 4)
            try execute(sql: "PRAGMA cipher_memory_security = ON")
        }
    }

    /// Checks that the key opens the file. When it does not, and nothing
    /// pinned the cipher settings (the configuration has none, and
    /// `prepareDatabase` left the library's defaults), the older file
    /// formats of the line are tried in turn by keying the connection
    /// again, and nothing is written until one reads: on SQLCipher 4,
    /// SQLCipher 3, 2, then SQLCipher 3's format with 1,300,000 iterations
    /// (which SecureStore makes on SQLCipher 3.4.x), then SQLCipher 1 (see
    /// `SQLCipherLine.fallbackFormats(for:)`). Settings that name no
    /// iteration count are tried with SecureStore's count for new files
    /// too. A pool's readers start with the format its writer found.
    func verifyReadableDetectingFormat() throws {
        // SQLCipher 1's format has no HMAC: with a wrong key, page 1
        // decrypts to noise, and SQLite follows the WAL flag of that noise
        // (1 time in 256), creating `-wal` and `-shm` files. Those absent
        // now are removed if the open fails (`removeFilesOfFailedProbes`).
        let absentFiles = isKeyed && !path.isEmpty && path != ":memory:"
            ? [path + "-wal", path + "-shm"].filter { PrivateFile.size(of: $0) == nil } : []
        do {
            try verifyReadable()
            try rememberFormatOfNewFile()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            filesOfFailedProbes = absentFiles
            let formats = try formatsToDetect()
            guard !formats.isEmpty else { throw error }
            for format in formats {
                cipherFormatOverride = format
                cipherFormatsTried.append(format)
                try runSetups()
                do {
                    try verifyReadable()
                    configuration.keyCache?.remember(format: format)
                    filesOfFailedProbes = []
                    return
                } catch let retry as DatabaseError where retry.resultCode == .SQLITE_NOTADB {
                    continue
                }
            }
            cipherFormatOverride = nil
            throw error
        }
    }

    /// A pool's writer that made a new file with SecureStore's iteration
    /// count: its readers start with that count, unless `prepareDatabase`
    /// set another (GRDB's `PRAGMA kdf_iter` after the key).
    private func rememberFormatOfNewFile() throws {
        guard let format = cipherFormatOverride, let cache = configuration.keyCache, cache.detectedFormat == nil,
              try cipherSettings?.kdfIterations == format.kdfIterations
        else { return }
        cache.remember(format: format)
    }

    /// The formats the open may try after the first key failed: all the
    /// line's fallbacks when the connection was keyed with the
    /// configuration's settings as they are; only SecureStore's iteration
    /// count for new files when `prepareDatabase` changed other settings
    /// after the key (GRDB's way: `PRAGMA cipher_page_size` after
    /// `usePassphrase`), which it applies again over each try; none when
    /// the count is given.
    private func formatsToDetect() throws -> [CipherSettings] {
        guard isKeyed, cipherFormatOverride == nil, !path.isEmpty, path != ":memory:", !fileHasPlaintextHeader,
              let settings = try? cipherSettings
        else { return [] }
        let configured = configuration.cipherSettings
        let line = SQLCipherLibrary.line
        let expected = configured.resolved(over: line.defaults)
        guard configured.kdfIterations == nil, configured.compatibility == nil,
              settings.kdfIterations == expected.kdfIterations, settings.kdfAlgorithm == expected.kdfAlgorithm
        else { return [] }
        if settings.pageSize == expected.pageSize && settings.usesHMAC == expected.usesHMAC
            && settings.hmacAlgorithm == expected.hmacAlgorithm && settings.plaintextHeaderSize == expected.plaintextHeaderSize {
            return line.fallbackFormats(for: configured)
        }
        var changed = configured
        (changed.pageSize, changed.usesHMAC, changed.hmacAlgorithm) = (settings.pageSize, settings.usesHMAC, settings.hmacAlgorithm)
        return line.strengthened(changed).map { [CipherSettings(kdfIterations: $0.kdfIterations)] } ?? []
    }

    /// `SQLCipher 2`, `SQLCipher 3 (1,300,000 iterations)`,
    /// `1,300,000 iterations`: a format the open tried.
    private static func formatName(_ format: CipherSettings) -> String {
        let iterations = format.kdfIterations.map { KeyDerivationStrength.grouped($0) + " iterations" }
        guard let compatibility = format.compatibility else { return iterations ?? "\(format)" }
        return "SQLCipher \(compatibility)" + (iterations.map { " (\($0))" } ?? "")
    }

    /// The error for a file that SQLCipher cannot read, in plain words.
    ///
    /// The message starts with SQLite's own text ("file is not a database"
    /// or "file is encrypted or is not a database", as the library says
    /// it), so that code that matches on it keeps working; the advice
    /// follows.
    func unreadableFileError() -> DatabaseError {
        let line = SQLCipherLibrary.line
        let advice: String
        if fileHasPlaintextHeader {
            advice = isKeyed
                ? "file is not encrypted: \(path) is a plaintext SQLite database, and a key was given. Encrypt it first (migrate-tool encrypt), or open it without a key"
                : "\(path) has a plaintext header but cannot be read"
        } else if isKeyed {
            var settings = cipherFormatsTried.isEmpty || !configuration.cipherSettings.isEmpty
                ? "the given key and cipher settings (\(cipherFormatsTried.isEmpty ? keyingSettings : configuration.cipherSettings))"
                : "the given key and SQLCipher \(line.version)'s default settings (\(line.defaults))"
            if let last = cipherFormatsTried.last.map(Database.formatName) {
                let formats = cipherFormatsTried.dropLast().map(Database.formatName).joined(separator: ", ")
                settings += ", nor in the " + (formats.isEmpty ? last : "\(formats) or \(last)") + " format"
            }
            var text = "the key is wrong, or the file is not a database: \(path) cannot be read with \(settings). Check the key, and give the cipher settings the file was made with"
            if !line.unreadableFileAdvice.isEmpty { text += ". " + line.unreadableFileAdvice }
            advice = text
        } else {
            advice = "\(path) cannot be read without a key. Give its key with usePassphrase in Configuration.prepareDatabase"
        }
        return DatabaseError(resultCode: .SQLITE_NOTADB, message: Database.notADatabaseText + " - " + advice)
    }
}
