import Foundation

/// Follows the size of a file that an export writes, and hands it to a
/// handler on a background queue at a fixed interval.
///
/// Two parts of an export follow its new file as it grows: the progress
/// report (the fraction written) and ``SourceCacheRelease`` (how much of the
/// source has been copied). Each runs a watcher of its own, with its own
/// interval; the timer, the file's size and the waiting for a running
/// handler live here once.
///
/// ```swift
/// let watcher = FileGrowthWatcher(path: temporary, every: .milliseconds(200)) { size in
///     report(min(0.99, Double(size) / Double(totalBytes)))
/// }
/// defer { watcher.stop() }
/// ```
///
/// The handler is not called while the file does not exist. After
/// ``stop()`` returns, it is not running and is never called again, so a
/// handler may use what the caller releases once ``stop()`` has returned
/// (a descriptor, for ``SourceCacheRelease``).
///
/// `@unchecked Sendable`: the timer and the queue are set in `init` and
/// never replaced; `stopped` is used by the thread that owns the watcher
/// only (``stop()``, and `deinit`).
///
/// ## Topics
///
/// ### Following a file
///
/// - ``init(path:every:firstAfter:handler:)``
/// - ``stop()``
final class FileGrowthWatcher: @unchecked Sendable {
    private let timer: any DispatchSourceTimer
    /// Serial: ``stop()`` waits on it for a running handler.
    private let queue = DispatchQueue(label: "SecureStore.FileGrowthWatcher")
    private var stopped = false

    /// Calls `handler` with the size in bytes of the file at `path` every
    /// `interval`, the first time after `delay` (at once by default).
    init(path: String, every interval: DispatchTimeInterval, firstAfter delay: DispatchTimeInterval = .seconds(0),
         handler: @escaping @Sendable (Int) -> Void) {
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + delay, repeating: interval)
        timer.setEventHandler {
            if let size = PrivateFile.size(of: path) { handler(size) }
        }
        timer.resume()
    }

    deinit { stop() }

    /// Stops following the file, and returns once no call of the handler
    /// is running. Call it from the thread that owns the watcher, never
    /// from the handler; later calls do nothing.
    func stop() {
        guard !stopped else { return }
        stopped = true
        timer.cancel()
        queue.sync {}
    }
}
