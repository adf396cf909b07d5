#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Darwin
#endif

/// One reusable object per thread, taken and given back without a lock.
///
/// A hot path that reuses a scratch object (an encoder, for every record
/// an insert encodes) would otherwise share a pool behind a lock: two
/// atomic read-modify-writes per use, a cache line bounced between
/// threads that encode at once, and a contended path (a futex in the
/// standard library's `Mutex`) that ThreadSanitizer cannot see through.
/// Here each thread keeps its own object in a POSIX thread-specific slot;
/// a nested use on the same thread finds the slot empty and works with
/// a fresh object.
///
/// ```swift
/// private static let cache = ThreadLocalCache<Scratch>()
///
/// let scratch = cache.take() ?? Scratch()
/// defer { cache.giveBack(scratch) }
/// ```
///
/// An object stays on the thread that took it: it is released when that
/// thread ends, or dropped if the slot was refilled meanwhile.
final class ThreadLocalCache<Object: AnyObject>: Sendable {
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

    /// The calling thread's object, which leaves the slot empty; nil if
    /// the thread has none (first use, or a nested use).
    @inline(__always)
    func take() -> Object? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        pthread_setspecific(key, nil)
        return Unmanaged<Object>.fromOpaque(pointer).takeRetainedValue()
    }

    /// Keeps `object` for the calling thread's next `take()`, unless the
    /// thread already keeps one.
    @inline(__always)
    func giveBack(_ object: Object) {
        guard pthread_getspecific(key) == nil else { return }
        pthread_setspecific(key, Unmanaged.passRetained(object).toOpaque())
    }
}
