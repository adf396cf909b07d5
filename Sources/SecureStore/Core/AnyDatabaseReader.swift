/// A type-erased ``DatabaseReader``: a queue, a pool, or any reader, behind
/// one concrete type, as GRDB's `AnyDatabaseReader` is.
///
/// ```swift
/// let reader = AnyDatabaseReader(dbPool)
/// let count = try reader.read { db in try Player.fetchCount(db) }
/// ```
///
/// ``AnyDatabaseWriter`` is a subclass: it reads through this class.
///
/// `@unchecked Sendable`: the only state is the immutable, `Sendable` base.
public class AnyDatabaseReader: DatabaseReader, @unchecked Sendable {
    /// The wrapped reader.
    private let base: any DatabaseReader

    /// Wraps `base`.
    public init(_ base: any DatabaseReader) {
        self.base = base
    }

    /// The configuration of the wrapped reader.
    public var configuration: Configuration { base.configuration }

    /// The path of the wrapped reader's database.
    public var path: String { base.path }

    /// Closes the wrapped reader.
    public func close() throws { try base.close() }

    /// Interrupts the statements of the wrapped reader.
    public func interrupt() { base.interrupt() }

    /// Runs `value` in an async unsafe read of the wrapped reader.
    public func unsafeRead<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await base.unsafeRead(value)
    }

    /// Runs `value` in a read of the wrapped reader.
    public func read<T>(_ value: (Database) throws -> T) throws -> T { try base.read(value) }

    /// Async version of `read(_:)`.
    public func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await base.read(value)
    }

    /// Runs `value` without a transaction in the wrapped reader.
    public func unsafeRead<T>(_ value: (Database) throws -> T) throws -> T { try base.unsafeRead(value) }

    /// Runs `value` in the wrapped reader, inside another access too.
    public func unsafeReentrantRead<T>(_ value: (Database) throws -> T) throws -> T { try base.unsafeReentrantRead(value) }

    /// Runs `value` later in a read of the wrapped reader.
    public func asyncRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) { base.asyncRead(value) }

    /// Runs `value` later, without a transaction, in the wrapped reader.
    public func asyncUnsafeRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        base.asyncUnsafeRead(value)
    }

    /// Starts an observation on the wrapped reader.
    public func _add<Reducer: ValueReducer>(
        observation: ValueObservation<Reducer>,
        scheduling scheduler: some ValueObservationScheduler,
        onChange: @escaping @Sendable (Reducer.Value) -> Void
    ) -> AnyDatabaseCancellable {
        base._add(observation: observation, scheduling: scheduler, onChange: onChange)
    }
}
