import Dispatch
import Foundation
import Synchronization

/// A database in WAL mode with one writer connection and several reader
/// connections: reads run concurrently with each other and with writes,
/// each seeing a consistent snapshot.
///
/// ```swift
/// var config = Configuration()
/// config.prepareDatabase { db in try db.usePassphrase("secret") }
/// let dbPool = try DatabasePool(path: "/path/to/db.sqlite", configuration: config)
/// try dbPool.write { db in try db.execute(sql: "INSERT INTO player ...") }
/// let count = try await dbPool.read { db in try Player.fetchCount(db) }
/// ```
///
/// The passphrase's key derivation (PBKDF2, about 40 ms) is paid once per
/// pool: the other connections are keyed with the derived raw key.
public final class DatabasePool: DatabaseWriter {
    private let writer: SerializedDatabase
    private let readers: ReaderPool
    /// The configuration of readers and snapshots.
    private let readerConfiguration: Configuration
    /// How many snapshots the pool made, for their labels.
    private let snapshotCount = Atomic<Int>(0)
    private let keyCache: DerivedKeyCache
    /// With ``Configuration/observesSuspensionNotifications``: suspends the
    /// writer (readers of a WAL file take no lock a writer waits on).
    private let suspensionObserver: SuspensionObserver?

    /// The configuration the database was opened with.
    public var configuration: Configuration { writer.configuration }
    /// The path of the database file.
    public var path: String { writer.path }

    /// Opens (or creates) the database and switches it to WAL mode.
    public init(path: String, configuration: Configuration = Configuration()) throws {
        var config = configuration
        let cache = DerivedKeyCache()
        config.keyCache = cache
        // Waiting briefly for a checkpoint beats failing with SQLITE_BUSY.
        if case .immediateError = config.busyMode { config.busyMode = .timeout(5) }
        keyCache = cache
        writer = try SerializedDatabase(path: path, configuration: config,
                                        label: (configuration.label ?? "SecureStore.DatabasePool") + ".writer")
        // A read-only pool cannot change the journal mode: it reads the
        // file in the mode it is in.
        if !configuration.readonly {
            try writer.sync { db in
                try db.setUpWALMode()
                // An empty write transaction creates the -wal and -shm
                // files now, as GRDB's pools do, rather than at the first
                // write or read.
                try db.execute(sql: "BEGIN IMMEDIATE TRANSACTION; COMMIT TRANSACTION")
            }
        }
        var readerConfig = config
        readerConfig.readonly = true
        // The writer holds the file's lock: no replacement happens meanwhile.
        readerConfig.expectedFile = FileIdentity(path: path)
        if let mode = configuration.readonlyBusyMode { readerConfig.busyMode = mode }
        readerConfiguration = readerConfig
        readers = ReaderPool(path: path, configuration: readerConfig,
                             maximumCount: max(1, configuration.maximumReaderCount),
                             label: (configuration.label ?? "SecureStore.DatabasePool") + ".reader")
        suspensionObserver = .observing(writer, if: configuration)
    }

    /// Suspends the writer, as ``Database/suspendNotification`` does.
    func suspend() {
        writer.suspend()
    }

    /// Resumes the writer.
    func resume() {
        writer.resume()
    }

    /// How many times the pool derived a key from a passphrase (for tests
    /// and the benchmark: 1 for a pool of any size on an existing file).
    var keyDerivationCount: Int { keyCache.derivationCount }

    /// Closes the connections; a later access throws.
    public func close() throws {
        try readers.close()
        try writer.close()
    }

    // MARK: Snapshots

    /// A ``DatabaseSnapshot`` of the database as it is now (the last
    /// commit): its reads never see later writes.
    ///
    /// ```swift
    /// let snapshot = try dbPool.makeSnapshot()
    /// let players = try snapshot.read { db in try Player.fetchAll(db) }
    /// ```
    ///
    /// Calling it inside a transaction of the pool's writer stops the
    /// program, as in GRDB: the snapshot could not see that transaction.
    public func makeSnapshot() throws -> DatabaseSnapshot {
        writer.preconditionNotInsideTransactionWhenOnQueue("makeSnapshot() must not be called from inside a transaction.")
        let number = snapshotCount.add(1, ordering: .relaxed).newValue
        return try DatabaseSnapshot(path: path, configuration: readerConfiguration,
                                    label: (configuration.label ?? "SecureStore.DatabasePool") + ".snapshot.\(number)")
    }

