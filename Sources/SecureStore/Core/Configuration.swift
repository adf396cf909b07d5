import Foundation

/// How connections are opened: keying, foreign keys, read-only access,
/// busy handling.
///
/// ```swift
/// var config = Configuration()
/// config.prepareDatabase { db in
///     try db.usePassphrase("secret")
/// }
/// let dbQueue = try DatabaseQueue(path: "/path/to/db.sqlite", configuration: config)
/// ```
public struct Configuration: Sendable {
    /// Whether foreign key constraints are enforced. Default true.
    public var foreignKeysEnabled = true

    /// Opens the file read-only. Default false.
    public var readonly = false

    /// A label for the connection, shown in its description.
    public var label: String?

    /// Whether statement arguments appear in error descriptions. Default
    /// false: arguments may be secrets.
    public var publicStatementArguments = false

    /// What happens when another connection holds a lock.
    public var busyMode: Database.BusyMode = .immediateError

    /// The largest number of reader connections of a pool.
    public var maximumReaderCount = 5

    /// SQLCipher settings that differ from SQLCipher 3's defaults. They are
    /// applied right after the key, on every connection: a file made with
    /// non-default settings can only be read with the same ones.
    public var cipherSettings = CipherSettings()

    var setups: [@Sendable (Database) throws -> Void] = []

    /// Set by DatabasePool: keys derived once for all its connections.
    var keyCache: DerivedKeyCache?

    public init() {}

    /// Adds a function that runs on every new connection, before the first
    /// read: this is where the key is given.
    ///
    /// ```swift
    /// config.prepareDatabase { db in
    ///     try db.usePassphrase(passphrase)
    /// }
    /// ```
    public mutating func prepareDatabase(_ setup: @escaping @Sendable (Database) throws -> Void) {
        setups.append(setup)
    }
}

extension Database {
    /// Called with the number of earlier attempts; return true to try again.
    public typealias BusyCallback = @Sendable (_ numberOfTries: Int) -> Bool

    /// What a connection does when the file is locked by another one.
    public enum BusyMode: Sendable {
        /// Fail at once with `SQLITE_BUSY`.
        case immediateError
        /// Retry for up to this many seconds, then fail with `SQLITE_BUSY`.
        case timeout(TimeInterval)
        /// Ask the callback whether to retry.
        case callback(BusyCallback)
    }
}

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

    public init(pageSize: Int? = nil, kdfIterations: Int? = nil, usesHMAC: Bool? = nil) {
        self.pageSize = pageSize
        self.kdfIterations = kdfIterations
        self.usesHMAC = usesHMAC
    }

    /// SQLCipher 3's defaults: page 1024, kdf_iter 64000, HMAC on.
    public static let sqlcipher3Defaults = CipherSettings(pageSize: 1024, kdfIterations: 64000, usesHMAC: true)

    /// `kdf_iter 64000, cipher_page_size 1024, HMAC on`.
    public var description: String {
        let defaults = CipherSettings.sqlcipher3Defaults
        let iterations = kdfIterations ?? defaults.kdfIterations ?? 0
        let page = pageSize ?? defaults.pageSize ?? 0
        return "kdf_iter \(iterations), cipher_page_size \(page), HMAC \((usesHMAC ?? true) ? "on" : "off")"
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
        return pragmas
    }
}
