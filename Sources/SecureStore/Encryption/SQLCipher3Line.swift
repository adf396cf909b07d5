import Foundation

/// SQLCipher 3.4.x (Debian 12's 3.4.1): SHA-1 only, no plaintext header,
/// and no `cipher_compatibility`, `cipher_kdf_algorithm` or
/// `cipher_hmac_algorithm`, which it would ignore without a word. Settings
/// that ask for them are translated (a compatibility level of 1 to 3 into
/// its settings) or refused with an error naming SQLCipher 4.0.
struct SQLCipher3Line: SQLCipherLine {
    let version: String
    var majorVersion: Int { 3 }
    var defaults: CipherSettings { .sqlcipher3Defaults }
    var setsNewFileSalt: Bool { false }
    var olderFormats: [Int] { [2, 1] }
    var unreadableFileAdvice: String {
        "It may be a SQLCipher 4 file, which needs SQLCipher 4.0 or later: this library is SQLCipher \(version)"
    }

    func pragmas(for settings: CipherSettings, schema: String?) throws -> [String] {
        try settings.validate()
        if let compatibility = settings.compatibility { try require("cipher_compatibility = \(compatibility)", since: compatibility) }
        for algorithm in [settings.kdfAlgorithm, settings.hmacAlgorithm].compactMap({ $0 }) where algorithm != .sha1 {
            try require("\(algorithm) (cipher_kdf_algorithm, cipher_hmac_algorithm)", since: 4)
        }
        if let header = settings.plaintextHeaderSize, header != 0 { try require("cipher_plaintext_header_size", since: 4) }
        if settings.salt != nil { try require("cipher_salt (give the salt with a 48-byte raw key instead)", since: 4) }
        // A compatibility level becomes the settings it stands for.
        let explicit = settings.compatibility.map { settings.resolved(over: CipherSettings.defaults(compatibility: $0)) } ?? settings
        let prefix = schema.map { "\($0.quotedDatabaseIdentifier)." } ?? ""
        var pragmas: [String] = []
        if let value = explicit.kdfIterations { pragmas.append("PRAGMA \(prefix)kdf_iter = \(value)") }
        if let value = explicit.usesHMAC { pragmas.append("PRAGMA \(prefix)cipher_use_hmac = \(value ? "ON" : "OFF")") }
        if let value = explicit.pageSize { pragmas.append("PRAGMA \(prefix)cipher_page_size = \(value)") }
        if let value = explicit.hmacPageNumber { pragmas.append("PRAGMA \(prefix)cipher_hmac_pgno = \(value.rawValue)") }
        return pragmas
    }

    func effectiveSettings(_ db: Database) throws -> CipherSettings {
        // SHA-1 is SQLCipher 3's only algorithm, and it has no plaintext header.
        var settings = try readSettings(db).settings
        (settings.hmacAlgorithm, settings.kdfAlgorithm, settings.plaintextHeaderSize) = (.sha1, .sha1, 0)
        settings.compatibility = settings.formatVersion
        return settings
    }

    func cipherIntegrityCheck(_ db: Database) throws -> [String]? { nil }
}