    // MARK: Reading

    /// Runs `value` in a read-only transaction on a reader connection: it
    /// sees the database as of its start, whatever writes happen meanwhile.
    public func read<T>(_ value: (Database) throws -> T) throws -> T {
        try readers.withReader { reader in
            try reader.sync { db in try Self.isolatedRead(db, value) }
        }
    }

    /// Async version of ``read(_:)``: runs `value` in a read-only transaction, off the caller's thread.
    public func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await readers.withReader { reader, cancellation in
            try await reader.execute(cancellation) { db in try Self.isolatedRead(db, value) }
        }
    }

    /// Runs `value` without a transaction: two reads in it may see different states of the database.
    public func unsafeRead<T>(_ value: (Database) throws -> T) throws -> T {
        try readers.withReader { reader in try reader.sync(value) }
    }

    /// Like `unsafeRead(_:)`, and allowed inside another access of this database.
    /// Inside an access of the pool, it runs on that access's connection
    /// (the writer's, or a reader's), as in GRDB.
    public func unsafeReentrantRead<T>(_ value: (Database) throws -> T) throws -> T {
        if writer.isOnQueue { return try writer.reentrantSync(value) }
        if let reader = readers.readerOnCurrentQueue() { return try reader.reentrantSync(value) }
        return try readers.withReader { reader in try reader.reentrantSync(value) }
    }

    /// Async version of `unsafeRead(_:)`.
    public func unsafeRead<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await readers.withReader { reader, cancellation in
            try await reader.execute(cancellation, value)
        }
    }

    /// Runs `value` later on a reader, outside any transaction (it opens
    /// its own, whose snapshot is taken at its first read). Called from the
    /// writer's queue, it returns at once, even when every reader is busy:
    /// how observations fetch without blocking writes.
    ///
    /// Returns false, and runs nothing, during a barrier write (readers
    /// are held by the barrier): the caller reads on the writer instead.
    func observationRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) -> Bool {
        guard !readers.isExclusive else { return false }
        let readers = self.readers
        DispatchQueue.global().async { readers.asyncWithReader(value) }
        return true
    }

    /// Runs `value` later on a reader, in a read-only transaction that sees
    /// the database as it is when this method returns, as GRDB's does.
    ///
    /// Call it from a write access, outside of a transaction: it waits for
    /// a reader to take its snapshot (later writes of the access are not
    /// seen), and the write goes on while `value` reads.
    ///
    /// ```swift
    /// try dbPool.writeWithoutTransaction { db in
    ///     try db.execute(sql: "INSERT INTO player (name, score) VALUES ('Arthur', 100)")
    ///     dbPool.asyncConcurrentRead { dbResult in
    ///         let count = try? Player.fetchCount(dbResult.get())   // counts Arthur
    ///     }
    ///     try db.execute(sql: "DELETE FROM player")              // not seen by the read
    /// }
    /// ```
    public func asyncConcurrentRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        precondition(writer.isOnQueue, "asyncConcurrentRead must be called from inside a write access of the pool.")
        writer.preconditionNotInsideTransactionWhenOnQueue("asyncConcurrentRead must not be called from inside a transaction.")
        readers.concurrentRead(value)
    }

    /// A queue's isolated read, with its snapshot taken at once (a deferred
    /// transaction takes it at the first read).
    private static func isolatedRead<T>(_ db: Database, _ value: (Database) throws -> T) throws -> T {
        try db.isolatedRead {
            _ = try Int.fetchOne(db, sql: "SELECT 1 FROM sqlite_master LIMIT 1")
            return try value(db)
        }
    }

    // MARK: Writing

    /// Runs `updates` in a transaction that commits or rolls back as it
    /// says; an error rolls it back and is rethrown.
    public func writeInTransaction(
        _ kind: Database.TransactionKind? = nil,
        _ updates: (Database) throws -> Database.TransactionCompletion
    ) throws {
        try writer.sync { db in try db.inTransaction(kind) { try updates(db) } }
    }

    /// Runs `updates` with write access, outside of any transaction (open one yourself if you need it).
    public func writeWithoutTransaction<T>(_ updates: (Database) throws -> T) rethrows -> T {
        try writer.syncRethrowing(updates)
    }

    /// Async version of ``writeWithoutTransaction(_:)``.
    public func writeWithoutTransaction<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await writer.execute(updates)
    }

    /// Frees the memory SQLite can do without (``Database/releaseMemory()``)
    /// on the writer and on every idle reader, and closes the idle readers
    /// (a new read opens one again) unless
    /// ``Configuration/persistentReadOnlyConnections`` keeps them.
    public func releaseMemory() {
        writer.releaseMemory()
        if configuration.persistentReadOnlyConnections {
            readers.releaseMemoryOfIdleReaders()
        } else {
            try? readers.closeAll()
        }
    }

    /// Like ``releaseMemory()``, without waiting for the readers in use:
    /// those are left as they are.
    public func releaseMemoryEventually() {
        releaseMemory()
    }

    /// Closes the reader connections: the idle ones now, the ones in use
    /// when their read ends. The next reads open new connections, which run
    /// ``Configuration/prepareDatabase(_:)`` again. Call it after changing
    /// the passphrase, as GRDB documents:
    ///
    /// ```swift
    /// try dbPool.barrierWriteWithoutTransaction { db in
    ///     try db.changePassphrase("new secret")
    ///     dbPool.invalidateReadOnlyConnections()
    /// }
    /// ```
    public func invalidateReadOnlyConnections() {
        readers.invalidateAll()
    }

    /// Stops the statements running on the writer and on every reader in
    /// use (see ``DatabaseReader/interrupt()``).
    public func interrupt() {
        writer.interrupt()
        readers.interruptAll()
    }

    /// Waits for every read to finish and blocks new ones while `updates` runs.
    public func barrierWriteWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T {
        try readers.exclusively { try writer.sync(updates) }
    }

    /// Async version of ``barrierWriteWithoutTransaction(_:)``.
    public func barrierWriteWithoutTransaction<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let writer = self.writer
        return try await withAccessCancellation { cancellation in
            try await readers.exclusively { try await writer.execute(cancellation, updates) }
        }
    }

    /// Runs `updates` with write access, inside another access of this database too.
    public func unsafeReentrantWrite<T>(_ updates: (Database) throws -> T) rethrows -> T {
        try writer.reentrantSync(updates)
    }

    /// Runs `value` later in a read-only transaction; it gets the connection, or the error that prevented the read.
    public func asyncRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        readers.asyncWithReader { result in
            result.deliver(isolatedBy: { db, body in try Self.isolatedRead(db) { _ in try body() } }, to: value)
        }
    }

    /// Runs `value` later, without a transaction.
    public func asyncUnsafeRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        readers.asyncWithReader(value)
    }

    /// Runs `updates` later with write access, outside of any transaction.
    public func asyncWriteWithoutTransaction(_ updates: @escaping @Sendable (Database) -> Void) {
        writer.async { result in if case .success(let db) = result { updates(db) } }
    }

    /// Runs `updates` later, once every other access has finished.
    public func asyncBarrierWriteWithoutTransaction(_ updates: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        let readers = self.readers, writer = self.writer
        DispatchQueue.global().async {
            do {
                try readers.exclusively { try writer.sync { db in updates(.success(db)) } }
            } catch {
                updates(.failure(error))
            }
        }
    }

    /// Starts an observation; ``ValueObservation/start(in:scheduling:onError:onChange:)`` calls it.
    public func _add<Reducer: ValueReducer>(
        observation: ValueObservation<Reducer>,
        scheduling scheduler: some ValueObservationScheduler,
        onChange: @escaping @Sendable (Reducer.Value) -> Void
    ) -> AnyDatabaseCancellable {
        let concurrentRead: ((@escaping @Sendable (Result<Database, any Error>) -> Void) -> Bool)? =
            observation.requiresWriteAccess ? nil : { [weak self] read in
                self?.observationRead(read) ?? false
            }
        return ValueObserver.start(observation, writer: self, serialized: writer, concurrentRead: concurrentRead,
                                   scheduler: scheduler, onChange: onChange)
    }

    // MARK: Keys

    /// Re-encrypts the database with a new passphrase. Reads in progress
    /// finish first and new ones wait; reader connections are then reopened
    /// with the new key, so none reads with a stale one.
    ///
    /// The pool's `prepareDatabase` may keep giving the old passphrase: the
    /// pool keys its connections with the new one. Store the new passphrase
    /// for the next launch.
    public func changePassphrase(_ passphrase: String) throws {
        let new = SecretBytes(passphrase.utf8)
        try readers.exclusively {
            try readers.closeAll()
            try writer.sync { db in
                // Fold the WAL into the main file so every page is rekeyed.
                try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
                try db.changePassphrase(new)
                try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            }
            if let old = try writer.sync({ db in db.lastPassphrase }) {
                keyCache.replace(old, with: new)
            }
        }
    }
}

