import Foundation
import SecureStore

/// The backups of one database: where they are written, how they are
/// named, listed, and pruned.
///
/// A backup of `app.db` is `app.db.<UTC time>.backup`, in the backup
/// directory (by default the database's own folder). The time has
/// milliseconds and a name that is taken moves it on by one millisecond, so
/// that `ls` sorts the backups of a database by time.
struct BackupStore {
    /// One backup file.
    struct Entry: Codable, Equatable {
        var path: String
        /// When it was taken, from its name.
        var time: Date
        var size: Int64
    }

    /// The database the backups are of.
    var database: String
    /// The folder that holds them.
    var directory: String

    /// The store of `database`'s backups in `directory`, or beside it.
    init(database: String, directory: String? = nil) {
        self.database = database
        self.directory = directory ?? URL(fileURLWithPath: database).deletingLastPathComponent().path
    }

    private var prefix: String { URL(fileURLWithPath: database).lastPathComponent + "." }
    private static let suffix = ".backup"

    private static func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HHmmss.SSS'Z'"
        return formatter
    }

    /// The path of a new backup taken now; the folder is made (0700) if it
    /// does not exist.
    func newPath(now: Date = Date()) throws -> String {
        try makeDirectory()
        let formatter = Self.formatter()
        var time = now
        while true {
            let candidate = directory + "/" + prefix + formatter.string(from: time) + Self.suffix
            if !FileManager.default.fileExists(atPath: candidate) && !FileManager.default.fileExists(atPath: candidate + FileCopy.partialSuffix) {
                return candidate
            }
            time += 0.001
        }
    }

    private func makeDirectory() throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw ToolError(.cannotCreate, "--backup-dir \(directory) is not a directory") }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw ToolError(.cannotCreate, "cannot make the backup directory \(directory): \(error.localizedDescription)")
        }
    }

    /// The backups of the database, oldest first. Files whose name does not
    /// hold a backup time are not backups of this database and are ignored.
    func entries() -> [Entry] {
        let formatter = Self.formatter()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.compactMap { name -> (Entry, Int)? in
            guard name.hasPrefix(prefix), name.hasSuffix(Self.suffix) else { return nil }
            let stamp = String(name.dropFirst(prefix.count).dropLast(Self.suffix.count))
            guard let (time, sequence) = formatter.date(from: stamp).map({ ($0, 1) }) ?? Self.legacyTime(stamp) else { return nil }
            let path = directory + "/" + name
            return (Entry(path: path, time: time, size: DatabaseFile.size(path)), sequence)
        }
        .sorted { ($0.0.time, $0.1) < ($1.0.time, $1.1) }
        .map(\.0)
    }

    /// Release 0.1 named backups `<time without milliseconds>[-N]`, N from
    /// 2 for a second backup in the same second.
    private static func legacyTime(_ stamp: String) -> (Date, Int)? {
        let parts = stamp.split(separator: "-")
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate, .withTime, .withTimeZone, .withDashSeparatorInDate]
        guard parts.count >= 3, let time = formatter.date(from: parts.prefix(3).joined(separator: "-")) else { return nil }
        return (time, parts.count > 3 ? Int(parts[3]) ?? 1 : 1)
    }

    /// The newest backup, if any.
    var latest: Entry? { entries().last }

    /// Removes all but the `keep` newest backups (0 keeps all), never one
    /// of `protected`, and returns the paths removed. Called after a
    /// successful run only.
    @discardableResult
    func prune(keeping keep: Int, protecting protected: Set<String> = []) -> [String] {
        guard keep > 0 else { return [] }
        let all = entries()
        var removed: [String] = []
        for entry in all.dropLast(keep) where !protected.contains(entry.path) {
            PrivateFile.removeDatabaseFiles(entry.path)
            removed.append(entry.path)
        }
        if !removed.isEmpty { try? PrivateFile.fsync(directory) }
        return removed
    }

    /// Removes `*.backup.partial` copies of this database that a killed run
    /// left (the caller holds the database's lock).
    func removeStalePartialCopies() {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        where name.hasPrefix(prefix) && name.hasSuffix(Self.suffix + FileCopy.partialSuffix) {
            unlink(directory + "/" + name)
        }
    }

    /// Copies the database into a new backup (the caller holds the lock and
    /// keeps other writers out).
    func copy() throws -> String {
        removeStalePartialCopies()
        let target = try newPath()
        try FileCopy.copy(database, to: target)
        return target
    }
}

/// What a backup holds, read with the key without changing it.
struct BackupContents {
    /// The last migration recorded in its history (nil: none).
    var migration: String?
    var migrationCount: Int

    /// Opens the backup read-only and reads its history. SQLite may make
    /// -wal and -shm files to read a WAL file; those it made are removed.
    static func read(_ path: String, key: DatabaseKey?) throws -> BackupContents {
        let made = ["-wal", "-shm"].filter { !FileManager.default.fileExists(atPath: path + $0) }
        defer { for suffix in made { unlink(path + suffix) } }
        let dbQueue = try DatabaseFile.open(path, key: key, readonly: true, busyTimeout: 1)
        defer { try? dbQueue.close() }
        let history = try dbQueue.read { db in try DatabaseMigrator().history(db) }
        return BackupContents(migration: history.last?.identifier, migrationCount: history.count)
    }
}
