#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Darwin
#endif

/// An object that ``ThreadLocalCache`` lends: made empty, and marked while
/// it is lent.
protocol ThreadLocalReusable: AnyObject {
    init()
    /// True while a ``ThreadLocalCache/withObject(_:)`` call uses it.
    var isLent: Bool { get set }
}

/// One reusable object per thread, lent without a lock.
///
/// A hot path that reuses a scratch object (an encoder, for every record
/// an insert encodes) would otherwise share a pool behind a lock: two
/// atomic read-modify-writes per use, a cache line bounced between
/// threads that encode at once, and a contended path (a futex in the
/// standard library's `Mutex`) that ThreadSanitizer cannot see through.
/// Here each thread keeps its own object in a POSIX thread-specific slot.
/// The object stays in its slot while it is lent, marked
/// ``ThreadLocalReusable/isLent``: a use costs one `pthread_getspecific`
/// and no retain (taking the object out of the slot and putting it back
/// cost two `pthread_setspecific` calls per use). A nested use on the
/// same thread finds the object lent and works with a fresh one.
///
/// ```swift
/// private static let cache = ThreadLocalCache<Scratch>()
///
/// try cache.withObject { scratch in ... }
/// ```
///
/// An object stays on the thread that made it, and is released when that
/// thread ends.
final class ThreadLocalCache<Object: ThreadLocalReusable>: Sendable {
    private let key: pthread_key_t

    /// A new, empty slot on every thread. Made once per use site (a
    /// static): a process has a few hundred slots at most.
    init() {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { pointer in
            // The thread ends: release the object it kept.
            guard let pointer else { return }
            Unmanaged<AnyObject>.fromOpaque(pointer).release()
        }
        precondition(status == 0, "pthread_key_create failed (\(status)): too many thread-specific slots")
        self.key = key
    }

    /// Runs `body` with the calling thread's object, made on first use.
    /// The object is not retained: the slot keeps it until the thread
    /// ends, and only a first use on a thread fills the slot, so it cannot
    /// go while `body` runs on this thread. `body` must not keep it.
    @inline(__always)
    func withObject<Result>(_ body: (Object) throws -> Result) rethrows -> Result {
        guard let pointer = pthread_getspecific(key) else {
            let object = Object()
            pthread_setspecific(key, Unmanaged.passRetained(object).toOpaque())
            return try lend(object, to: body)
        }
        return try Unmanaged<Object>.fromOpaque(pointer)._withUnsafeGuaranteedRef { object in
            // Nested: this thread's object is in use further up the stack.
            guard !object.isLent else { return try body(Object()) }
            return try lend(object, to: body)
        }
    }

    /// Calls `body` with this thread's object, lent or not, if the
    /// thread has one.
    @inline(__always)
    func withExistingObject(_ body: (Object) -> Void) {
        guard let pointer = pthread_getspecific(key) else { return }
        Unmanaged<Object>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
    }

    @inline(__always)
    private func lend<Result>(_ object: Object, to body: (Object) throws -> Result) rethrows -> Result {
        object.isLent = true
        defer { object.isLent = false }
        return try body(object)
    }
}
