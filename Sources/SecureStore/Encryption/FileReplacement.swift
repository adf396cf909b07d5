import Foundation

/// How a database file is replaced by a new one (a rekey, an encryption in
/// place, an upgrade, a restore) when other processes may be using it:
/// never under a connection, never beside a stale WAL, never through a
/// link.
///
/// 1. **The file, not the name.** The path's symbolic links are resolved:
///    the file they lead to is replaced, in its own directory, and the
///    links stay links. A file with other hard links is refused
///    (``ResultCode/SECURESTORE_CANTOPEN_HARD_LINKS``): its other names
///    would keep the old file.
/// 2. **Nobody has it open.** ``DatabaseFileLock/exclusive(on:)`` fails
///    while a SecureStore connection (of any process) has the file open,
///    and keeps new ones out until the end; ``FileUsers`` finds other
///    SQLite clients by their locks and open descriptors. Either refuses
///    with ``ResultCode/SECURESTORE_BUSY_IN_USE``, naming the processes,
///    unless they close within `waitingForClose` seconds.
/// 3. **Nobody writes meanwhile.** ``holdWriters()`` takes, for the rest of
///    the replacement, the locks a SQLite writer needs: the database's
///    RESERVED byte and a read lock on its SHARED bytes (rollback journal),
///    the WAL's write and checkpoint locks in the `-shm` file. A client
///    that opens the file meanwhile reads, but its writes wait for their
///    busy timeout and fail with `SQLITE_BUSY`: nothing it was told
///    succeeded is lost.
/// 4. **No stale WAL.** ``replace(with:keepingReplacedAt:)`` looks for
///    users once more, then removes the old file's `-wal` (which must be
///    empty: the caller checkpointed it), `-shm` and `-journal`, so that
///    no connection of the new file reads them, and only then renames the
///    new file into place and fsyncs the directory.
///
/// A client that opens the file in the instant between that last look and
/// the rename is not seen: it keeps the old file (see RELIABILITY.md).
///
/// ```swift
/// let replacement = try FileReplacement(path: "app.db", waitingForClose: 0)
/// defer { replacement.release() }
/// // read the file (checkpoint a WAL first), then:
/// try replacement.holdWriters()
/// // write and fsync a temporary file beside replacement.path, then:
/// try replacement.replace(with: temporary)
/// ```
///
/// ## Topics
///
/// ### Replacing
///
/// - ``init(path:waitingForClose:)``
/// - ``path``
/// - ``holdWriters()``
/// - ``replace(with:keepingReplacedAt:)``
/// - ``release()``
///
/// ### The file a path names
///
/// - ``target(of:)``
package final class FileReplacement {
    /// The file replaced: the path given, its symbolic links resolved.
    package let path: String
    private let lock: DatabaseFileLock
    /// The `-shm` file's descriptor, while its WAL locks are held.
    private var walIndexDescriptor: Int32?

    /// Resolves `path`, and takes the file for a replacement: refuses a
    /// file with other hard links, and one that a connection or process
    /// has open, after waiting up to `waitingForClose` seconds for them to
    /// close it.
    package init(path given: String, waitingForClose: TimeInterval) throws {
        path = try Self.target(of: given)
        let deadline = Date().addingTimeInterval(waitingForClose)
        while true {
            do {
                lock = try Self.takeUnused(path)
                return
            } catch let error as DatabaseError where error.extendedResultCode == .SECURESTORE_BUSY_IN_USE && Date() < deadline {
                usleep(50_000)
            }
        }
    }

    deinit { release() }

    private static func takeUnused(_ path: String) throws -> DatabaseFileLock {
        let lock = try DatabaseFileLock.exclusive(on: path)
        let report = FileUsers.others(of: path)
        guard report.users.isEmpty else {
            lock.release()
            throw inUse(path, report)
        }
        return lock
    }

    private static func inUse(_ path: String, _ report: FileUsers.Report, _ when: String = "") -> DatabaseError {
        DatabaseError(resultCode: .SECURESTORE_BUSY_IN_USE, message: "\(path) is in use\(when): \(FileUsers.describe(report))")
    }

    /// `path` with its symbolic links resolved (`realpath`); nil when it
    /// leads nowhere.
    package static func resolvedPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The file that `path` names: its symbolic links resolved, checked to
    /// be a regular file with no other hard link.
    package static func target(of path: String) throws -> String {
        guard let target = resolvedPath(path) else { throw PrivateFile.error(errno, "cannot find \(path)") }
        var info = stat()
        guard lstat(target, &info) == 0 else { throw PrivateFile.error(errno, "cannot read \(target)") }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "\(target) is not a regular file")
        }
        guard info.st_nlink <= 1 else {
            let named = target == path ? path : "\(path) (the file \(target))"
            throw DatabaseError(resultCode: .SECURESTORE_CANTOPEN_HARD_LINKS, message: """
                \(named) has \(info.st_nlink) hard links: replacing it would leave the old file under its other \
                \(info.st_nlink - 1) name(s), open to the old key (or in plaintext); remove them first \
                (find / -xdev -samefile \(target)); nothing was changed
                """)
        }
        return target
    }

    /// Keeps other processes' writers out of the file until the
    /// replacement ends (see the type's discussion). Call it after the
    /// last write or checkpoint of the file by this process.
    package func holdWriters() throws {
        guard let descriptor = lock.descriptor else { return }
        // SQLite's lock bytes: PENDING at 1 GiB, RESERVED after it, then
        // 510 SHARED bytes.
        let pending: off_t = 0x4000_0000
        let outcomes = [
            DatabaseFileLock.setLock(descriptor, type: F_WRLCK, start: pending + 1, length: 1),
            DatabaseFileLock.setLock(descriptor, type: F_RDLCK, start: pending + 2, length: 510),
        ]
        let shm = open(path + "-shm", O_RDWR | O_CLOEXEC | O_NOCTTY)
        if shm >= 0 {
            walIndexDescriptor = shm
            // WAL_WRITE_LOCK and WAL_CKPT_LOCK: bytes 120 and 121.
            guard DatabaseFileLock.setLock(shm, type: F_WRLCK, start: 120, length: 2) != .conflict else {
                throw Self.inUse(path, FileUsers.others(of: path), " (a WAL writer or checkpoint is running)")
            }
        }
        guard !outcomes.contains(.conflict) else {
            throw Self.inUse(path, FileUsers.others(of: path), " (a SQLite connection is writing)")
        }
    }

    /// Renames `temporary` (a finished, fsynced file beside ``path``) over
    /// the file, after a last look for users and the removal of the old
    /// file's `-wal`, `-shm` and `-journal`; with `keepingReplacedAt`, the
    /// old file stays under that name (a hard link made just before).
    ///
    /// The old file's WAL must be empty (checkpointed), unless
    /// `discardingWAL`: a restore keeps it with the replaced file's backup.
    package func replace(with temporary: String, keepingReplacedAt kept: String? = nil, discardingWAL: Bool = false) throws {
        let report = FileUsers.others(of: path)
        guard report.users.isEmpty else { throw Self.inUse(path, report, " (it was opened during the replacement)") }
        if !discardingWAL, let size = PrivateFile.size(of: path + "-wal"), size > 0 {
            throw DatabaseError(resultCode: .SECURESTORE_BUSY_IN_USE, message: """
                \(path)-wal holds \(size) bytes that are not in \(path) (a checkpoint could not finish): \
                a client is using the file; nothing was changed
                """)
        }
        for suffix in ["-wal", "-shm", "-journal"] where unlink(path + suffix) != 0 && errno != ENOENT {
            throw PrivateFile.error(errno, "cannot remove \(path)\(suffix)")
        }
        if let kept, link(path, kept) != 0 {
            throw PrivateFile.error(errno, "cannot keep \(path) as \(kept)")
        }
        try PrivateFile.renameAtomically(temporary, to: path)
    }

    /// Ends the replacement: the locks go, and connections waiting to open
    /// the file open the new one. Every connection of this process to the
    /// replaced file must be closed first.
    package func release() {
        if let walIndexDescriptor { close(walIndexDescriptor) }
        walIndexDescriptor = nil
        lock.release()
    }
}
