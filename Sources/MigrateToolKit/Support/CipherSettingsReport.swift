import Foundation
import SecureStore

/// The cipher settings a file was really opened (or written) with, as the
/// JSON reports and the text lines show them: read from SQLCipher, never a
/// default assumed from a SQLCipher version.
///
/// JSON: `{ "format": "SQLCipher 4", "kdfAlgorithm": "PBKDF2_HMAC_SHA512",
/// "kdfIter": 256000, "pageSize": 4096, "hmac": true, "hmacAlgorithm":
/// "HMAC_SHA512", "plaintextHeaderSize": 0 }`.
struct CipherSettingsReport: Codable, Equatable {
    /// "SQLCipher 4", "SQLCipher 3"...; nil for settings of no SQLCipher
    /// version's format.
    var format: String?
    /// `PBKDF2_HMAC_SHA512`, `HMAC_SHA512`... (JSON keys are sorted).
    var kdfAlgorithm, hmacAlgorithm: String
    var kdfIter, pageSize, plaintextHeaderSize: Int
    var hmac: Bool

    init(_ settings: CipherSettings) {
        let settings = settings.resolved()
        format = settings.formatVersion.map { "SQLCipher \($0)" }
        kdfAlgorithm = "PBKDF2_HMAC_\(settings.kdfAlgorithm ?? .sha1)"
        kdfIter = settings.kdfIterations ?? 0
        pageSize = settings.pageSize ?? 0
        hmac = settings.usesHMAC ?? true
        hmacAlgorithm = "HMAC_\(settings.hmacAlgorithm ?? .sha1)"
        plaintextHeaderSize = settings.plaintextHeaderSize ?? 0
    }

    /// The settings of an open connection; nil without a key.
    init?(_ db: Database) throws {
        guard let settings = try db.cipherSettings else { return nil }
        self.init(settings)
    }

    /// `SQLCipher 4 format: PBKDF2-HMAC-SHA512, kdf_iter 256000,
    /// cipher_page_size 4096, HMAC-SHA512`.
    var text: String {
        var parts = ["\(kdfAlgorithm.replacingOccurrences(of: "_", with: "-")), kdf_iter \(kdfIter)",
                     "cipher_page_size \(pageSize)",
                     hmac ? hmacAlgorithm.replacingOccurrences(of: "_", with: "-") : "HMAC off"]
        if plaintextHeaderSize > 0 { parts.append("plaintext header \(plaintextHeaderSize) bytes") }
        return "\(format.map { "\($0) format" } ?? "custom settings"): " + parts.joined(separator: ", ")
    }
}
