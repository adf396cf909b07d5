import Foundation

/// Tells the system, while an export copies a file that it will replace,
/// that the pages of the file already copied will not be read again, so
/// that its page cache keeps the copy, which the verification reads next.
///
/// A file and its copy that do not fit the system's memory side by side
/// compete for its page cache. Left alone, the system keeps the pages of
/// the file being replaced (read twice: row counts, then the export) and
/// drops pages of the copy, which the verification then reads back from
/// the disk in the b-tree's order. Every 250 ms, this advises the system
/// (`POSIX_FADV_DONTNEED`) that the file's bytes up to the copy's size,
/// less a margin, are no longer needed: an export writes the copy in about
/// the order it reads the file. When ``finish()`` is called, after the
/// export, the whole file follows. The advice changes no data: a page
/// dropped too early is read again from the disk.
///
/// Only an export that replaces its source, of a file that with its copy
/// takes more than half the machine's memory, uses it
/// (``init(source:copy:memory:margin:)`` returns nil otherwise): the cache
/// of a file that is kept, or that fits, is left alone.
///
/// The advice needs a descriptor of the file, and closing any descriptor
/// of a file drops every POSIX lock the process holds on it, SQLite's
/// among them. So the descriptor is opened before the export's connection
/// to the file, and only when the process holds no lock on the file (no
/// other connection of the process is using it); it is closed by
/// ``finish()``, after the export's connection has closed, and only if the
/// process still holds no lock on the file. Otherwise it stays open: one
/// descriptor left behind rather than another connection's locks dropped.
/// The locks are read from `/proc/locks`.
///
/// ```swift
/// let release = replacing ? SourceCacheRelease(source: path, copy: temporary) : nil
/// defer { release?.finish() }     // registered before the connection's close
/// // open the file, sqlcipher_export, close the connection, then:
/// release?.finish()
/// ```
///
/// `@unchecked Sendable`: the descriptor and the watcher are set in `init`;
/// the descriptor is used by the watcher's handler and by ``finish()``,
/// which stops the watcher (waiting for a running handler) before it closes
/// the descriptor; `finished` is used on the export's thread only.
///
/// ## Topics
///
/// ### Releasing
///
/// - ``finish()``
/// - ``processHoldsLock(on:)``
final class SourceCacheRelease: @unchecked Sendable {
    private let descriptor: Int32
    private let watcher: FileGrowthWatcher
    private var finished = false

    /// Starts advising for `source`, replaced by `copy`, when the two take
    /// more than half of `memory` (the machine's); nil when they do not,
    /// when the process holds a lock on `source`, or when it cannot be
    /// opened. The last `margin` bytes of the copy are not taken as copied
    /// yet.
    init?(source: String, copy: String,
          memory: UInt64 = ProcessInfo.processInfo.physicalMemory, margin: Int64 = 64 << 20) {
        var info = stat()
        guard stat(source, &info) == 0, 2 * UInt64(max(0, info.st_size)) > memory / 2,
              !Self.processHoldsLock(on: info) else { return nil }
        let descriptor = open(source, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        self.descriptor = descriptor
        watcher = FileGrowthWatcher(path: copy, every: .milliseconds(250), firstAfter: .milliseconds(250)) { size in
            let copied = Int64(size) - margin
            if copied > 0 { _ = posix_fadvise(descriptor, 0, off_t(copied), POSIX_FADV_DONTNEED) }
        }
    }

    deinit { finish() }

    /// Stops following the copy, advises that the whole source is no
    /// longer needed, and closes it unless the process holds a lock on it.
    /// Call it once the export's connection to the source has closed, from
    /// the export's thread; later calls do nothing.
    func finish() {
        guard !finished else { return }
        finished = true
        watcher.stop()
        _ = posix_fadvise(descriptor, 0, 0, POSIX_FADV_DONTNEED)
        var info = stat()
        guard fstat(descriptor, &info) == 0, !Self.processHoldsLock(on: info) else { return }
        close(descriptor)
    }

    /// Whether this process holds a POSIX lock on the file of `info`
    /// (``ProcessLockTable``). Without `/proc/locks`, it answers yes.
    static func processHoldsLock(on info: stat) -> Bool {
        guard let table = ProcessLockTable.read() else { return true }
        let pid = getpid()
        return table.locks(on: FileIdentity(info)).contains { $0.kind == .posix && $0.pid == pid }
    }
}
