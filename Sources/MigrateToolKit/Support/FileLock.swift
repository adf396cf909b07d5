import Foundation

/// An exclusive lock on a database, held by the kernel: `flock` on the
/// database file itself. The kernel releases it when the process dies, so
/// a killed run never leaves a stuck lock, and no lock file is left behind.
///
/// `flock` locks are separate from the POSIX locks SQLite takes, so holding
/// one does not block this process's own connections.
final class FileLock {
    private let descriptor: Int32

    /// Waits up to `timeout` seconds for the lock.
    ///
    /// A run that replaces the file (rekey, restore) renames a new file over
    /// the one it locked: a lock won on the old file is let go, and the
    /// file now at `path` is locked instead.
    init(path: String, timeout: Double) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let descriptor = Foundation.open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw ToolError(.ioError, "\(path): cannot open for locking (\(String(cString: strerror(errno))))")
            }
            while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
                guard errno == EWOULDBLOCK || errno == EINTR else {
                    close(descriptor)
                    throw ToolError(.ioError, "\(path): cannot lock (\(String(cString: strerror(errno))))")
                }
                guard Date() < deadline else {
                    close(descriptor)
                    throw ToolError(.inUse,
                                    "\(path) is locked by another run; gave up after \(timeout) s (--lock-timeout)")
                }
                usleep(50_000)
            }
            if Self.isStillAtPath(descriptor, path) {
                self.descriptor = descriptor
                return
            }
            close(descriptor)
        }
    }

    private static func isStillAtPath(_ descriptor: Int32, _ path: String) -> Bool {
        var locked = stat(), current = stat()
        guard fstat(descriptor, &locked) == 0, stat(path, &current) == 0 else { return false }
        return locked.st_dev == current.st_dev && locked.st_ino == current.st_ino
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
