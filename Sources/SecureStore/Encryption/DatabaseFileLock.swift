import Foundation

/// SecureStore's lock on a database file: how its connections say "this
/// file is open here", and how a replacement (a rekey, a restore, an
/// encryption in place) makes sure that nothing has it open.
///
/// The protocol, for other tools to follow: an open file description
/// lock (`fcntl(F_OFD_SETLK)`) in the byte range `0x7FC00000` to
/// `0x7FFFFFFF` of the database file.
///
/// - A process that has the file open holds a **read** lock on the one
///   byte `0x7FC00000 + pid` for as long as it does. Every ``Database``
///   connection of SecureStore does (one lock per file and process,
///   however many connections), so every ``DatabaseQueue``,
///   ``DatabasePool``, ``DatabaseSnapshot`` and `Cipher` operation.
/// - A process about to replace the file, or to rewrite it outside one
///   SQLite transaction, takes a **write** lock on the whole range, which
///   it gets only when no process holds a read lock there, and holds it
///   until the new file is in place. A connection that opens meanwhile
///   waits for it (up to its busy timeout) and then opens the new file.
///
/// Why this lock:
///
/// - It never meets SQLite's own locks, which are POSIX locks on the bytes
///   from `0x40000000` (1 GiB) to `0x400001FF`, and closing another
///   descriptor of the file does not drop it, as it would a POSIX lock. A
///   `flock` would do as much on a local file system, but NFS clients turn
///   a `flock` into a POSIX lock on the whole file, which would collide
///   with SQLite's. On NFS this lock is a byte-range lock like SQLite's,
///   below 2 GiB as NLM's 32-bit offsets require, as reliable as the
///   server's locking (which SQLite itself does not trust: do not share a
///   database over NFS).
/// - `/proc/locks`, which every user can read, shows the range's read
///   locks, so the pid of each holder is known from the byte it locks,
///   even for another user's process.
///
/// The lock says nothing about SQLite clients that do not follow it (the
/// `sqlcipher` shell, other libraries): ``FileUsers`` finds those by
/// SQLite's own locks and by `/proc/*/fd`.
///
/// ```swift
/// let lock = try DatabaseFileLock.exclusive(on: "/srv/app.db")   // no other holder
/// defer { lock.release() }
/// ```
///
/// A process holds one descriptor per file for the protocol, and never
/// closes a descriptor of a file while its connections have it open (that
/// would drop their POSIX locks).
///
/// ## Topics
///
/// ### Taking it
///
/// - ``shared(on:waitingUpTo:)``
/// - ``exclusive(on:)``
/// - ``release()``
///
/// ### The protocol
///
/// - ``rangeStart``
/// - ``rangeLength``
/// - ``holders(of:)``
package final class DatabaseFileLock: @unchecked Sendable {
    // @unchecked Sendable: `released` is read and written under the
    // registry's lock only.

    /// The first byte of the protocol's range: 0x7FC00000.
    package static let rangeStart: off_t = 0x7FC0_0000
    /// The length of the range: 2^22 bytes, one per possible pid.
    package static let rangeLength: off_t = 1 << 22

    /// The file locked.
    let file: FileIdentity
    /// True for a replacement's lock.
    let isExclusive: Bool
    private var released = false

    private init(file: FileIdentity, isExclusive: Bool) {
        self.file = file
        self.isExclusive = isExclusive
    }

    deinit { release() }

    /// The descriptor of the locked file (read and write for an exclusive
    /// lock), for the locks a replacement adds.
    var descriptor: Int32? {
        Self.registry.withLock { $0[file]?.descriptor }
    }

    /// Lets the lock go; the last shared holder of a file in the process,
    /// or an exclusive one, closes the file's descriptor (every connection
    /// of the process to the file must be closed by then).
    package func release() {
        Self.registry.withLock { entries in
            guard !released else { return }
            released = true
            guard var entry = entries[file] else { return }
            entry.holders -= 1
            if entry.holders > 0 {
                entries[file] = entry
                return
            }
            entries[file] = nil
            for descriptor in [entry.descriptor] + entry.spareDescriptors { close(descriptor) }
        }
    }

    // MARK: Shared

    /// Takes the read lock of a connection to `path`: at once when another
    /// connection of the process has the file open; otherwise waits up to
    /// `timeout` seconds while a replacement holds the write lock, then
    /// throws ``ResultCode/SECURESTORE_BUSY_REPLACING``. Nil where the
    /// file cannot be opened (SQLite then says why) or the file system
    /// takes no such lock.
    package static func shared(on path: String, waitingUpTo timeout: TimeInterval) throws -> DatabaseFileLock? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            switch attemptShared(path) {
            case .held(let lock):
                return lock
            case .unavailable:
                return nil
            case .movedMeanwhile:
                continue
            case .replacing:
                guard Date() < deadline else {
                    throw DatabaseError(resultCode: .SECURESTORE_BUSY_REPLACING, message: """
                        \(path) is being replaced (\(FileUsers.describe(FileUsers.replacers(of: path)))); \
                        open it again once that is done
                        """)
                }
                usleep(10_000)
            }
        }
    }

    private enum Attempt {
        case held(DatabaseFileLock)
        case unavailable
        case movedMeanwhile
        case replacing
    }

    private static func attemptShared(_ path: String) -> Attempt {
        registry.withLock { entries in
            // A file that the process has open already: no new descriptor,
            // whose close would drop the locks of its connections.
            if let file = FileIdentity(path: path), var entry = entries[file] {
                guard !entry.isExclusive else { return .replacing }
                entry.holders += 1
                entries[file] = entry
                return .held(DatabaseFileLock(file: file, isExclusive: false))
            }
            let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)
            guard descriptor >= 0, let file = FileIdentity(descriptor: descriptor) else {
                if descriptor >= 0 { close(descriptor) }
                return .unavailable
            }
            if var entry = entries[file] {
                // Replaced by a file the process has open, since the stat.
                entry.spareDescriptors.append(descriptor)
                guard !entry.isExclusive else {
                    entries[file] = entry
                    return .replacing
                }
                entry.holders += 1
                entries[file] = entry
                return .held(DatabaseFileLock(file: file, isExclusive: false))
            }
            switch setLock(descriptor, type: F_RDLCK, start: rangeStart + off_t(getpid()), length: 1) {
            case .taken, .unsupported:
                break
            case .conflict:
                close(descriptor)
                return .replacing
            }
            // The lock was won on the file now at `path`, not on one that a
            // replacement renamed away meanwhile.
            guard FileIdentity(path: path) == file else {
                close(descriptor)
                return .movedMeanwhile
            }
            entries[file] = Entry(descriptor: descriptor, holders: 1, isExclusive: false)
            return .held(DatabaseFileLock(file: file, isExclusive: false))
        }
    }

    // MARK: Exclusive

    /// Takes the write lock of a replacement of `path` (a path without
    /// symbolic links), or throws ``ResultCode/SECURESTORE_BUSY_IN_USE``
    /// naming the holders: the connections of this process, or the
    /// processes that hold a read lock. Does not wait.
    package static func exclusive(on path: String) throws -> DatabaseFileLock {
        while true {
            let descriptor = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY)
            guard descriptor >= 0 else { throw PrivateFile.error(errno, "cannot open \(path) to lock it") }
            guard let file = FileIdentity(descriptor: descriptor) else {
                close(descriptor)
                throw PrivateFile.error(errno, "cannot read \(path)")
            }
            let outcome: Result<DatabaseFileLock?, DatabaseError> = registry.withLock { entries in
                if var entry = entries[file] {
                    entry.spareDescriptors.append(descriptor)
                    entries[file] = entry
                    let what = entry.isExclusive ? "another replacement in this process"
                        : "\(entry.holders) connection(s) of this process (a DatabaseQueue, a DatabasePool or a snapshot)"
                    return .failure(DatabaseError(resultCode: .SECURESTORE_BUSY_IN_USE, message: "\(path) is in use: \(what) has it open"))
                }
                if case .conflict = setLock(descriptor, type: F_WRLCK, start: rangeStart, length: rangeLength) {
                    close(descriptor)
                    return .failure(DatabaseError(resultCode: .SECURESTORE_BUSY_IN_USE, message: """
                        \(path) is in use: \(FileUsers.describe(FileUsers.others(of: path)))
                        """))
                }
                guard FileIdentity(path: path) == file else {
                    close(descriptor)
                    return .success(nil)
                }
                entries[file] = Entry(descriptor: descriptor, holders: 1, isExclusive: true)
                return .success(DatabaseFileLock(file: file, isExclusive: true))
            }
            if let lock = try outcome.get() { return lock }
        }
    }

    // MARK: Locks

    enum LockOutcome {
        case taken
        case conflict
        /// The file system takes no open file description lock.
        case unsupported
    }

    /// `fcntl(F_OFD_SETLK)`: a read or write lock on a byte range, or an
    /// unlock, without waiting.
    static func setLock(_ descriptor: Int32, type: Int32, start: off_t, length: off_t) -> LockOutcome {
        var lock = flock()
        lock.l_type = Int16(type)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = start
        lock.l_len = length
        while fcntl(descriptor, F_OFD_SETLK, &lock) != 0 {
            switch errno {
            case EINTR: continue
            case EAGAIN, EACCES: return .conflict
            default: return .unsupported
            }
        }
        return .taken
    }

    /// Linux's `F_OFD_SETLK`, which Swift's Glibc does not import.
    private static let F_OFD_SETLK: Int32 = 37

    // MARK: Registry

    /// The process's descriptor of a locked file, and who holds the lock.
    private struct Entry {
        var descriptor: Int32
        var holders: Int
        var isExclusive: Bool
        /// Descriptors of the file opened while it was held; closed with
        /// the entry, never before (see the type's discussion).
        var spareDescriptors: [Int32] = []
    }

    private static let registry = LockedValue<[FileIdentity: Entry]>([:])

    /// The processes that hold the protocol's read lock on `file`, from
    /// `/proc/locks` (this process included).
    static func holders(of file: FileIdentity, in table: ProcessLockTable?) -> [Int32] {
        (table?.locks(on: file) ?? []).compactMap { lock -> Int32? in
            guard lock.kind == .openFileDescription, !lock.exclusive,
                  lock.start > Int64(rangeStart), lock.start < Int64(rangeStart + rangeLength) else { return nil }
            return Int32(lock.start - Int64(rangeStart))
        }
    }
}
