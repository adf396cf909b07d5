import ArgumentParser
import Foundation
import SecureStore

extension MigrateToolCommand {
    /// `restore DB --from BACKUP | --latest`: put a backup back, crash-safely.
    struct Restore: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace a database with one of its backups, after checking the backup with the key; the replaced database is kept as a backup.",
            discussion: """
                The backup is copied beside the database, and the copy is checked: the key opens it, \
                the integrity check passes, every row reads, and its migration history reads. Only then, \
                under the database lock, is the current file copied into the backup directory and the \
                checked copy renamed over it (fsync of the file and of the folder). A killed restore \
                leaves the old or the new database, never a mix; run it again. A wrong key or a damaged \
                backup changes nothing.

                \(WaitForCloseOptions.help)
                """)

        @Argument(help: "The database to replace (it may be missing).")
        var database: String

        @Option(name: .long, help: ArgumentHelp("The backup to restore.", valueName: "backup"))
        var from: String?

        @Flag(name: .long, help: "Restore the newest backup of the database (see `backups`).")
        var latest = false

        @OptionGroup var backups: BackupOptions
        @OptionGroup var key: KeyOptions
        @OptionGroup var lock: LockOptions
        @OptionGroup var waiting: WaitForCloseOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            guard (from != nil) != latest else { throw ValidationError("Give exactly one of --from <backup> and --latest.") }
        }

        func run() throws {
            try Output.run(json: output.json) {
                let store = backups.store(for: database)
                guard let source = from ?? store.latest?.path else {
                    throw ToolError(.noSuchFile, "\(database): no backups in \(store.directory) (--latest)")
                }
                try DatabaseFile.check(source, for: .read)
                guard !Self.sameFile(source, database) else {
                    throw ToolError(.usage, "\(source) is the database itself, not a backup of it")
                }
                let key = try key.resolve()
                let report = try Restoration(database: database, source: source, key: key, store: store,
                                             policy: backups.policy, lockTimeout: lock.seconds,
                                             waitingForClose: waiting.seconds).run()
                if output.json {
                    Output.json(report)
                } else {
                    let file = report.replacedFile.map { " (the file \($0))" } ?? ""
                    var text = "restored \(database)\(file) from \(source) (\(report.migration.map { "at \($0)" } ?? "no migrations applied"), verified)"
                    if let kept = report.replacedBackup { text += "; the replaced database is kept as \(kept)" }
                    if !report.removedBackups.isEmpty { text += "; \(report.removedBackups.count) older backup(s) removed" }
                    Output.line(text)
                }
                return .success
            }
        }

        private static func sameFile(_ first: String, _ second: String) -> Bool {
            var a = stat(), b = stat()
            return stat(first, &a) == 0 && stat(second, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino
        }
    }
}

/// What `restore --json` prints.
struct RestoreReport: Codable {
    var file: String
    var from: String
    /// The last migration of the restored database.
    var migration: String?
    var rowCounts: [String: Int]
    /// Where the replaced database was kept (nil: there was none, or --no-backup).
    var replacedBackup: String?
    var removedBackups: [String]
    /// The file replaced, when `file` is a symbolic link to it.
    var replacedFile: String?
}

/// The steps of a restore. The database changes in one rename only, after
/// every check passed, as ``FileReplacement`` does it: never while another
/// process has it open, never beside the replaced file's WAL, the file a
/// symbolic link names.
private struct Restoration {
    var database: String
    var source: String
    var key: DatabaseKey?
    var store: BackupStore
    var policy: BackupPolicy
    var lockTimeout: Double
    var waitingForClose: Double

    private var exists: Bool { FileManager.default.fileExists(atPath: database) }

