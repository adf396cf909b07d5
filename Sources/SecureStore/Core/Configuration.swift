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

    /// Where ``Database/transactionDate`` comes from: the system clock by
    /// default, `.custom { db in ... }` for a fixed date in tests.
    public var transactionClock: any TransactionClock = .default

    /// How the read-only connections of a pool (its readers and snapshots)
    /// handle SQLITE_BUSY; nil for the pool's default. Internal, as in GRDB.
    var readonlyBusyMode: Database.BusyMode?

    /// The largest number of reader connections of a pool.
    public var maximumReaderCount = 5

    /// The journal mode of a ``DatabaseQueue``: `.wal` switches its file to
    /// WAL mode (with `synchronous = NORMAL`). A ``DatabasePool`` is always
    /// in WAL mode. Default `.default`: SQLite's rollback journal.
    public var journalMode = JournalModeConfiguration.default

    /// The journal modes of ``journalMode``.
    public enum JournalModeConfiguration: Sendable {
        /// SQLite's default, the rollback journal (a pool uses WAL anyway).
        case `default`
        /// Write-ahead logging.
        case wal
    }

    /// The quality of service of the connections' dispatch queues. Default
    /// `.userInitiated`.
    public var qos: DispatchQoS = .userInitiated

    /// The quality of service of read-only connections: the target queue's,
    /// or ``qos``.
    public var readQoS: DispatchQoS { targetQueue?.qos ?? qos }

    /// The quality of service of the writer: the write target queue's, the
    /// target queue's, or ``qos``.
    public var writeQoS: DispatchQoS { writeTargetQueue?.qos ?? targetQueue?.qos ?? qos }

    /// A queue for the connections' dispatch queues to target (serial for a
    /// ``DatabaseQueue``). Default nil.
    public var targetQueue: DispatchQueue?

    /// A queue for the writer's dispatch queue to target, instead of
    /// ``targetQueue``. Default nil.
    public var writeTargetQueue: DispatchQueue?

    /// Whether SQL may quote strings with double quotes (`"text"`), which
    /// SQLite otherwise reads as identifiers. False by default, as in GRDB:
    /// on SQLite 3.29 and later (SQLCipher 4) `SELECT "foo" FROM player`
    /// is then an error ("no such column"). SQLite 3.15.2 (SQLCipher
    /// 3.4.1) always accepts them, whatever this says.
    public var acceptsDoubleQuotedStringLiterals = false

    /// SQLCipher settings that differ from the library's defaults
    /// (``CipherSettings/libraryDefaults``). They are applied right after
    /// the key, on every connection: a file made with non-default settings
    /// can only be read with the same ones. With none, a file that the
    /// defaults do not open is tried in the older formats of the library's
    /// line (see ``Database/cipherSettings``).
    public var cipherSettings = CipherSettings()

    /// Turns on SQLCipher 4's memory security (`PRAGMA
    /// cipher_memory_security = ON`): SQLCipher wipes the memory it frees,
    /// at a cost in speed. It is process-wide and cannot be turned off
    /// again; on SQLCipher 3, which has no such option, opening a
    /// connection throws. Default false, as in SQLCipher 4.5 and later.
    ///
    /// ```swift
    /// var config = Configuration()
    /// config.cipherMemorySecurity = true
    /// ```
    public var cipherMemorySecurity = false

    /// Whether `writeWithoutTransaction` and `inDatabase` may end with a
    /// transaction still open (false: such a call stops the program, as in
    /// GRDB, because the next access would run inside a transaction it did
    /// not start). Pool readers never allow it.
    ///
    /// ```swift
    /// var config = Configuration()
    /// config.allowsUnsafeTransactions = true
    /// try dbQueue.inDatabase { db in try db.beginTransaction() }
    /// try dbQueue.inDatabase { db in try db.commit() }
    /// ```
    public var allowsUnsafeTransactions = false

    /// When true, ``DatabasePool/releaseMemory()`` keeps the pool's idle
    /// reader connections open (it frees their caches only), so that the
    /// next reads do not pay an open (and a key derivation's check) again.
    /// False by default: idle readers are closed.
    public var persistentReadOnlyConnections = false

    /// When true, the queue or pool suspends itself when
    /// ``Database/suspendNotification`` is posted, and resumes on
    /// ``Database/resumeNotification``: while suspended, a statement that
    /// could take a lock fails with `SQLITE_ABORT` ("Database is
    /// suspended"), and the running ones are interrupted. Reads of a WAL
    /// database go on. Use it to keep files still while something copies
    /// them (a snapshot of the volume), as iOS apps do before suspension.
    public var observesSuspensionNotifications = false

    /// What the app knows of the schema that SQLite does not say, such as
    /// the primary keys of views (see ``DatabaseSchemaSource``).
    public var schemaSource: (any DatabaseSchemaSource)?

    var setups: [@Sendable (Database) throws -> Void] = []

    /// Set by DatabasePool: keys derived once for all its connections.
    var keyCache: DerivedKeyCache?

    /// Whether the connection holds SecureStore's read lock on its file
    /// (``DatabaseFileLock``) while it is open: true, but for the
    /// connections of a replacement of the file, which holds the write lock.
    package var takesFileLock = true

    /// The file a connection must open: a pool's readers and snapshots
    /// open the writer's file, or fail with `SQLITE_READONLY_DBMOVED` when
    /// another file took its name since (they would read the new file
    /// through the old one's WAL).
    var expectedFile: FileIdentity?

    /// The seconds a connection waits for a replacement of its file to end
    /// before it opens: its busy timeout.
    var fileLockTimeout: TimeInterval {
        if case .timeout(let seconds) = busyMode { return seconds }
        return 0
    }

    /// A configuration with the defaults.
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

extension Configuration {
    /// Removed in GRDB 7, and absent here: reads use DEFERRED transactions
    /// and writes IMMEDIATE ones.
    @available(*, unavailable, message: "The default transaction kind is now automatically managed.")
    public var defaultTransactionKind: Database.TransactionKind {
        get { .immediate }
        set { _ = newValue }
    }
}
