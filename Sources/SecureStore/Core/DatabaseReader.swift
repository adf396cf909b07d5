/// A type that gives access to a database for reading: ``DatabaseQueue``
/// and, later, pools and snapshots.
public protocol DatabaseReader: AnyObject, Sendable {
    /// The configuration of the connections.
    var configuration: Configuration { get }

    /// The path of the database file.
    var path: String { get }

    /// Closes the connections. Further use throws.
    func close() throws

    /// Stops the statements that run on this reader's connections now, from
    /// any thread: they throw a ``DatabaseError`` of code `SQLITE_INTERRUPT`
    /// (see ``DatabaseError/isInterruptionError``). Statements that start
    /// afterwards run normally.
    ///
    /// ```swift
    /// Task.detached { try dbQueue.read { db in try Report.compute(db) } }
    /// dbQueue.interrupt()   // the read throws SQLITE_INTERRUPT
    /// ```
    ///
    /// A write interrupted inside a transaction-wrapping method
    /// (`write`) is rolled back, as SQLite rolls back a
    /// transaction whose statement was interrupted.
    func interrupt()

    /// Runs `value` with read-only access and returns its result.
    func read<T>(_ value: (Database) throws -> T) throws -> T

    /// Async version of ``read(_:)``.
    func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T

    /// Runs `value` with no isolation guarantee and no read-only check.
    func unsafeRead<T>(_ value: (Database) throws -> T) throws -> T

    /// Async version of `unsafeRead(_:)`.
    func unsafeRead<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T

    /// Like `unsafeRead(_:)`, and can be called from inside another access.
    func unsafeReentrantRead<T>(_ value: (Database) throws -> T) throws -> T

    /// Runs `value` later, with read-only access in a transaction; a
    /// closed connection gives an error.
    func asyncRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void)

    /// Runs `value` later, with no isolation guarantee.
    func asyncUnsafeRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void)

    /// Starts a ``ValueObservation``: use ``ValueObservation/start(in:scheduling:onError:onChange:)``.
    func _add<Reducer: ValueReducer>(
        observation: ValueObservation<Reducer>,
        scheduling scheduler: some ValueObservationScheduler,
        onChange: @escaping @Sendable (Reducer.Value) -> Void
    ) -> AnyDatabaseCancellable
}

extension Result where Success == Database, Failure == any Error {
    /// Hands the connection to `value` inside `isolation` (a read-only
    /// transaction, for example). A failure to reach the connection, or to
    /// open the isolation, reaches `value` as an error; an error closing it
    /// after `value` ran is dropped, as `value` has already had its turn.
    func deliver(
        isolatedBy isolation: (Database, () throws -> Void) throws -> Void,
        to value: @escaping (Result<Database, any Error>) -> Void
    ) {
        guard case .success(let db) = self else { return value(self) }
        var delivered = false
        do {
            try isolation(db) { delivered = true; value(.success(db)) }
        } catch {
            if !delivered { value(.failure(error)) }
        }
    }
}
