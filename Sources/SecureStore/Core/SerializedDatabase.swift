import Dispatch

/// One connection and the serial queue that every use of it goes through.
///
/// `@unchecked Sendable`: the connection (and its `OpaquePointer`) is only
/// touched from `queue`, so moving this object between threads is safe.
final class SerializedDatabase: @unchecked Sendable {
    private let db: Database
    private let queue: DispatchQueue
    /// Runs the async accesses on `queue`, in their callers' tasks.
    private let actor: SerializedDatabaseActor
    private let onQueueKey = DispatchSpecificKey<Bool>()

    let configuration: Configuration
    let path: String

    init(path: String, configuration: Configuration, label: String) throws {
        // Readers run at the read QoS on `targetQueue`; writers at the write
        // QoS on `writeTargetQueue` (or `targetQueue`), as GRDB does.
        let queue = configuration.readonly
            ? DispatchQueue(label: label, qos: configuration.readQoS, target: configuration.targetQueue)
            : DispatchQueue(label: label, qos: configuration.writeQoS,
                            target: configuration.writeTargetQueue ?? configuration.targetQueue)
        queue.setSpecific(key: onQueueKey, value: true)
        self.queue = queue
        actor = SerializedDatabaseActor(queue: queue)
        self.path = path
        self.configuration = configuration
        db = try queue.sync { try Database(path: path, configuration: configuration, label: label) }
    }

    /// True when the caller runs on this connection's queue.
    var isOnQueue: Bool { DispatchQueue.getSpecific(key: onQueueKey) == true }

    /// Runs `block` on the queue. Calling it from the queue (a `read` inside
    /// a `write`) would deadlock, so it throws instead.
    func sync<T>(_ block: (Database) throws -> T) throws -> T {
        if isOnQueue {
            throw DatabaseError(resultCode: .SQLITE_MISUSE,
                                message: "Database methods are not reentrant: use the Database given to the current closure")
        }
        return try queue.sync {
            try db.checkOpen()
            return try block(db)
        }
    }

    /// Like `sync`, but rethrows only `block`'s errors, as GRDB's
    /// `writeWithoutTransaction` and `inDatabase` do: a reentrant call stops
    /// the program (it would deadlock), as in GRDB. A closed connection
    /// throws from the first statement `block` runs.
    func syncRethrowing<T>(_ block: (Database) throws -> T) rethrows -> T {
        precondition(!isOnQueue, "Database methods are not reentrant: use the Database given to the current closure")
        return try queue.sync {
            defer { preconditionNoTransactionLeftOpen() }
            return try block(db)
        }
    }

    /// Unless ``Configuration/allowsUnsafeTransactions``, an access that
    /// leaves a transaction open stops the program, as in GRDB: the next
    /// access would run inside a transaction it did not start.
    private func preconditionNoTransactionLeftOpen() {
        guard !configuration.allowsUnsafeTransactions, !db.isClosed else { return }
        precondition(!db.isInsideTransaction, "A transaction has been left opened at the end of a database access")
    }

    /// Stops the program when called from this queue inside a transaction.
    func preconditionNotInsideTransactionWhenOnQueue(_ message: @autoclosure () -> String) {
        guard isOnQueue else { return }
        precondition(!db.isInsideTransaction, message())
    }

    /// Interrupts the connection's running statements, without waiting
    /// for the queue.
    func interrupt() {
        db.interrupt()
    }

    /// Suspends the connection, from any thread (see `Database+Suspension.swift`).
    func suspend() {
        db.suspend()
    }

    /// Resumes the connection, from any thread.
    func resume() {
        db.resume()
    }

    /// Cancels the access that runs now (see ``AccessCancellation``).
    func cancelAccess() {
        db.cancelAccess()
    }

    /// Ends the cancellation of the access that ends (on the queue).
    func endAccessCancellation() {
        db.endAccessCancellation()
    }

    /// Frees the memory SQLite can do without (see ``Database/releaseMemory()``).
    func releaseMemory() {
        queue.sync { db.releaseMemory() }
    }

    /// Like `sync`, but runs `block` at once when already on the queue.
    func reentrantSync<T>(_ block: (Database) throws -> T) rethrows -> T {
        if isOnQueue {
            return try block(db)
        }
        return try queue.sync { try block(db) }
    }

    /// Runs `block` on the queue without blocking the caller's thread.
    /// Cancelling the task before `block` runs throws `CancellationError`
    /// instead; cancelling it while `block` runs interrupts its statements
    /// (see ``AccessCancellation``).
    func execute<T: Sendable>(_ block: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withAccessCancellation { cancellation in
            try await execute(cancellation, block)
        }
    }

    /// Runs `block` on the queue, inside the current task, as part of the
    /// async access that `cancellation` follows.
    func execute<T: Sendable>(_ cancellation: AccessCancellation, _ block: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await actor.run {
            try self.db.checkOpen()
            return try cancellation.run(on: self) { try block(self.db) }
        }
    }

    /// Runs `block` on the queue, later; a closed connection gives an error.
    func async(_ block: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        queue.async {
            do {
                try self.db.checkOpen()
                block(.success(self.db))
            } catch {
                block(.failure(error))
            }
        }
    }

    func close() throws {
        try queue.sync { try db.close() }
    }
}
