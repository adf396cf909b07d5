import Foundation

extension Cipher {
    /// The SQLCipher file formats SecureStore reads with the right
    /// settings, newest first. ``upgrade(at:key:newSettings:replacing:progress:)`` finds which one
    /// a file is in, and rewrites older ones in the library's current
    /// format (``current``).
    public enum FileFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// SQLCipher 4: PBKDF2-HMAC-SHA512 with 256,000 iterations,
        /// HMAC-SHA512, 4096-byte pages. SQLCipher 3 libraries cannot read it.
        case sqlcipher4 = "SQLCipher 4"
        /// SQLCipher 3: PBKDF2-HMAC-SHA1, HMAC-SHA1, 1024-byte pages; 64,000
        /// iterations by SQLCipher 3's default, 1,300,000 in the files
        /// SecureStore makes on SQLCipher 3.4.x.
        case sqlcipher3 = "SQLCipher 3"
        /// SQLCipher 2: 4,000 PBKDF2 iterations.
        case sqlcipher2 = "SQLCipher 2"
        /// SQLCipher 1: no per-page HMAC, 4,000 iterations.
        case sqlcipher1 = "SQLCipher 1"
        /// SQLCipher 2 written on a big-endian device: page numbers enter
        /// the HMAC big-endian (`cipher_hmac_pgno = be`).
        case sqlcipher2BigEndian = "SQLCipher 2, big-endian device"
        /// SQLCipher 2.0 beta: HMAC salt mask 0x00 (`cipher_hmac_salt_mask`).
        case sqlcipher2Beta = "SQLCipher 2.0 beta"
        /// SQLCipher 2.0 beta written on a big-endian device.
        case sqlcipher2BetaBigEndian = "SQLCipher 2.0 beta, big-endian device"

        /// The name, e.g. "SQLCipher 2, big-endian device".
        public var description: String { rawValue }

        /// The format of new files on the running library: SQLCipher 4 on
        /// SQLCipher 4.x, SQLCipher 3 on 3.x.
        public static var current: FileFormat { SQLCipherLibrary.majorVersion >= 4 ? .sqlcipher4 : .sqlcipher3 }

        /// The formats the running library reads, in the order a file is
        /// tried: the current one first.
        public static var readable: [FileFormat] {
            allCases.filter { $0 != .sqlcipher4 || SQLCipherLibrary.majorVersion >= 4 }
        }

        /// The `cipher_compatibility` level of the format.
        public var compatibility: Int {
            switch self {
            case .sqlcipher4: return 4
            case .sqlcipher3: return 3
            case .sqlcipher2, .sqlcipher2BigEndian, .sqlcipher2Beta, .sqlcipher2BetaBigEndian: return 2
            case .sqlcipher1: return 1
            }
        }

        /// True for the variants that only explicit settings read (big-endian
        /// page numbers, the 2.0 betas' salt mask): a connection's open
        /// finds the others by itself.
        var needsExplicitSettings: Bool { hmacSaltMask != nil || self == .sqlcipher2BigEndian }

        /// The settings that read a file of this format.
        var settings: CipherSettings {
            var settings = CipherSettings(compatibility: compatibility)
            if self == .sqlcipher2BigEndian || self == .sqlcipher2BetaBigEndian { settings.hmacPageNumber = .bigEndian }
            return settings
        }

