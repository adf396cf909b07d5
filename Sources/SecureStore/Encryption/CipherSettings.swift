import Foundation

/// SQLCipher's per-file settings: how the key is derived and how pages are
/// encrypted and authenticated.
///
/// A nil property keeps the default of the SQLCipher library in use
/// (``libraryDefaults``): SQLCipher 4's on a 4.x library (4096-byte pages,
/// PBKDF2-HMAC-SHA512 with 256,000 iterations, HMAC-SHA512), SQLCipher 3's
/// on 3.4.x (1024-byte pages, PBKDF2-HMAC-SHA1 with 64,000 iterations,
/// HMAC-SHA1), except the iteration count of a new file keyed with a
/// passphrase: it meets the guidance (``newFileDefaults``: 1,300,000 on
/// SQLCipher 3.4.x).
///
/// ```swift
/// // A SQLCipher 3 file, on any library:
/// config.cipherSettings = CipherSettings(compatibility: 3)
/// // Explicit settings:
/// config.cipherSettings = CipherSettings(pageSize: 4096, kdfIterations: 256_000)
/// ```
///
/// What a connection really opened a file with is
/// ``Database/cipherSettings``.
///
/// ## Topics
///
/// ### Defaults
///
/// - ``libraryDefaults``
/// - ``newFileDefaults``
/// - ``sqlcipher4Defaults``
/// - ``sqlcipher3Defaults``
/// - ``defaults(compatibility:)``
///
/// ### Algorithms
///
/// - ``Algorithm``
/// - ``HMACPageNumber``
public struct CipherSettings: Hashable, Sendable, CustomStringConvertible {
    /// `cipher_page_size`: 512 to 65536, a power of two.
    public var pageSize: Int?
    /// `kdf_iter`: PBKDF2 iterations for passphrases.
    public var kdfIterations: Int?
    /// `cipher_use_hmac`: per-page HMAC. Only files of SQLCipher 1.x lack it.
    public var usesHMAC: Bool?
    /// `cipher_hmac_algorithm`: the hash of the per-page HMAC (SQLCipher 4).
    public var hmacAlgorithm: Algorithm?
    /// `cipher_kdf_algorithm`: the hash of PBKDF2 (SQLCipher 4).
    public var kdfAlgorithm: Algorithm?
    /// `cipher_plaintext_header_size`: bytes at the start of the file left
    /// unencrypted (SQLCipher 4; 0 or a multiple of 16, 32 for iOS apps that
    /// share a database through an app group). Such a file does not hold
    /// its salt: give it with a 48-byte raw key (key and salt), or
    /// ``salt``.
    public var plaintextHeaderSize: Int?
    /// `cipher_salt`: the 16-byte KDF salt, for files whose header is
    /// plaintext (``plaintextHeaderSize``), which do not store it.
    public var salt: Data?
    /// `cipher_compatibility`: the settings of a SQLCipher major version
    /// (1 to 4), applied before the other properties. On SQLCipher 3.4.x,
    /// 1 to 3 are translated into their settings and 4 throws.
    public var compatibility: Int?
    /// `cipher_hmac_pgno`: how the page number enters the HMAC. Only
    /// SQLCipher 2 files written on big-endian devices need `.bigEndian`.
    public var hmacPageNumber: HMACPageNumber?

    /// A hash function of SQLCipher 4's KDF and HMAC.
    public enum Algorithm: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
        /// SHA-1: SQLCipher 1 to 3.
        case sha1 = "SHA1"
        /// SHA-256.
        case sha256 = "SHA256"
        /// SHA-512: SQLCipher 4's default.
        case sha512 = "SHA512"

        /// `SHA512`.
        public var description: String { rawValue }
        /// `HMAC_SHA512`, the value of `cipher_hmac_algorithm`.
        var hmacPragmaValue: String { "HMAC_" + rawValue }
        /// `PBKDF2_HMAC_SHA512`, the value of `cipher_kdf_algorithm`.
        var kdfPragmaValue: String { "PBKDF2_HMAC_" + rawValue }

