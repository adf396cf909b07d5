import Foundation

/// SQLCipher's per-file settings. nil keeps SQLCipher 3's default.
///
/// ```swift
/// config.cipherSettings = CipherSettings(pageSize: 4096, kdfIterations: 256_000)
/// ```
public struct CipherSettings: Hashable, Sendable, CustomStringConvertible {
    /// `cipher_page_size`: 512 to 65536, a power of two (default 1024).
    public var pageSize: Int?
    /// `kdf_iter`: PBKDF2 iterations for passphrases (default 64000).
    public var kdfIterations: Int?
    /// `cipher_use_hmac`: per-page HMAC (default true). Only files of
    /// SQLCipher 1.x lack it.
    public var usesHMAC: Bool?
    /// `cipher_hmac_pgno`: how the page number enters the HMAC. Only
    /// SQLCipher 2 files written on big-endian devices need `.bigEndian`.
    public var hmacPageNumber: HMACPageNumber?

    /// The byte order of the page number in each page's HMAC.
    public enum HMACPageNumber: String, Sendable, Hashable {
        /// SQLCipher's default, on every device since 3.0.
        case littleEndian = "le"
        /// SQLCipher 2 files written on big-endian devices.
        case bigEndian = "be"
        /// The byte order of the machine that runs SQLCipher.
        case native
    }

    /// Settings; nil keeps SQLCipher 3's default.
    public init(pageSize: Int? = nil, kdfIterations: Int? = nil, usesHMAC: Bool? = nil,
                hmacPageNumber: HMACPageNumber? = nil) {
        self.pageSize = pageSize
        self.kdfIterations = kdfIterations
        self.usesHMAC = usesHMAC
        self.hmacPageNumber = hmacPageNumber
    }

    /// SQLCipher 3's defaults: page 1024, kdf_iter 64000, HMAC on.
    public static let sqlcipher3Defaults = CipherSettings(pageSize: 1024, kdfIterations: 64000, usesHMAC: true)

    /// `kdf_iter 64000, cipher_page_size 1024, HMAC on`.
    public var description: String {
        let defaults = CipherSettings.sqlcipher3Defaults
        let iterations = kdfIterations ?? defaults.kdfIterations ?? 0
        let page = pageSize ?? defaults.pageSize ?? 0
        var text = "kdf_iter \(iterations), cipher_page_size \(page), HMAC \((usesHMAC ?? true) ? "on" : "off")"
        if let hmacPageNumber, hmacPageNumber != .littleEndian { text += ", HMAC page numbers \(hmacPageNumber.rawValue)" }
        return text
    }

    /// The PRAGMA statements that apply these settings after keying.
    func pragmas() throws -> [String] {
        var pragmas: [String] = []
        if let pageSize {
            guard (512...65536).contains(pageSize), pageSize & (pageSize - 1) == 0 else {
                throw DatabaseError(resultCode: .SQLITE_MISUSE,
                                    message: "invalid cipher page size \(pageSize): use a power of two from 512 to 65536")
            }
            pragmas.append("PRAGMA cipher_page_size = \(pageSize)")
        }
        if let kdfIterations {
            guard kdfIterations > 0 else {
                throw DatabaseError(resultCode: .SQLITE_MISUSE,
                                    message: "invalid kdf_iter \(kdfIterations): use a positive number")
            }
            pragmas.append("PRAGMA kdf_iter = \(kdfIterations)")
        }
        if let usesHMAC {
            pragmas.append("PRAGMA cipher_use_hmac = \(usesHMAC ? "ON" : "OFF")")
        }
        if let hmacPageNumber {
            pragmas.append("PRAGMA cipher_hmac_pgno = \(hmacPageNumber.rawValue)")
        }
        return pragmas
    }
}
