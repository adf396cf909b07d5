import Foundation

/// A value behind a POSIX mutex, for state that threads share.
///
/// The standard library's `Mutex` hands a contended lock from thread to
/// thread inside the kernel (a priority-inheriting futex), where
/// ThreadSanitizer cannot see it: a sanitized run reports the value it
/// guards as raced whenever two threads met on the lock. `NSLock` is a
/// `pthread_mutex_t`, which the sanitizer follows, so what it reports here
/// is real.
///
/// ```swift
/// private let names = LockedValue<[String: String]>([:])
///
/// names.withLock { $0["book"] = "books" }
/// ```
final class LockedValue<Value>: @unchecked Sendable {
    // @unchecked Sendable: the value is read and written under the lock only.
    private var value: Value
    private let lock = NSLock()

    /// A lock around `value`.
    init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, the lock held; what `body` changes stays.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
