/// A type-erased ``DatabaseWriter``: a queue, a pool, or any writer,
/// behind one concrete type, as GRDB's `AnyDatabaseWriter` is.
///
/// ```swift
/// let writer = AnyDatabaseWriter(dbQueue)
/// try writer.write { db in try db.execute(sql: "DELETE FROM player") }
/// ```
public final class AnyDatabaseWriter: AnyDatabaseReader, DatabaseWriter, @unchecked Sendable {
    /// The wrapped writer.
    private let base: any DatabaseWriter

    /// Wraps `base`.
    public init(_ base: any DatabaseWriter) {
        self.base = base
        super.init(base)
    }

    /// Runs `updates` without a transaction in the wrapped writer.
    public func writeWithoutTransaction<T>(_ updates: (Database) throws -> T) rethrows -> T {
        try base.writeWithoutTransaction(updates)
    }

    /// Runs `updates` once every other access of the wrapped writer ended.
    public func barrierWriteWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T {
        try base.barrierWriteWithoutTransaction(updates)
    }

    /// Async version of `writeWithoutTransaction(_:)`.
    public func writeWithoutTransaction<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await base.writeWithoutTransaction(updates)
    }

    /// Async version of `barrierWriteWithoutTransaction(_:)`.
    public func barrierWriteWithoutTransaction<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await base.barrierWriteWithoutTransaction(updates)
    }

    /// Runs `updates` in the wrapped writer, inside another access too.
    public func unsafeReentrantWrite<T>(_ updates: (Database) throws -> T) rethrows -> T {
        try base.unsafeReentrantWrite(updates)
    }

    /// Runs `updates` later, without a transaction, in the wrapped writer.
    public func asyncWriteWithoutTransaction(_ updates: @escaping @Sendable (Database) -> Void) {
        base.asyncWriteWithoutTransaction(updates)
    }

    /// Runs `updates` later, once every other access of the wrapped writer ended.
    public func asyncBarrierWriteWithoutTransaction(_ updates: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        base.asyncBarrierWriteWithoutTransaction(updates)
    }
}
