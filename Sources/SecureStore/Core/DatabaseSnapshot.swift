import Foundation

/// A read-only view of a pool's database as it was when the snapshot was
/// made: later writes of the pool are not seen, however many reads follow.
///
/// ```swift
/// let snapshot = try dbPool.makeSnapshot()
/// try dbPool.write { db in try db.execute(sql: "DELETE FROM player") }
/// let count = try snapshot.read { db in try Player.fetchCount(db) }   // the players before the delete
/// ```
///
/// A snapshot is a connection of its own that keeps one read transaction
/// open until it is closed or released, on the same encrypted file and with
/// the pool's key. While it lives, checkpoints of the pool's WAL cannot go
/// past it: release snapshots you no longer need.
///
/// ## Topics
///
/// ### Making a snapshot
///
/// - ``DatabasePool/makeSnapshot()``
///
/// ### Reading
///
/// - ``asyncRead(_:)``
/// - ``close()``
public final class DatabaseSnapshot: DatabaseSnapshotReader {
    private let reader: SerializedDatabase

    /// The configuration of the snapshot's connection (read-only).
    public var configuration: Configuration { reader.configuration }

    /// The path of the database file.
    public var path: String { reader.path }

    init(path: String, configuration: Configuration, label: String) throws {
        var configuration = configuration
        configuration.readonly = true
        configuration.maximumReaderCount = 1
        // The snapshot is a transaction that stays open between accesses.
        configuration.allowsUnsafeTransactions = true
        reader = try SerializedDatabase(path: path, configuration: configuration, label: label)
        try reader.sync { db in
            try db.beginTransaction(.deferred)
            // A deferred transaction sees the database from its first read.
            _ = try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master LIMIT 1")
        }
    }

    deinit {
        reader.reentrantSync { db in
            guard !db.isClosed, db.isInsideTransaction else { return }
            do { try db.commit() } catch { try? db.rollback() }
        }
    }

    /// Closes the snapshot's connection; later reads throw.
    public func close() throws {
        try reader.close()
    }

    /// Stops the statements that run now on the snapshot (see
    /// ``DatabaseReader/interrupt()``).
    public func interrupt() {
        reader.interrupt()
    }

    /// Runs `value` on the snapshot and returns its result.
    public func read<T>(_ value: (Database) throws -> T) throws -> T {
        try reader.sync(value)
    }

    /// Async version of `read(_:)`.
    public func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await reader.execute(value)
    }

    /// The same as `read(_:)`: a snapshot has no unsafe access.
    public func unsafeRead<T>(_ value: (Database) throws -> T) throws -> T { try read(value) }

    /// The same as the async `read(_:)`.
    public func unsafeRead<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T { try await read(value) }

    /// Like `read(_:)`, and allowed inside another access of the snapshot.
    public func unsafeReentrantRead<T>(_ value: (Database) throws -> T) throws -> T {
        try reader.reentrantSync(value)
    }

    /// Runs `value` later on the snapshot.
    public func asyncRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        reader.async(value)
    }

    /// The same as ``asyncRead(_:)``.
    public func asyncUnsafeRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) { asyncRead(value) }

    /// Starts a ``ValueObservation`` on the snapshot: it delivers one value,
    /// since the snapshot never changes.
    public func _add<Reducer: ValueReducer>(
        observation: ValueObservation<Reducer>,
        scheduling scheduler: some ValueObservationScheduler,
        onChange: @escaping @Sendable (Reducer.Value) -> Void
    ) -> AnyDatabaseCancellable {
        _addReadOnly(observation: observation, scheduling: scheduler, onChange: onChange)
    }
}
