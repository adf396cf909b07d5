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
