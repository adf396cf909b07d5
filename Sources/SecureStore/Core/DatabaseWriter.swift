/// A type that gives access to a database for writing.
///
/// ```swift
/// try writer.write { db in
///     try db.execute(sql: "INSERT INTO player (name) VALUES (?)", arguments: ["Arthur"])
/// }
/// ```
public protocol DatabaseWriter: DatabaseReader {
    /// Runs `updates` outside of any transaction, with exclusive access.
    func writeWithoutTransaction<T>(_ updates: (Database) throws -> T) rethrows -> T

    /// Runs `updates` once every other access has finished, with
    /// exclusive access and no transaction.
    func barrierWriteWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T

    /// Async version of ``writeWithoutTransaction(_:)``.
    func writeWithoutTransaction<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T

    /// Async version of ``barrierWriteWithoutTransaction(_:)``.
    func barrierWriteWithoutTransaction<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T

    /// Like ``writeWithoutTransaction(_:)-4ee9n``, and can be called from inside
    /// another access.
    func unsafeReentrantWrite<T>(_ updates: (Database) throws -> T) rethrows -> T

    /// Runs `updates` later, outside of any transaction (nothing runs on a
    /// closed connection).
    func asyncWriteWithoutTransaction(_ updates: @escaping @Sendable (Database) -> Void)

    /// Runs `updates` later, once every other access has finished.
    func asyncBarrierWriteWithoutTransaction(_ updates: @escaping @Sendable (Result<Database, any Error>) -> Void)
}

extension DatabaseWriter {
    /// Runs `updates` in a transaction: everything it does commits
    /// together, or, if it throws, nothing does.
    public func write<T>(_ updates: (Database) throws -> T) throws -> T {
        try writeWithoutTransaction { db in try db.inTransactionReturning(updates) }
    }

    /// Async version of ``write(_:)``.
    public func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await writeWithoutTransaction { db in try db.inTransactionReturning(updates) }
    }
}

extension DatabaseWriter {
    /// Runs `updates` later in a transaction, then `completion` with its
    /// result (on the writer's queue).
    public func asyncWrite<T>(
        _ updates: @escaping @Sendable (Database) throws -> T,
        completion: @escaping @Sendable (Database, Result<T, any Error>) -> Void
    ) {
        asyncWriteWithoutTransaction { db in
            completion(db, Result { try db.inTransactionReturning(updates) })
        }
    }

    /// Registers a transaction observer on the writer connection.
    public func add(transactionObserver: some TransactionObserver & Sendable,
                    extent: Database.TransactionObservationExtent = .observerLifetime) {
        writeWithoutTransaction { db in db.add(transactionObserver: transactionObserver, extent: extent) }
    }

    /// Unregisters a transaction observer.
    public func remove(transactionObserver: some TransactionObserver & Sendable) {
        writeWithoutTransaction { db in db.remove(transactionObserver: transactionObserver) }
    }
}

extension Database {
    /// Runs `updates` in an immediate transaction (deferred on a read-only
    /// connection; immediate: the write lock is taken
    /// at once, so a concurrent writer waits at BEGIN, not at COMMIT) and
    /// returns what it returned.
    func inTransactionReturning<T>(_ updates: (Database) throws -> T) throws -> T {
        var result: T?
        // Immediate, except on a read-only connection (deferred there, as
        // in GRDB: a write access that writes nothing still succeeds).
        try inTransaction(nil) {
            result = try updates(self)
            return .commit
        }
        guard let result else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "transaction ended without a result")
        }
        return result
    }
}