        /// The algorithm of a pragma value such as `PBKDF2_HMAC_SHA512`.
        init?(pragmaValue: String) {
            guard let algorithm = Self.allCases.first(where: { pragmaValue.uppercased().hasSuffix("_" + $0.rawValue) })
            else { return nil }
            self = algorithm
        }
    }

    /// The byte order of the page number in each page's HMAC.
    public enum HMACPageNumber: String, Sendable, Hashable {
        /// SQLCipher's default, on every device since 3.0.
        case littleEndian = "le"
        /// SQLCipher 2 files written on big-endian devices.
        case bigEndian = "be"
        /// The byte order of the machine that runs SQLCipher.
        case native
    }

    /// Settings; nil keeps the library's default.
    public init(pageSize: Int? = nil, kdfIterations: Int? = nil, usesHMAC: Bool? = nil,
                hmacAlgorithm: Algorithm? = nil, kdfAlgorithm: Algorithm? = nil,
                plaintextHeaderSize: Int? = nil, salt: Data? = nil, compatibility: Int? = nil,
                hmacPageNumber: HMACPageNumber? = nil) {
        self.pageSize = pageSize
        self.kdfIterations = kdfIterations
        self.usesHMAC = usesHMAC
        self.hmacAlgorithm = hmacAlgorithm
        self.kdfAlgorithm = kdfAlgorithm
        self.plaintextHeaderSize = plaintextHeaderSize
        self.salt = salt
        self.compatibility = compatibility
        self.hmacPageNumber = hmacPageNumber
    }

    /// SQLCipher 4's defaults: 4096-byte pages, PBKDF2-HMAC-SHA512 with
    /// 256,000 iterations, HMAC-SHA512.
    public static let sqlcipher4Defaults = defaults(compatibility: 4)

    /// SQLCipher 3's defaults: 1024-byte pages, PBKDF2-HMAC-SHA1 with
    /// 64,000 iterations, HMAC-SHA1.
    public static let sqlcipher3Defaults = defaults(compatibility: 3)

    /// SQLCipher 3's format with the iteration count of the guidance for
    /// PBKDF2-HMAC-SHA1 (1,300,000): what SecureStore gives a new file
    /// keyed with a passphrase on SQLCipher 3.4.x.
    static let strengthenedSQLCipher3 = CipherSettings(
        kdfIterations: KeyDerivationStrength.recommendedIterations(for: .sha1), compatibility: 3)

    /// The settings SecureStore gives a new file keyed with a passphrase
    /// when the configuration names no iteration count, every property
    /// given: SQLCipher 4's defaults on SQLCipher 4.x (PBKDF2-HMAC-SHA512,
    /// 256,000 iterations, which meet the guidance), and on SQLCipher 3.4.x
    /// SQLCipher 3's format with 1,300,000 iterations instead of its
    /// default 64,000 (see ``KeyDerivationStrength``).
    ///
    /// ```swift
    /// CipherSettings.newFileDefaults.kdfIterations   // 1_300_000 on SQLCipher 3.4.1
    /// ```
    ///
    /// A file opened with no settings is read with the library's defaults
    /// first, then older formats, then these.
    public static var newFileDefaults: CipherSettings {
        let line = SQLCipherLibrary.line
        return (line.strengthened(CipherSettings()) ?? CipherSettings()).resolved(over: line.defaults)
    }

    /// The defaults of the SQLCipher library this process runs on:
    /// ``sqlcipher4Defaults`` on SQLCipher 4.x, ``sqlcipher3Defaults`` on 3.x.
    public static var libraryDefaults: CipherSettings { SQLCipherLibrary.line.defaults }

    /// The settings of a SQLCipher major version's files, every property
    /// given: what `PRAGMA cipher_compatibility = N` sets.
    ///
    /// ```swift
    /// CipherSettings.defaults(compatibility: 2).kdfIterations   // 4000
    /// ```
    public static func defaults(compatibility version: Int) -> CipherSettings {
        switch version {
        case ...2:
            return CipherSettings(pageSize: 1024, kdfIterations: 4000, usesHMAC: version == 2,
                                  hmacAlgorithm: .sha1, kdfAlgorithm: .sha1, plaintextHeaderSize: 0,
                                  compatibility: max(1, version))
        case 3:
            return CipherSettings(pageSize: 1024, kdfIterations: 64000, usesHMAC: true, hmacAlgorithm: .sha1,
                                  kdfAlgorithm: .sha1, plaintextHeaderSize: 0, compatibility: 3)
        default:
            return CipherSettings(pageSize: 4096, kdfIterations: 256_000, usesHMAC: true, hmacAlgorithm: .sha512,
                                  kdfAlgorithm: .sha512, plaintextHeaderSize: 0, compatibility: 4)
        }
    }

    /// True when no property is set: the library's defaults, and the
    /// format detection of a connection's open may try older formats.
    public var isEmpty: Bool { self == CipherSettings() }

    /// These settings with every nil property taken from `base`: the
    /// compatibility level's settings first when one is given.
    public func resolved(over base: CipherSettings = CipherSettings.libraryDefaults) -> CipherSettings {
        let base = compatibility.map { CipherSettings.defaults(compatibility: $0) } ?? base
        return CipherSettings(
            pageSize: pageSize ?? base.pageSize, kdfIterations: kdfIterations ?? base.kdfIterations,
            usesHMAC: usesHMAC ?? base.usesHMAC, hmacAlgorithm: hmacAlgorithm ?? base.hmacAlgorithm,
            kdfAlgorithm: kdfAlgorithm ?? base.kdfAlgorithm,
            plaintextHeaderSize: plaintextHeaderSize ?? base.plaintextHeaderSize, salt: salt ?? base.salt,
            compatibility: compatibility ?? base.compatibility, hmacPageNumber: hmacPageNumber ?? base.hmacPageNumber)
    }

    /// The SQLCipher major version whose file format these settings
    /// describe, whatever the iteration count: 4 for SHA-512 and 4096-byte
    /// pages, 3 or 2 for SHA-1 with HMAC (2 at 4,000 iterations), 1 without
    /// HMAC; nil for other combinations.
    public var formatVersion: Int? {
        let settings = resolved()
        guard settings.plaintextHeaderSize == 0 || settings.plaintextHeaderSize == nil else { return nil }
        switch (settings.kdfAlgorithm, settings.hmacAlgorithm, settings.pageSize, settings.usesHMAC) {
        case (.sha512, .sha512, 4096, true): return 4
        case (.sha1, _, 1024, false): return 1
        case (.sha1, .sha1, 1024, true): return settings.kdfIterations == 4000 ? 2 : 3
        default: return nil
        }
    }

    /// `PBKDF2-HMAC-SHA512, 256,000 iterations, 4096-byte pages,
    /// HMAC-SHA512`: the settings resolved over the library's defaults.
    public var description: String {
        let settings = resolved()
        var parts: [String] = []
        parts.append("PBKDF2-HMAC-\(settings.kdfAlgorithm ?? .sha1), kdf_iter \(settings.kdfIterations ?? 0)")
        parts.append("cipher_page_size \(settings.pageSize ?? 0)")
        parts.append(settings.usesHMAC == false ? "HMAC off" : "HMAC-\(settings.hmacAlgorithm ?? .sha1)")
        if let header = settings.plaintextHeaderSize, header > 0 { parts.append("plaintext header \(header) bytes") }
        if let hmacPageNumber, hmacPageNumber != .littleEndian { parts.append("HMAC page numbers \(hmacPageNumber.rawValue)") }
        return parts.joined(separator: ", ")
    }

    /// Checks the values SQLite would take without a word.
    func validate() throws {
        if let pageSize, !(512...65536).contains(pageSize) || pageSize & (pageSize - 1) != 0 {
            throw DatabaseError(resultCode: .SQLITE_MISUSE,
                                message: "invalid cipher page size \(pageSize): use a power of two from 512 to 65536")
        }
        if let kdfIterations, kdfIterations <= 0 {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "invalid kdf_iter \(kdfIterations): use a positive number")
        }
        if let compatibility, !(1...4).contains(compatibility) {
            throw DatabaseError(resultCode: .SQLITE_MISUSE,
                                message: "invalid cipher_compatibility \(compatibility): use 1, 2, 3 or 4")
        }
        if let plaintextHeaderSize, plaintextHeaderSize < 0 || plaintextHeaderSize % 16 != 0 || plaintextHeaderSize > 100 {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: """
                invalid cipher_plaintext_header_size \(plaintextHeaderSize): use 0 or a multiple of 16 up to 96 (32 for iOS app groups)
                """)
        }
        if let salt, salt.count != 16 {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "invalid cipher_salt: 16 bytes are needed, not \(salt.count)")
        }
    }
}
