import Foundation

extension Cipher {
    /// The SQLCipher file formats that SQLCipher 3.4.1 can read with the
    /// right settings, oldest last. ``upgrade(at:key:progress:)`` finds which
    /// one a file is in, and rewrites older ones in the current format.
    public enum FileFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// SQLCipher 3 (and SecureStore's files): nothing to upgrade.
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

        /// The settings that read a file of this format.
        var settings: CipherSettings {
            switch self {
            case .sqlcipher3: return CipherSettings()
            case .sqlcipher2, .sqlcipher2Beta: return CipherSettings(pageSize: 1024, kdfIterations: 4000)
            case .sqlcipher1: return CipherSettings(pageSize: 1024, kdfIterations: 4000, usesHMAC: false)
            case .sqlcipher2BigEndian, .sqlcipher2BetaBigEndian:
                return CipherSettings(pageSize: 1024, kdfIterations: 4000, hmacPageNumber: .bigEndian)
            }
        }

        /// SQLCipher 2.0 betas masked the HMAC salt with 0x00, not 0x3a.
        var hmacSaltMask: UInt8? {
            self == .sqlcipher2Beta || self == .sqlcipher2BetaBigEndian ? 0 : nil
        }
    }

    /// What ``upgrade(at:key:progress:)`` found and did.
    public struct UpgradeReport: Sendable, Hashable {
        /// The format the file was in.
        public var format: FileFormat
        /// What the upgraded file holds, as verified; nil when the file was
        /// already in the current format and was left alone.
        public var summary: ExportSummary?
    }

    /// Finds the format of an encrypted file: the current one first, then
    /// each older variant with the given key. Throws `SQLITE_NOTADB` when
    /// none opens it (a wrong key, or not a SQLCipher 1-3 file).
    public static func detectFormat(at path: String, key: CipherKey) throws -> FileFormat {
        try checkUpgradable(path)
        for format in FileFormat.allCases {
            guard let db = try? open(path, format: format, key: key, readonly: true) else { continue }
            try db.close()
            return format
        }
        throw DatabaseError(
            resultCode: .SQLITE_NOTADB,
            message: Database.notADatabaseText + " - the key is wrong, or the file is not a database: \(path) does not open with this key in any format SQLCipher 3 reads (3.x; 2.x, also from big-endian devices and 2.0 betas; 1.x). Files made with SQLCipher 4 cannot be read by SQLCipher 3. The file is unchanged")
    }

    /// Rewrites a SQLCipher 1.x or 2.x file (including 2.0 betas and files
    /// from big-endian devices) in the SQLCipher 3 format, with the same
    /// key and SQLCipher 3's default settings. A file already in the
    /// current format is left alone.
    ///
    /// The file is exported into a private temporary file beside it
    /// (`sqlcipher_export`), which is verified (row counts, `user_version`,
    /// integrity), fsynced, given the file's owner and mode, and renamed
    /// over it: a crash at any moment leaves the old file or the upgraded
    /// one, and a wrong key changes nothing.
    @discardableResult
    public static func upgrade(at path: String, key: CipherKey, progress: Progress? = nil) throws -> UpgradeReport {
        let format = try detectFormat(at: path, key: key)
        guard format != .sqlcipher3 else { return UpgradeReport(format: format, summary: nil) }
        // The legacy key is read from the file's own settings; the new
        // file gets SQLCipher 3's defaults.
        let current = CipherKey(material: key.material)
        let summary = try export(from: path, sourceKey: nil, to: path, destinationKey: current, progress: progress) {
            try open(path, format: format, key: key, readonly: false)
        }
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

    /// Opens `path` with the settings of `format`, and reads it so that a
    /// wrong guess fails here.
    private static func open(_ path: String, format: FileFormat, key: CipherKey, readonly: Bool) throws -> Database {
        // The current format is read with the key's own settings.
        let settings = format == .sqlcipher3 ? key.settings : format.settings
        var config = CipherKey(material: key.material, settings: settings).configuration(readonly: readonly)
        config.busyMode = .timeout(10)
        let db = try Database(path: path, configuration: config, checksKey: format.hmacSaltMask == nil)
        if let mask = format.hmacSaltMask {
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
