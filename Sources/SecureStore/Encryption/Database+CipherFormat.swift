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
        if let cipherFormatOverride { settings.compatibility = cipherFormatOverride }
        return settings
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
    /// formats of the line are tried in turn, SQLCipher 3, 2 then 1 on
    /// SQLCipher 4, by keying the connection again: nothing is written
    /// until one reads. A pool's readers start with the format its writer
    /// found.
    func verifyReadableDetectingFormat() throws {
        // SQLCipher 1's format has no HMAC: with a wrong key, page 1
        // decrypts to noise, and SQLite follows the WAL flag of that noise
        // (1 time in 256), creating `-wal` and `-shm` files. Those absent
        // now are removed if the open fails (`removeFilesOfFailedProbes`).
        let absentFiles = isKeyed && !path.isEmpty && path != ":memory:"
            ? [path + "-wal", path + "-shm"].filter { PrivateFile.size(of: $0) == nil } : []
        do {
            try verifyReadable()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            filesOfFailedProbes = absentFiles
            guard try mayDetectCipherFormat() else { throw error }
            for format in SQLCipherLibrary.line.olderFormats {
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

    private func mayDetectCipherFormat() throws -> Bool {
        guard isKeyed, cipherFormatOverride == nil, configuration.cipherSettings.isEmpty,
              !path.isEmpty, path != ":memory:", !fileHasPlaintextHeader,
              let settings = try? cipherSettings
        else { return false }
        let defaults = SQLCipherLibrary.line.defaults
        return settings.kdfIterations == defaults.kdfIterations && settings.pageSize == defaults.pageSize
            && settings.usesHMAC == defaults.usesHMAC && settings.kdfAlgorithm == defaults.kdfAlgorithm
            && settings.hmacAlgorithm == defaults.hmacAlgorithm
            && settings.plaintextHeaderSize == defaults.plaintextHeaderSize
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
            var settings = cipherFormatsTried.isEmpty
                ? "the given key and cipher settings (\(keyingSettings))"
                : "the given key and SQLCipher \(line.version)'s default settings (\(line.defaults))"
            if let last = cipherFormatsTried.last {
                let formats = cipherFormatsTried.dropLast().map(String.init).joined(separator: ", ")
                settings += ", nor in the SQLCipher " + (formats.isEmpty ? "\(last)" : "\(formats) or \(last)") + " format"
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
