import Foundation

/// Work started on a thread of its own, whose result is waited for where it
/// is needed: how the crash-safe file operations overlap a key derivation,
/// an open or an `fsync` with other work.
///
/// ```swift
/// let synced = BackgroundWork { try PrivateFile.fsync(temporary) }
/// let summary = try verify(copy)      // meanwhile
/// try synced.value()                   // before the rename
/// ```
///
/// `@unchecked Sendable`: the result is written once, on the work's thread,
/// before the semaphore is signalled, and read only after waiting for it.
///
/// ## Topics
///
/// ### Waiting
///
/// - ``result()``
/// - ``value()``
final class BackgroundWork<Value>: @unchecked Sendable {
    private let finished = DispatchSemaphore(value: 0)
    private var outcome: Result<Value, any Error>?

    /// Starts `work` on a new thread.
    init(_ work: @escaping @Sendable () throws -> Value) {
        Thread.detachNewThread { [self] in
            outcome = Result { try work() }
            finished.signal()
        }
    }

    /// Waits until the work has finished, and returns what it returned or
    /// threw; later calls return at once.
    func result() -> Result<Value, any Error> {
        finished.wait()
        finished.signal()
        return outcome!
    }

    /// Waits until the work has finished, and returns its value or throws
    /// its error.
    func value() throws -> Value {
        try result().get()
    }
}
