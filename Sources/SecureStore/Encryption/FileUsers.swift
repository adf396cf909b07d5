import Foundation

/// A process that has a database file open, and how that was seen.
///
/// ```swift
/// let users = FileUsers.others(of: "/srv/app.db")
/// // [pid 4242 (sqlcipher): SQLite's lock on app.db-shm]
/// ```
package struct FileUser: Sendable, Hashable, CustomStringConvertible {
    /// The process.
    package var pid: Int32
    /// Its name (`/proc/PID/comm`), when readable. Never its arguments,
    /// which may hold another program's secrets.
    package var command: String?
    /// What showed it: "a SecureStore connection", "SQLite's lock on
    /// app.db-shm", "app.db-wal open".
    package var evidence: [String]

    /// `pid 4242 (sqlcipher: SQLite's lock on app.db-shm)`.
    package var description: String {
        "pid \(pid) (\(command.map { "\($0): " } ?? "")\(evidence.joined(separator: ", ")))"
    }
}

/// Finds the other processes that have a database file open, whatever
/// library they use:
///
/// - SecureStore's connections, by their ``DatabaseFileLock``;
/// - every SQLite client that holds one of SQLite's locks: a WAL
///   connection, even idle, holds a read lock on the `-shm` file's byte
///   128 (and on the database's shared bytes), a rollback-journal
///   connection holds locks while it reads or writes;
/// - and, where this user may read `/proc/PID/fd`, any process that has
///   the database, its `-wal`, `-shm` or `-journal` open: an idle
///   rollback-journal connection holds no lock at all.
///
/// Only root reads the descriptors of another user's processes: ``Report``
/// counts those it could not read.
///
/// ## Topics
///
/// ### Finding them
///
/// - ``others(of:)``
/// - ``Report``
/// - ``describe(_:)``
package enum FileUsers {
    /// What a search found.
    package struct Report: Sendable {
        /// The processes found, by pid.
        package var users: [FileUser]
        /// Processes whose descriptors this user cannot read.
        package var unreadableProcesses: Int
    }

    /// The processes other than this one that have `path` (a database
    /// file, symbolic links resolved) or its companion files open.
    package static func others(of path: String) -> Report {
        let own = getpid()
        var found: [Int32: [String]] = [:]
        func add(_ pid: Int32, _ evidence: String) {
            guard pid > 0, pid != own else { return }
            if !(found[pid] ?? []).contains(evidence) { found[pid, default: []].append(evidence) }
        }
        let name = URL(fileURLWithPath: path).lastPathComponent
        let companions = ["", "-wal", "-shm", "-journal"].compactMap { suffix in
            FileIdentity(path: path + suffix).map { (file: $0, name: name + suffix) }
        }
        let table = ProcessLockTable.read()
        if let database = companions.first(where: { $0.name == name })?.file {
            for pid in DatabaseFileLock.holders(of: database, in: table) { add(pid, "a SecureStore connection") }
        }
        for companion in companions {
            for lock in table?.locks(on: companion.file) ?? [] where lock.kind == .posix {
                add(lock.pid, "SQLite's lock on \(companion.name)")
            }
        }
        let names = Dictionary(companions.map { ($0.file, $0.name) }, uniquingKeysWith: { first, _ in first })
        let unreadable = forEachOpenFile { pid, file in
            if let name = names[file] { add(pid, "\(name) open") }
        }
        let users = found.keys.sorted().map { FileUser(pid: $0, command: command(of: $0), evidence: found[$0]!) }
        return Report(users: users, unreadableProcesses: unreadable)
    }

    /// The other processes that have `path` open while a replacement holds
    /// its write lock (which does not tell the pid): the replacement is
    /// among them.
    static func replacers(of path: String) -> Report {
        var report = others(of: path)
        report.users = report.users.filter { user in user.evidence.contains { $0.hasSuffix(" open") } }
        return report
    }

    /// `pid 4242 (sqlcipher: SQLite's lock on app.db-shm), pid 17 (...)`, or
    /// what could not be seen.
    package static func describe(_ report: Report) -> String {
        var text = report.users.isEmpty ? "another process" : report.users.map(\.description).joined(separator: ", ")
        if report.unreadableProcesses > 0 {
            text += "; \(report.unreadableProcesses) process(es) of other users could not be checked (root, or the service's user, sees them)"
        }
        return text
    }

    /// `/proc/PID/comm`.
    private static func command(of pid: Int32) -> String? {
        (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Calls `body` with each open file of every other process; returns
    /// how many processes' descriptors could not be read.
    private static func forEachOpenFile(_ body: (_ pid: Int32, _ file: FileIdentity) -> Void) -> Int {
        let own = getpid()
        var unreadable = 0
        guard let processes = opendir("/proc") else { return 0 }
        defer { closedir(processes) }
        while let entry = readdir(processes) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let pid = Int32(name), pid != own else { continue }
            guard let descriptors = opendir("/proc/\(pid)/fd") else {
                // Gone since, or another user's.
                if errno == EACCES { unreadable += 1 }
                continue
            }
            defer { closedir(descriptors) }
            while let descriptor = readdir(descriptors) {
                let number = withUnsafeBytes(of: descriptor.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                guard number.first?.isNumber == true, let file = FileIdentity(path: "/proc/\(pid)/fd/\(number)") else { continue }
                body(pid, file)
            }
        }
        return unreadable
    }
}
