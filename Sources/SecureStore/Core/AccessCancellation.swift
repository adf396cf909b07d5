import Foundation

/// Ties an async database access to the cancellation of its task, as GRDB's
/// async accesses are: an access whose task is cancelled before it starts
/// throws `CancellationError` without running; when the task is cancelled
/// while the access runs, its running statements are interrupted
/// (`sqlite3_interrupt`) and the statements it starts afterwards throw
/// `CancellationError` (the end of its transaction still runs), and the
/// access throws `CancellationError`.
///
/// `@unchecked Sendable`: its state is behind `lock`.
final class AccessCancellation: @unchecked Sendable {
    private let lock = NSLock()
    private var isCancelled = false
    /// The connection the access runs on, while it runs.
    private var running: SerializedDatabase?

    /// Called by the task's cancellation handler, on any thread.
    func cancel() {
        lock.withLock {
            isCancelled = true
            running?.cancelAccess()
        }
    }

    /// Runs `body`, the access, on `connection` (from its queue).
    func run<T>(on connection: SerializedDatabase, _ body: () throws -> T) throws -> T {
        try lock.withLock {
            if isCancelled { throw CancellationError() }
            running = connection
        }
        defer {
            lock.withLock {
                running = nil
                connection.endAccessCancellation()
            }
        }
        do {
            return try body()
        } catch let error as DatabaseError where error.isInterruptionError && lock.withLock({ isCancelled }) {
            throw CancellationError()
        }
    }
}

/// Runs `access` with an ``AccessCancellation`` wired to the current task:
/// a task cancelled already throws `CancellationError` at once.
func withAccessCancellation<T: Sendable>(_ access: (AccessCancellation) async throws -> T) async throws -> T {
    try Task.checkCancellation()
    let cancellation = AccessCancellation()
    return try await withTaskCancellationHandler {
        try await access(cancellation)
    } onCancel: {
        cancellation.cancel()
    }
}