    /// `.app.db.restore.partial`, beside `target` (one file system).
    private func temporary(beside target: String) -> String {
        let url = URL(fileURLWithPath: target)
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).restore.partial").path
    }

    func run() throws -> RestoreReport {
        if exists { try DatabaseFile.check(database, for: .write) }
        let lock = exists ? try FileLock(path: database, timeout: lockTimeout) : nil
        defer { withExtendedLifetime(lock) {} }
        let replacement: FileReplacement?
        do {
            replacement = exists ? try FileReplacement(path: database, waitingForClose: waitingForClose) : nil
        } catch {
            throw ErrorMapping.toolError(error, file: database)
        }
        defer { replacement?.release() }
        let target = replacement?.path ?? database
        let temporary = temporary(beside: target)
        // What a killed run left; we hold the lock.
        PrivateFile.removeDatabaseFiles(temporary)
        defer { PrivateFile.removeDatabaseFiles(temporary) }

        if let replacement {
            // The current file, whole without its WAL where the key opens
            // it; then nobody else writes until the rename.
            checkpoint(target)
            do {
                try replacement.holdWriters()
            } catch {
                throw ErrorMapping.toolError(error, file: database)
            }
        }
        let (summary, contents) = try prepareCopy(at: temporary)
        var kept: String?
        do {
            if replacement != nil, policy.enabled { kept = try keepCurrent(target) }
            if let ownership = PrivateFile.ownership(of: target) { try PrivateFile.apply(ownership, to: temporary) }
            if let replacement {
                // The replaced file's journal or WAL (kept in the backup)
                // go before the rename: they must not be replayed onto the
                // restored one.
                try replacement.replace(with: temporary, discardingWAL: true)
            } else {
                try PrivateFile.renameAtomically(temporary, to: database)
            }
        } catch {
            if let kept { PrivateFile.removeDatabaseFiles(kept) }
            throw ErrorMapping.toolError(error, file: database)
        }
        let removed = policy.enabled ? store.prune(keeping: policy.keep, protecting: [source]) : []
        return RestoreReport(file: database, from: source, migration: contents.migration,
                             rowCounts: summary.rowCounts, replacedBackup: kept, removedBackups: removed,
                             replacedFile: target == URL(fileURLWithPath: database).standardizedFileURL.path ? nil : target)
    }

    /// Copies the backup (and a WAL beside it) to `temporary` and checks
    /// the copy: key, integrity, every row, history.
    private func prepareCopy(at temporary: String) throws -> (Cipher.VerifyReport, BackupContents) {
        do {
            try PrivateFile.copy(source, to: temporary)
            if DatabaseFile.size(source + "-wal") > 0 {
                try PrivateFile.copy(source + "-wal", to: temporary + "-wal")
                let dbQueue = try DatabaseFile.open(temporary, key: key, readonly: false, busyTimeout: 1)
                try dbQueue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
                try dbQueue.close()
            }
            try PrivateFile.fsync(temporary)
        } catch {
            // A full disk or read-only folder beside the database: its name.
            throw ErrorMapping.toolError(error, file: database)
        }
        let report: Cipher.VerifyReport
        do {
            report = try Cipher.verify(at: temporary, key: key?.key)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT {
            throw ToolError(.damaged, "\(source) is damaged (\(error.message ?? "corrupt")); nothing was changed")
        } catch {
            throw namingSource(ErrorMapping.toolError(error, file: source), temporary: temporary)
        }
        guard report.isOK else {
            let detail = report.damagedTables.isEmpty ? report.integrity.prefix(3).joined(separator: "; ")
                : "tables that do not read: " + report.damagedTables.joined(separator: ", ")
            throw ToolError(.damaged, "\(source) is damaged (\(detail)); nothing was changed")
        }
        let contents: BackupContents
        do {
            contents = try BackupContents.read(temporary, key: key)
        } catch {
            throw ToolError(.damaged, "\(source): its migration history does not read (\(error)); nothing was changed")
        }
        for suffix in ["-wal", "-shm"] { unlink(temporary + suffix) }
        return (report, contents)
    }

    /// The error names the backup, not the checked copy of it.
    private func namingSource(_ error: ToolError, temporary: String) -> ToolError {
        ToolError(error.code, error.message.replacingOccurrences(of: temporary, with: source))
    }

    /// Folds a WAL into the database file, where the key opens it (a
    /// connection of the replacement's own, which takes no read lock).
    private func checkpoint(_ target: String) {
        guard DatabaseFile.size(target + "-wal") > 0,
              let dbQueue = try? DatabaseFile.open(target, key: key, readonly: false, busyTimeout: 0, takesFileLock: false)
        else { return }
        _ = try? dbQueue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try? dbQueue.close()
    }

    /// Keeps the database being replaced as a backup: a byte copy of its
    /// file, with a journal or WAL that holds more beside it under the
    /// backup's name (a database the key does not open, or a damaged one,
    /// is kept as it is).
    private func keepCurrent(_ target: String) throws -> String {
        store.removeStalePartialCopies()
        let kept = try store.newPath()
        for suffix in ["-journal", "-wal"] where DatabaseFile.size(target + suffix) > 0 {
            try FileCopy.copy(target + suffix, to: kept + suffix)
        }
        try FileCopy.copy(target, to: kept)
        return kept
    }
}
