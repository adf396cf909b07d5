import Foundation

/// A single connection to a database file, shared safely by threads and
/// tasks: accesses run one after the other.
///
/// ```swift
/// var config = Configuration()
/// config.prepareDatabase { db in try db.usePassphrase("secret") }
/// let dbQueue = try DatabaseQueue(path: "/path/to/db.sqlite", configuration: config)
///
/// try dbQueue.write { db in
///     try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT)")
/// }
/// let count = try await dbQueue.read { db in
///     try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player")
/// }
/// ```
public final class DatabaseQueue: DatabaseWriter {
    private let serialized: SerializedDatabase
    /// With ``Configuration/observesSuspensionNotifications``.
    private let suspensionObserver: SuspensionObserver?

    /// The configuration the database was opened with.
    public var configuration: Configuration { serialized.configuration }
    /// The path of the database file.
    public var path: String { serialized.path }

    /// Opens (or creates) the database file at `path`. Throws if the
    /// configuration's `prepareDatabase` throws, or if the file cannot be
    /// read with the given key (`SQLITE_NOTADB`).
    public init(path: String, configuration: Configuration = Configuration()) throws {
        serialized = try SerializedDatabase(
            path: path, configuration: configuration,
            label: configuration.label ?? "SecureStore.DatabaseQueue")
        if case .wal = configuration.journalMode, !configuration.readonly, path != ":memory:" {
            try serialized.sync { db in try db.setUpWALMode() }
        }
        suspensionObserver = .observing(serialized, if: configuration)
    }

    /// Suspends the database, as ``Database/suspendNotification`` does.
    func suspend() {
        serialized.suspend()
    }

    /// Resumes the database.
    func resume() {
        serialized.resume()
    }

    /// An in-memory database, gone when the last queue on it is released.
    ///
    /// Without a name, the database is the queue's own. With one, it is
    /// shared by the queues of the process opened with that name (SQLite's
    /// `file:name?mode=memory&cache=shared`), as long as one is alive.
    ///
    /// ```swift
    /// let writer = try DatabaseQueue(named: "fixtures")
    /// let reader = try DatabaseQueue(named: "fixtures")   // the same database
    /// ```
    ///
    /// SQLCipher does not encrypt memory: a key keeps no page from being
    /// plaintext here (SQLCipher 4 still wants one on a destination of
    /// ``Database/backup(to:pagesPerStep:progress:)`` from an encrypted file).
    public convenience init(named name: String? = nil, configuration: Configuration = Configuration()) throws {
        try self.init(path: name.map { "file:\($0)?mode=memory&cache=shared" } ?? ":memory:", configuration: configuration)
    }

    /// Closes the connections; a later access throws.
    public func close() throws {
        try serialized.close()
    }

    // MARK: Reading

    /// Runs `value` in a read-only transaction: its statements see one
    /// state of the database, whatever another connection commits meanwhile.
    public func read<T>(_ value: (Database) throws -> T) throws -> T {
        try serialized.sync { db in try db.isolatedRead { try value(db) } }
    }

    /// Async version of ``read(_:)``: runs `value` in a read-only transaction, off the caller's thread.
    public func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await serialized.execute { db in try db.isolatedRead { try value(db) } }
    }

    /// Runs `value` without a transaction: two reads in it may see different states of the database.
    public func unsafeRead<T>(_ value: (Database) throws -> T) throws -> T {
        try serialized.sync(value)
    }

    /// Async version of `unsafeRead(_:)`.
    public func unsafeRead<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await serialized.execute(value)
    }

    /// Like `unsafeRead(_:)`, and allowed inside another access of this database.
    public func unsafeReentrantRead<T>(_ value: (Database) throws -> T) throws -> T {
        try serialized.reentrantSync(value)
    }

    // MARK: Writing

    /// Runs `updates` with exclusive access, outside of any transaction.
    public func inDatabase<T>(_ updates: (Database) throws -> T) rethrows -> T {
        try serialized.syncRethrowing(updates)
    }

    /// Runs `updates` in a transaction that commits or rolls back as it
    /// says; an error rolls it back and is rethrown.
    ///
    /// ```swift
    /// try dbQueue.inTransaction { db in
    ///     try db.execute(sql: "DELETE FROM player")
    ///     return .commit
    /// }
    /// ```
    public func inTransaction(
        _ kind: Database.TransactionKind? = nil,
        _ updates: (Database) throws -> Database.TransactionCompletion
    ) throws {
        try serialized.sync { db in try db.inTransaction(kind) { try updates(db) } }
    }

    /// Runs `updates` with write access, outside of any transaction (open one yourself if you need it).
    public func writeWithoutTransaction<T>(_ updates: (Database) throws -> T) rethrows -> T {
        try serialized.syncRethrowing(updates)
    }

    /// Async version of ``writeWithoutTransaction(_:)``.
    public func writeWithoutTransaction<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await serialized.execute(updates)
    }

    /// With a single connection every write is already a barrier.
    public func barrierWriteWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T {
        try serialized.sync(updates)
    }

    /// Async version of ``barrierWriteWithoutTransaction(_:)``.
    public func barrierWriteWithoutTransaction<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await serialized.execute(updates)
    }

    /// Frees the memory SQLite can do without (``Database/releaseMemory()``),
    /// after the accesses that run now.
    public func releaseMemory() {
        serialized.releaseMemory()
    }

    /// Stops the statements running on the connection (see
    /// ``DatabaseReader/interrupt()``).
    public func interrupt() {
        serialized.interrupt()
    }

    /// Runs `updates` with write access, inside another access of this database too.
    public func unsafeReentrantWrite<T>(_ updates: (Database) throws -> T) rethrows -> T {
        try serialized.reentrantSync(updates)
    }

    /// Runs `value` later in a read-only transaction; it gets the connection, or the error that prevented the read.
    public func asyncRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        serialized.async { result in
            result.deliver(isolatedBy: { db, body in
                try db.isolatedRead(body)
            }, to: value)
        }
    }

    /// Runs `value` later, without a transaction.
    public func asyncUnsafeRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        serialized.async(value)
    }

    /// Runs `updates` later with write access, outside of any transaction.
    public func asyncWriteWithoutTransaction(_ updates: @escaping @Sendable (Database) -> Void) {
        serialized.async { result in if case .success(let db) = result { updates(db) } }
    }

    /// Runs `updates` later, once every other access has finished.
    public func asyncBarrierWriteWithoutTransaction(_ updates: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        serialized.async(updates)
    }

    /// Starts an observation; ``ValueObservation/start(in:scheduling:onError:onChange:)`` calls it.
    public func _add<Reducer: ValueReducer>(
        observation: ValueObservation<Reducer>,
        scheduling scheduler: some ValueObservationScheduler,
        onChange: @escaping @Sendable (Reducer.Value) -> Void
    ) -> AnyDatabaseCancellable {
        return ValueObserver.start(observation, writer: self, serialized: serialized, concurrentRead: nil,
                                   scheduler: scheduler, onChange: onChange)
    }
}