        /// SQLCipher 2.0 betas masked the HMAC salt with 0x00, not 0x3a.
        var hmacSaltMask: UInt8? {
            self == .sqlcipher2Beta || self == .sqlcipher2BetaBigEndian ? 0 : nil
        }
    }

    /// What ``upgrade(at:key:newSettings:replacing:progress:)`` found and did.
    public struct UpgradeReport: Sendable, Hashable {
        /// The format the file was in.
        public var format: FileFormat
        /// What the upgraded file holds, as verified; nil when the file was
        /// already in the current format and was left alone.
        public var summary: ExportSummary?
    }

    /// Finds the format of an encrypted file, read-only: the one a
    /// connection's open finds with the given key (the library's defaults,
    /// its older formats, SecureStore's strengthened SQLCipher 3 format),
    /// else each variant that needs explicit settings. Throws
    /// `SQLITE_NOTADB` when none opens it (a wrong key, or a format the
    /// library cannot read, such as a SQLCipher 4 file on SQLCipher 3).
    ///
    /// A key with explicit settings opens the file with them, in their
    /// format (custom settings count as the current format).
    public static func detectFormat(at path: String, key: CipherKey) throws -> FileFormat {
        try checkUpgradable(path)
        do {
            let db = try open(path, format: nil, key: key, readonly: true)
            defer { try? db.close() }
            let version = try db.cipherSettings?.formatVersion
            return FileFormat.readable.first { $0.compatibility == version && !$0.needsExplicitSettings } ?? .current
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            // With its own settings, the key opens the file with them or not at all.
            guard key.settings.isEmpty else {
                throw DatabaseError(resultCode: error.extendedResultCode, message: (error.message ?? "") + ". The file is unchanged")
            }
            // Not found by the open: one of the variants, or a wrong key.
        }
        for format in FileFormat.readable where format.needsExplicitSettings {
            guard let db = try? open(path, format: format, key: key, readonly: true) else { continue }
            try db.close()
            return format
        }
        let line = SQLCipherLibrary.line
        var message = Database.notADatabaseText + " - the key is wrong, or the file is not a database: \(path) does not open with this key in any format SQLCipher \(line.version) reads ("
            + FileFormat.readable.map(\.rawValue).joined(separator: "; ") + ")"
        if !line.unreadableFileAdvice.isEmpty { message += ". " + line.unreadableFileAdvice }
        throw DatabaseError(resultCode: .SQLITE_NOTADB, message: message + ". The file is unchanged")
    }

    /// Rewrites a file of an older format (SQLCipher 1.x or 2.x, including
    /// 2.0 betas and files from big-endian devices, and SQLCipher 3 on a
    /// SQLCipher 4 library) in the library's current format, with the same
    /// key and the settings of a new file (``CipherSettings/newFileDefaults``
    /// for a passphrase: 1,300,000 iterations on SQLCipher 3.4.x), over
    /// which `newSettings` go (another iteration count, another page size).
    /// A file already in the current format is left alone.
    ///
    /// The file is exported into a private temporary file beside it
    /// (`sqlcipher_export`), which is verified (row counts, `user_version`,
    /// integrity), fsynced, given the file's owner and mode, and renamed
    /// over it: a crash at any moment leaves the old file or the upgraded
    /// one, and a wrong key changes nothing.
    @discardableResult
    public static func upgrade(at path: String, key: CipherKey, newSettings: CipherSettings = CipherSettings(),
                               replacing options: ReplaceOptions = ReplaceOptions(),
                               progress: Progress? = nil) throws -> UpgradeReport {
        let format = try detectFormat(at: path, key: key)
        guard format != .current else { return UpgradeReport(format: format, summary: nil) }
        // The old file is read with its own format's settings; the new one
        // gets the library's defaults, under those asked for.
        let currentKey = CipherKey(material: key.material, settings: newSettings)
        let summary = try export(from: path, sourceKey: nil, to: path, destinationKey: currentKey, keepsFormat: false,
                                 progress: progress, openSource: { path, configuration in
            try open(path, format: format.needsExplicitSettings ? format : nil, key: key, readonly: false,
                     takesFileLock: configuration.takesFileLock)
        }, replacing: options)
        return UpgradeReport(format: format, summary: summary)
    }

    private static func checkUpgradable(_ path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "\(path): no such file")
        }
        if Database.hasPlaintextHeader(path: path) {
            throw DatabaseError(resultCode: .SQLITE_NOTADB,
                                message: "\(path) is not encrypted (a plaintext SQLite file): there is nothing to upgrade; use `encrypt`")
        }
    }

    /// Opens `path` with the settings of `format` (the key's own settings
    /// for nil), and reads it so that a wrong guess fails here.
    private static func open(_ path: String, format: FileFormat?, key: CipherKey, readonly: Bool,
                             takesFileLock: Bool = true) throws -> Database {
        let settings = format?.settings ?? key.settings
        var config = CipherKey(material: key.material, settings: settings).configuration(readonly: readonly)
        config.busyMode = .timeout(10)
        config.takesFileLock = takesFileLock
        let db = try Database(path: path, configuration: config, checksKey: format?.hmacSaltMask == nil)
        if let mask = format?.hmacSaltMask {
            do {
                try db.verifyReadable(withHMACSaltMask: mask)
            } catch {
                try? db.close()
                throw error
            }
        }
        return db
    }
}
