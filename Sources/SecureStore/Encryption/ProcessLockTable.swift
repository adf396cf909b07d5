import Foundation

/// The file locks the kernel holds, as `/proc/locks` lists them: which
/// process holds which byte range of which file.
///
/// A line reads `1: POSIX  ADVISORY  READ 8093 fe:00:16220278 128 128`:
/// the kind (`POSIX`, `OFDLCK`, `FLOCK`), the mode, the holder's pid (-1
/// for an open file description lock, which no process owns), the file's
/// device (hexadecimal major and minor) and inode, and the range (`EOF`
/// for "to the end"). A blocked request's line has `->` before the kind
/// and is left out: it holds nothing.
///
/// ```swift
/// let table = ProcessLockTable.read()
/// for lock in table?.locks(on: FileIdentity(path: "app.db-shm")!) ?? [] where lock.kind == .posix {
///     print("pid \(lock.pid) holds \(lock.start)...\(lock.end)")
/// }
/// ```
///
/// ## Topics
///
/// ### Reading
///
/// - ``read(from:)``
/// - ``locks(on:)``
/// - ``Lock``
struct ProcessLockTable {
    /// One held lock.
    struct Lock: Equatable {
        /// How the lock was taken.
        enum Kind: Equatable {
            /// `fcntl(F_SETLK)`: owned by a process, as SQLite's are.
            case posix
            /// `fcntl(F_OFD_SETLK)`: owned by an open file description.
            case openFileDescription
            /// `flock(2)`.
            case flock
        }

        var kind: Kind
        var exclusive: Bool
        /// The holder; -1 for an open file description lock.
        var pid: Int32
        var file: FileIdentity
        var start: Int64
        /// The last byte; nil for "to the end of the file".
        var end: Int64?
    }

    let locks: [Lock]

    /// Reads the table; nil where `/proc/locks` cannot be read.
    static func read(from path: String = "/proc/locks") -> ProcessLockTable? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return ProcessLockTable(locks: text.split(separator: "\n").compactMap(parse))
    }

    /// The locks held on `file`.
    func locks(on file: FileIdentity) -> [Lock] {
        locks.filter { $0.file == file }
    }

    private static func parse(_ line: Substring) -> Lock? {
        let fields = line.split(separator: " ")
        guard fields.count >= 8, fields[1] != "->" else { return nil }
        let kind: Lock.Kind
        switch fields[1] {
        case "POSIX": kind = .posix
        case "OFDLCK": kind = .openFileDescription
        case "FLOCK": kind = .flock
        default: return nil
        }
        let device = fields[5].split(separator: ":")
        guard device.count == 3, let major = UInt64(device[0], radix: 16), let minor = UInt64(device[1], radix: 16),
              let inode = UInt64(device[2]), let pid = Int32(fields[4]), let start = Int64(fields[6]) else { return nil }
        return Lock(kind: kind, exclusive: fields[3] == "WRITE", pid: pid,
                    file: FileIdentity(major: major, minor: minor, inode: inode),
                    start: start, end: Int64(fields[7]))
    }
}

/// A file as the kernel knows it: its device and inode, whatever names
/// lead to it.
struct FileIdentity: Hashable, Sendable {
    /// The device's major and minor numbers, as `/proc/locks` shows them.
    var major: UInt64
    var minor: UInt64
    var inode: UInt64

    init(major: UInt64, minor: UInt64, inode: UInt64) {
        (self.major, self.minor, self.inode) = (major, minor, inode)
    }

    /// The identity in a `stat` result.
    init(_ info: stat) {
        let device = UInt64(info.st_dev)
        // glibc's gnu_dev_major and gnu_dev_minor, 32 bits each.
        self.init(major: ((device >> 8) & 0xfff) | ((device >> 32) & 0xffff_f000),
                  minor: (device & 0xff) | ((device >> 12) & 0xffff_ff00),
                  inode: UInt64(info.st_ino))
    }

    /// The file `path` names (following symbolic links); nil when there is none.
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    /// The file open as `descriptor`.
    init?(descriptor: Int32) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        self.init(info)
    }
}
