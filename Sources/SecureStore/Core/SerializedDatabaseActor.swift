import Dispatch

/// The actor of a connection's async accesses: its jobs run on the
/// connection's serial queue, so an async access is serialized with the
/// synchronous ones, and its closure runs inside the caller's task, which
/// sees its task-local values and `Task.isCancelled`, as in GRDB.
actor SerializedDatabaseActor {
    private let executor: QueueExecutor

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    init(queue: DispatchQueue) {
        executor = QueueExecutor(queue: queue)
    }

    /// Runs `body` on the queue, in the current task.
    func run<T: Sendable>(_ body: @Sendable () throws -> T) throws -> T {
        try body()
    }
}

/// Runs the actor's jobs on a serial dispatch queue.
private final class QueueExecutor: SerialExecutor {
    private let queue: DispatchQueue

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}