/// Reader connections, created on demand up to a maximum.
///
/// `@unchecked Sendable`: `idle` is behind `lock`; the semaphore bounds the
/// readers in use.
final class ReaderPool: @unchecked Sendable {
    private let path: String
    private let configuration: Configuration
    private let maximumCount: Int
    private let label: String
    private let permits: DispatchSemaphore
    private let lock = NSLock()
    private var idle: [SerializedDatabase] = []

    init(path: String, configuration: Configuration, maximumCount: Int, label: String) {
        self.path = path
        self.configuration = configuration
        self.maximumCount = maximumCount
        self.label = label
        permits = DispatchSemaphore(value: maximumCount)
    }

    /// The readers in use, for `interruptAll`.
    private var inUse: [ObjectIdentifier: SerializedDatabase] = [:]

    /// How many readers the pool opened, for their labels (`reader.1`, ...).
    private var readerCount = 0

    /// True once the pool is closed: no reader opens any more.
    private var isClosed = false

    /// An idle reader, or a new one; in use until `giveBack`.
    private func take() throws -> SerializedDatabase {
        let idleReader = try lock.withLock { () -> SerializedDatabase? in
            if isClosed { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "Connection is closed") }
            return idle.popLast()
        }
        let reader = try idleReader ?? SerializedDatabase(path: path, configuration: configuration,
                                                          label: label + ".\(lock.withLock { readerCount += 1; return readerCount })")
        lock.withLock { inUse[ObjectIdentifier(reader)] = reader }
        return reader
    }

    private func giveBack(_ reader: SerializedDatabase) {
        let isStale = lock.withLock { () -> Bool in
            inUse[ObjectIdentifier(reader)] = nil
            if stale.remove(ObjectIdentifier(reader)) != nil { return true }
            idle.append(reader)
            return false
        }
        if isStale { try? reader.close() }
    }

    /// The readers in use when ``invalidateAll()`` ran: closed when given back.
    private var stale: Set<ObjectIdentifier> = []

    /// Closes the idle readers now and the readers in use when their read
    /// ends; new reads open new readers.
    func invalidateAll() {
        let closing = lock.withLock { () -> [SerializedDatabase] in
            stale.formUnion(inUse.keys)
            defer { idle.removeAll() }
            return idle
        }
        for reader in closing { try? reader.close() }
    }

    /// The reader in use whose queue runs the caller, if any.
    func readerOnCurrentQueue() -> SerializedDatabase? {
        lock.withLock { inUse.values.first { $0.isOnQueue } }
    }

    /// Interrupts the statements of the readers in use.
    func interruptAll() {
        for reader in lock.withLock({ Array(inUse.values) }) { reader.interrupt() }
    }

    func withReader<T>(_ body: (SerializedDatabase) throws -> T) throws -> T {
        permits.wait()
        defer { permits.signal() }
        let reader = try take()
        defer { giveBack(reader) }
        return try body(reader)
    }

    /// Takes a reader now (waiting for one), starts a read transaction on
    /// it and takes its snapshot, then runs `body` later on the reader
    /// inside that transaction, which ends after it.
    func concurrentRead(_ body: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        asyncWithReader(prepare: { db in
            try db.beginTransaction(.deferred)
            do {
                _ = try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master LIMIT 1")
            } catch {
                try? db.rollback()
                throw error
            }
        }, { result in
            body(result)
            if case .success(let db) = result, db.isInsideTransaction {
                db.uncancellable {
                    do { try db.commit() } catch { try? db.rollback() }
                }
            }
        })
    }

    /// Runs `body` later on a reader, which is in use until `body` returns.
    /// `prepare` runs on the reader first, before this method returns.
    func asyncWithReader(
        prepare: ((Database) throws -> Void)? = nil,
        _ body: @escaping @Sendable (Result<Database, any Error>) -> Void
    ) {
        permits.wait()
        let reader: SerializedDatabase
        do {
            reader = try take()
        } catch {
            permits.signal()
            return body(.failure(error))
        }
        let prepared = Result { if let prepare { try reader.sync(prepare) } }
        reader.async { result in
            body(prepared.flatMap { result })
            self.giveBack(reader)
            self.permits.signal()
        }
    }

    /// Waits for `count` permits on a thread of its own: an async access
    /// does not block its task's thread while every reader is busy.
    private func acquire(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                self.acquireNow(count)
                continuation.resume()
            }
        }
    }

    /// Takes `count` permits. Several at once are taken by one caller at
    /// a time: two callers holding some each would wait for each other.
    private func acquireNow(_ count: Int) {
        if count == 1 { return permits.wait() }
        exclusiveGate.wait()
        for _ in 0..<count { permits.wait() }
        exclusiveGate.signal()
    }

    private let exclusiveGate = DispatchSemaphore(value: 1)

    /// Runs `body`, an async access that `cancellation` follows, on a
    /// reader; a task cancelled already throws `CancellationError`.
    func withReader<T: Sendable>(_ body: (SerializedDatabase, AccessCancellation) async throws -> T) async throws -> T {
        try await withAccessCancellation { cancellation in
            await acquire(1)
            defer { permits.signal() }
            let reader = try take()
            defer { giveBack(reader) }
            return try await body(reader, cancellation)
        }
    }

    /// Async version of `exclusively`.
    func exclusively<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await acquire(maximumCount)
        lock.withLock { exclusiveDepth += 1 }
        defer {
            lock.withLock { exclusiveDepth -= 1 }
            for _ in 0..<maximumCount { permits.signal() }
        }
        return try await body()
    }

    /// Runs `body` while no reader is in use and none can start.
    func exclusively<T>(_ body: () throws -> T) throws -> T {
        acquireNow(maximumCount)
        lock.withLock { exclusiveDepth += 1 }
        defer {
            lock.withLock { exclusiveDepth -= 1 }
            for _ in 0..<maximumCount { permits.signal() }
        }
        return try body()
    }

    private var exclusiveDepth = 0

    /// True while `exclusively` runs.
    var isExclusive: Bool { lock.withLock { exclusiveDepth > 0 } }

    /// Closes the idle readers for good: later reads throw SQLITE_MISUSE.
    func close() throws {
        lock.withLock { isClosed = true }
        try closeAll()
    }

    /// Closes the idle readers; new reads open new ones.
    /// Frees the memory of the idle readers, which stay open.
    func releaseMemoryOfIdleReaders() {
        for reader in lock.withLock({ idle }) { reader.releaseMemory() }
    }

    func closeAll() throws {
        let closing = lock.withLock { () -> [SerializedDatabase] in
            defer { idle.removeAll() }
            return idle
        }
        for reader in closing { try reader.close() }
    }
}
