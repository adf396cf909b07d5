import Foundation

/// What differs between the SQLCipher lines SecureStore supports: 3.4.x
/// (Debian 12) and 4.5 and later (Debian 13, Ubuntu 24.04). Everything
/// else in the library asks the line of the running library
/// (``SQLCipherLibrary/line``) instead of comparing versions itself.
protocol SQLCipherLine: Sendable {
    /// `PRAGMA cipher_version`, such as `4.6.1 community`.
    var version: String { get }
    /// 3 or 4.
    var majorVersion: Int { get }
    /// The settings of a file made with no explicit setting, every
    /// property given.
    var defaults: CipherSettings { get }
    /// The file formats (SQLCipher major versions) a connection tries, in
    /// order, after the defaults fail to read a file, when nothing pinned
    /// its settings.
    var olderFormats: [Int] { get }
    /// True when a new file's salt can be set before its first page
    /// (`PRAGMA cipher_salt`, SQLCipher 4); on SQLCipher 3 only a 48-byte
    /// raw key gives it.
    var setsNewFileSalt: Bool { get }
    /// The `PRAGMA` statements that apply `settings` right after the key,
    /// to the `main` database or to an attached `schema`.
    func pragmas(for settings: CipherSettings, schema: String?) throws -> [String]
    /// The settings a keyed connection really uses, read from SQLCipher.
    func effectiveSettings(_ db: Database) throws -> CipherSettings
    /// Why a file may not open on this line, for the error of a file that
    /// opens with no setting: empty, or advice such as "it may be a
    /// SQLCipher 4 file".
    var unreadableFileAdvice: String { get }
    /// Runs the line's checks of every page's HMAC (`PRAGMA
    /// cipher_integrity_check`): nil where the line has none, else the
    /// problems found (none when every page is intact).
    func cipherIntegrityCheck(_ db: Database) throws -> [String]?
}

extension SQLCipherLine {
    /// The KDF a connection with these settings uses for a passphrase.
    func keyDerivation(for settings: CipherSettings) -> KeyDerivation.Parameters {
        let resolved = settings.resolved(over: defaults)
        return KeyDerivation.Parameters(algorithm: resolved.kdfAlgorithm ?? .sha1,
                                        iterations: resolved.kdfIterations ?? 64000)
    }

    /// The settings a new file keyed with a passphrase gets: `settings`
    /// with the recommended iteration count
    /// (``KeyDerivationStrength/recommendedIterations(for:)``) when they
    /// name neither a `kdf_iter` nor a compatibility level and the line's
    /// default for them is below the guidance; nil when they need no
    /// change (SQLCipher 4's defaults, or an explicit count).
    func strengthened(_ settings: CipherSettings) -> CipherSettings? {
        guard settings.kdfIterations == nil, settings.compatibility == nil else { return nil }
        let strength = KeyDerivationStrength(settings.resolved(over: defaults))
        guard strength.isWeak else { return nil }
        var strong = settings
        strong.kdfIterations = KeyDerivationStrength.recommendedIterations(for: strength.algorithm)
        return strong
    }

    /// The warning for a new file keyed with a passphrase whose settings
    /// give a KDF below the guidance (an explicit lower count, or an old
    /// compatibility level); nil when it meets the guidance.
    func weakKeyDerivationWarning(for settings: CipherSettings, path: String) -> String? {
        let strength = KeyDerivationStrength(settings.resolved(over: defaults))
        guard strength.isWeak else { return nil }
        let recommended = KeyDerivationStrength.recommendedIterations(for: strength.algorithm)
        return """
            \(path) is made with a weak key derivation (\(strength)): give no kdf_iter to get \
            \(KeyDerivationStrength.grouped(recommended)), or use a raw key
            """
    }

    /// What the open tries, in order, when the configuration's settings do
    /// not read a file: with no settings at all, the line's older formats
    /// with HMAC (cheapest first), SQLCipher 3's format with 1,300,000
    /// iterations (what SecureStore gives new files on SQLCipher 3.4.x),
    /// then SQLCipher 1's;
    /// with settings that name no iteration count, the same settings with
    /// the count SecureStore gives new files.
    func fallbackFormats(for settings: CipherSettings) -> [CipherSettings] {
        guard settings.isEmpty else { return strengthened(settings).map { [$0] } ?? [] }
        // SQLCipher 1's format, without HMAC, comes last: once a connection
        // has read a page without HMAC, SQLCipher keeps that page layout.
        let formats = olderFormats.filter { $0 >= 2 }.map { CipherSettings(compatibility: $0) }
            + [CipherSettings.strengthenedSQLCipher3]
        return formats + olderFormats.filter { $0 < 2 }.map { CipherSettings(compatibility: $0) }
    }

    /// The settings both lines report after the key (`kdf_iter`,
    /// `cipher_page_size`, `cipher_use_hmac`), and `PRAGMA name` of others.
    func readSettings(_ db: Database) throws -> (settings: CipherSettings, pragma: (String) throws -> String?) {
        let pragma = { (name: String) in try String.fetchOne(db, sql: "PRAGMA \(name)") }
        let settings = CipherSettings(pageSize: try pragma("cipher_page_size").flatMap { Int($0) },
                                      kdfIterations: try pragma("kdf_iter").flatMap { Int($0) },
                                      usesHMAC: try pragma("cipher_use_hmac").map { $0 == "1" })
        return (settings, pragma)
    }

    /// Throws an error naming the SQLCipher version a feature needs, when
    /// this library is older: `PRAGMA cipher_log needs SQLCipher 4.0 or
    /// later; this library is SQLCipher 3.4.1`.
    func require(_ feature: String, since required: Int) throws {
        guard majorVersion < required else { return }
        throw SQLCipherLibrary.missingFeatureError(feature, since: "\(required).0", version: version)
    }
}

/// The SQLCipher library this process runs on, found once at run time from
/// `PRAGMA cipher_version` (never from the header SecureStore was built
/// with: the same build runs on the library the system has).
///
/// ```swift
/// SQLCipherLibrary.version        // "4.6.1 community"
/// SQLCipherLibrary.majorVersion   // 4
/// ```
public enum SQLCipherLibrary {
    /// The line of the running library.
    static let line: any SQLCipherLine = {
        let facts = SQLCipherProcess.start()
        return facts.majorVersion >= 4 ? SQLCipher4Line(version: facts.version) : SQLCipher3Line(version: facts.version)
    }()

    /// `PRAGMA cipher_version` of the running library, such as `3.4.1` or
    /// `4.6.1 community`.
    public static var version: String { line.version }

    /// The major version of the running library: 3 or 4.
    public static var majorVersion: Int { line.majorVersion }

    /// The error of a feature the running SQLCipher lacks.
    static func missingFeatureError(_ feature: String, since required: String, version: String) -> DatabaseError {
        DatabaseError(resultCode: .SQLITE_MISUSE,
                      message: "\(feature) needs SQLCipher \(required) or later; this library is SQLCipher \(version)")
    }
}
