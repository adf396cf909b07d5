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
                backup changes nothing. Stop the applications that use the database first: they would \
                keep the replaced file open.
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
                                             policy: backups.policy, lockTimeout: lock.seconds).run()
                if output.json {
                    Output.json(report)
                } else {
                    var text = "restored \(database) from \(source) (\(report.migration.map { "at \($0)" } ?? "no migrations applied"), verified)"
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
}

/// The steps of a restore. The database changes in one rename only, after
/// every check passed.
private struct Restoration {
    var database: String
    var source: String
    var key: DatabaseKey?
    var store: BackupStore
    var policy: BackupPolicy
    var lockTimeout: Double

    private var exists: Bool { FileManager.default.fileExists(atPath: database) }

    /// `.app.db.restore.partial`, beside the database (one file system).
    private var temporary: String {
        let url = URL(fileURLWithPath: database)
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).restore.partial").path
    }

    func run() throws -> RestoreReport {
        if exists { try DatabaseFile.check(database, for: .write) }
        let lock = exists ? try FileLock(path: database, timeout: lockTimeout) : nil
        defer { withExtendedLifetime(lock) {} }
        // What a killed run left; we hold the lock.
        PrivateFile.removeDatabaseFiles(temporary)
        defer { PrivateFile.removeDatabaseFiles(temporary) }

        let (summary, contents) = try prepareCopy()
        let kept = exists && policy.enabled ? try keepCurrent() : nil
        do {
            if let ownership = PrivateFile.ownership(of: database) { try PrivateFile.apply(ownership, to: temporary) }
            // The replaced database's journal or WAL must not be replayed
            // onto the restored one: they go first (kept in the backup).
            for suffix in ["-journal", "-wal", "-shm"] { unlink(database + suffix) }
            try PrivateFile.renameAtomically(temporary, to: database)
        } catch {
            throw ErrorMapping.toolError(error, file: database)
        }
        let removed = policy.enabled ? store.prune(keeping: policy.keep, protecting: [source]) : []
        return RestoreReport(file: database, from: source, migration: contents.migration,
                             rowCounts: summary.rowCounts, replacedBackup: kept, removedBackups: removed)
    }

    /// Copies the backup (and a WAL beside it) to the temporary file and
    /// checks the copy: key, integrity, every row, history.
    private func prepareCopy() throws -> (Cipher.VerifyReport, BackupContents) {
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
            throw namingSource(ErrorMapping.toolError(error, file: source))
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
    private func namingSource(_ error: ToolError) -> ToolError {
        ToolError(error.code, error.message.replacingOccurrences(of: temporary, with: source))
    }

    /// Keeps the database being replaced as a backup: checkpointed and
    /// verified when the key opens it, else a byte copy of its files.
    private func keepCurrent() throws -> String {
        if let dbQueue = try? DatabaseFile.open(database, key: key, readonly: false, busyTimeout: lockTimeout) {
            defer { try? dbQueue.close() }
            if let kept = try? EncryptedBackup.make(in: store, dbQueue: dbQueue, key: key) { return kept }
        }
        // A damaged database, or one another key opens: its bytes as they
        // are, with a journal or WAL beside them under the backup's name.
        store.removeStalePartialCopies()
        let kept = try store.newPath()
        for suffix in ["-journal", "-wal"] where FileManager.default.fileExists(atPath: database + suffix) {
            try FileCopy.copy(database + suffix, to: kept + suffix)
        }
        try FileCopy.copy(database, to: kept)
        return kept
    }
}
