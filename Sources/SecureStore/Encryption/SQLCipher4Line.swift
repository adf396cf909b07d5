import Foundation

/// SQLCipher 4.x (Debian 13's 4.6.1, Ubuntu 24.04's 4.5.6): SHA-512 by
/// default, the algorithms and the plaintext header as settings,
/// `cipher_compatibility` for older files, `PRAGMA cipher_settings`,
/// `cipher_integrity_check`, logging and memory security.
struct SQLCipher4Line: SQLCipherLine {
    let version: String
    var majorVersion: Int { 4 }
    var defaults: CipherSettings { .sqlcipher4Defaults }
    var setsNewFileSalt: Bool { true }
    var olderFormats: [Int] { [3, 2, 1] }
    var unreadableFileAdvice: String { "" }

    func pragmas(for settings: CipherSettings, schema: String?) throws -> [String] {
        try settings.validate()
        let prefix = schema.map { "\($0.quotedDatabaseIdentifier)." } ?? ""
        var pragmas: [String] = []
        // First: cipher_compatibility sets every other setting.
        if let compatibility = settings.compatibility { pragmas.append("PRAGMA \(prefix)cipher_compatibility = \(compatibility)") }
        if let value = settings.kdfIterations { pragmas.append("PRAGMA \(prefix)kdf_iter = \(value)") }
        if let value = settings.usesHMAC { pragmas.append("PRAGMA \(prefix)cipher_use_hmac = \(value ? "ON" : "OFF")") }
        if let value = settings.hmacAlgorithm { pragmas.append("PRAGMA \(prefix)cipher_hmac_algorithm = \(value.hmacPragmaValue)") }
        if let value = settings.kdfAlgorithm { pragmas.append("PRAGMA \(prefix)cipher_kdf_algorithm = \(value.kdfPragmaValue)") }
        if let value = settings.pageSize { pragmas.append("PRAGMA \(prefix)cipher_page_size = \(value)") }
        if let value = settings.plaintextHeaderSize {
            pragmas.append("PRAGMA \(prefix)cipher_plaintext_header_size = \(value)")
        }
        if let salt = settings.salt {
            pragmas.append("PRAGMA \(prefix)cipher_salt = \"x'\(salt.map { String(format: "%02x", $0) }.joined())'\"")
        }
        if let value = settings.hmacPageNumber { pragmas.append("PRAGMA \(prefix)cipher_hmac_pgno = \(value.rawValue)") }
        return pragmas
    }

    func effectiveSettings(_ db: Database) throws -> CipherSettings {
        var (settings, pragma) = try readSettings(db)
        settings.hmacAlgorithm = try pragma("cipher_hmac_algorithm").flatMap(CipherSettings.Algorithm.init(pragmaValue:))
        settings.kdfAlgorithm = try pragma("cipher_kdf_algorithm").flatMap(CipherSettings.Algorithm.init(pragmaValue:))
        settings.plaintextHeaderSize = try pragma("cipher_plaintext_header_size").flatMap { Int($0) }
        settings.compatibility = settings.formatVersion
        if (settings.plaintextHeaderSize ?? 0) > 0 {
            // Not in the file: the app must keep it and give it back.
            settings.salt = try pragma("cipher_salt").flatMap(Self.bytes(hex:))
        }
        return settings
    }

    func cipherIntegrityCheck(_ db: Database) throws -> [String]? {
        // One row per page whose HMAC fails, none when all are intact.
        try String.fetchAll(db, sql: "PRAGMA cipher_integrity_check")
    }

    /// `"0a1b..."` as bytes; nil for anything else.
    private static func bytes(hex: String) -> Data? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes = Data(capacity: digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }
}
