import Foundation

/// The file-system steps of crash-safe, private file writing, in one place:
/// every file SecureStore creates (temporary files, exports, copies,
/// backups) is created with `O_EXCL` and mode 0600 before its first byte,
/// and a replaced file keeps its owner and mode.
///
/// Errors are ``DatabaseError``s whose code tells a full disk
/// (`SQLITE_FULL`: `ENOSPC`, `EDQUOT`) and a read-only file system
/// (`SQLITE_READONLY`: `EROFS`) from other I/O errors (`SQLITE_IOERR`).
package enum PrivateFile {
    /// The mode of files SecureStore creates.
    package static let privateMode: mode_t = 0o600

    /// Owner, group and permission bits of an existing file.
    package struct Ownership: Sendable, Equatable {
        package var owner: uid_t
        package var group: gid_t
        package var mode: mode_t
    }

    /// The owner and permission bits of `path`, or nil if it does not exist.
    package static func ownership(of path: String) -> Ownership? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Ownership(owner: info.st_uid, group: info.st_gid, mode: info.st_mode & 0o7777)
    }

    /// The size of `path` in bytes, or nil if it cannot be read: one
    /// `stat`, where FileManager's attributes cost a dictionary of casts
    /// (every connection asks, before its key check).
    package static func size(of path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_size)
    }

    /// Creates a new file (never an existing one: `O_EXCL`) with mode 0600
    /// whatever the umask, and returns its open descriptor.
    package static func create(_ path: String) throws -> Int32 {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, privateMode)
        guard descriptor >= 0 else { throw error(errno, "cannot create \(path)") }
        // The umask may have removed bits, never added any: this only
        // restores what it removed from 0600.
        if fchmod(descriptor, privateMode) != 0 {
            let code = errno
            close(descriptor)
            unlink(path)
            throw error(code, "cannot set the mode of \(path)")
        }
        return descriptor
    }

    /// Creates an empty private file, for SQLite to open and fill.
    package static func createEmpty(_ path: String) throws {
        close(try create(path))
    }

    /// The mode a new output gets: 0600, never wider than the source's.
    package static func outputMode(forSource source: String) -> mode_t {
        privateMode & (ownership(of: source)?.mode ?? privateMode)
    }

    /// Gives `path` an owner and mode: a replacement keeps the replaced
    /// file's. Changing the owner needs privileges; a process that owns
    /// both files already has the owner right.
    package static func apply(_ ownership: Ownership, to path: String) throws {
        guard let current = self.ownership(of: path) else { throw error(ENOENT, "cannot find \(path)") }
        if current.owner != ownership.owner || current.group != ownership.group {
            if chown(path, ownership.owner, ownership.group) != 0 {
                throw error(errno, "cannot give \(path) the owner of the file it replaces")
            }
        }
        if current.mode != ownership.mode, chmod(path, ownership.mode) != 0 {
            throw error(errno, "cannot set the mode of \(path)")
        }
    }

    /// Copies `source` into a new private file (`O_EXCL`, 0600), then
    /// fsyncs it. A failed copy removes what it wrote.
    ///
    /// The source is read through a descriptor of its own, whose close
    /// drops every POSIX lock this process holds on the file: never use it
    /// for a database that a connection of this process has open (see
    /// `Database.copyMainFile(to:)`).
    package static func copy(_ source: String, to target: String) throws {
        guard let input = FileHandle(forReadingAtPath: source) else {
            throw error(errno == 0 ? EACCES : errno, "cannot read \(source)")
        }
        defer { try? input.close() }
        try write(to: target) { _ in try input.read(upToCount: 1 << 20) ?? Data() }
    }

    /// Writes the chunks `nextChunk` returns (given the offset, an empty
    /// chunk at the end) into a new private file (`O_EXCL`, 0600), then
    /// fsyncs it. A failure removes what was written.
    package static func write(to target: String, chunks nextChunk: (_ offset: Int64) throws -> Data) throws {
        let descriptor = try create(target)
        let output = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            var offset: Int64 = 0
            while case let chunk = try nextChunk(offset), !chunk.isEmpty {
                try write(chunk, to: descriptor, path: target)
                offset += Int64(chunk.count)
            }
            guard Glibc.fsync(descriptor) == 0 else { throw error(errno, "cannot sync \(target)") }
            try output.close()
        } catch {
            try? output.close()
            unlink(target)
            throw error
        }
    }

    /// Writes `data` to `path` crash-safely: a new private temporary file
    /// beside it (`O_EXCL`, 0600), fsync, rename over the target (which keeps
    /// its owner and mode), fsync of the directory.
    package static func replace(_ path: String, with data: Data) throws {
        let temporary = path + ".tmp-" + UUID().uuidString
        let descriptor = try create(temporary)
        do {
            try write(data, to: descriptor, path: temporary)
            guard Glibc.fsync(descriptor) == 0 else { throw error(errno, "cannot sync \(temporary)") }
            close(descriptor)
            if let ownership = ownership(of: path) { try apply(ownership, to: temporary) }
            try renameAtomically(temporary, to: path)
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
    }

    private static func write(_ data: Data, to descriptor: Int32, path: String) throws {
        try data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw error(errno, "cannot write \(path)")
                }
                offset += written
            }
        }
    }

    /// fsync(2) of a file or a directory.
    package static func fsync(_ path: String) throws {
        let descriptor = try openForSync(path)
        defer { close(descriptor) }
        try fsync(descriptor, path: path)
    }

    /// A read-only descriptor of `path`, for ``fsync(_:path:)``. Close it
    /// only once no connection has the file open: closing any descriptor
    /// of a file drops every POSIX lock the process holds on it, SQLite's
    /// among them.
    package static func openForSync(_ path: String) throws -> Int32 {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw error(errno, "cannot open \(path) to sync it") }
        return descriptor
    }

    /// fsync(2) of the file of `descriptor`, named `path` in errors.
    package static func fsync(_ descriptor: Int32, path: String) throws {
        guard Glibc.fsync(descriptor) == 0 else { throw error(errno, "cannot sync \(path)") }
    }

    /// rename(2) over the target, then fsync of the directory, so that the
    /// rename itself survives a power loss.
    package static func renameAtomically(_ source: String, to destination: String) throws {
        guard rename(source, destination) == 0 else {
            throw error(errno, "cannot rename \(source) to \(destination)")
        }
        try fsync(URL(fileURLWithPath: destination).deletingLastPathComponent().path)
    }

    /// Removes a database file and the journal, WAL and shared-memory
    /// files SQLite may have made beside it.
    package static func removeDatabaseFiles(_ path: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(path + suffix) }
    }

    /// Runs `body` with a new directory of mode 0700 (`mkdtemp`, named
    /// `prefix` and six random characters) in `parent` (the temporary
    /// directory by default), and removes the directory and what it holds
    /// afterwards, whatever `body` did.
    package static func withTemporaryDirectory<T>(in parent: String? = nil, prefix: String,
                                                  _ body: (URL) throws -> T) throws -> T {
        let base = parent ?? NSTemporaryDirectory()
        var template = Array(URL(fileURLWithPath: base).appendingPathComponent(prefix + "XXXXXX").path.utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw error(errno, "cannot create a temporary directory in \(base)")
        }
        let directory = URL(fileURLWithPath: String(cString: made), isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(directory)
    }

    /// The error for a failed system call: a full disk and a read-only
    /// file system keep their own codes, so that callers can tell them.
    package static func error(_ code: Int32, _ what: String) -> DatabaseError {
        let resultCode: ResultCode
        switch code {
        case ENOSPC, EDQUOT: resultCode = .SQLITE_FULL
        case EROFS: resultCode = .SQLITE_READONLY
        case EACCES, EPERM: resultCode = .SQLITE_PERM
        default: resultCode = .SQLITE_IOERR
        }
        return DatabaseError(resultCode: resultCode, message: "\(what): \(String(cString: strerror(code)))")
    }
}
