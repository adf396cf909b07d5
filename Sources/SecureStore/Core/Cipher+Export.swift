import Foundation
internal import CSQLCipher

extension Cipher {
    /// The name of the database attached as the export target.
    private static let target = "securestore_export"

    /// Exports `source` into a new file through `sqlcipher_export`, then
    /// verifies and renames it over `destination`.
    static func export(from source: String, sourceKey: CipherKey?, to destination: String,
                       destinationKey: CipherKey?, progress: Progress?) throws -> ExportSummary {
        let replacing = samePath(source, destination)
        if !replacing && FileManager.default.fileExists(atPath: destination) {
            throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "\(destination) exists already: it is never overwritten")
        }
        removeStaleTemporaryFiles(for: destination)
        let temporary = temporaryPath(for: destination)
        var succeeded = false
        defer {
            // A failed export leaves nothing behind (a decrypt's temporary
            // file holds plaintext).
            if !succeeded { removeFileAndJournal(temporary) }
        }

        var sourceConfig = sourceKey?.configuration() ?? Configuration()
        sourceConfig.busyMode = .timeout(10)
        let db = try Database(path: source, configuration: sourceConfig)
        let expected = try summary(db)
        let journalMode: String? = try String.fetchOne(db, sql: "PRAGMA journal_mode")
        let wasWAL: Bool = journalMode == "wal"
        let totalBytes = max(1, Int64(try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 1)
                             * Int64(try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 1024))
        let watcher = progress.map { FileGrowthWatcher(path: temporary, totalBytes: totalBytes, report: $0) }
        defer { watcher?.stop() }

        var keyText = try destinationKey?.attachKeyText().withData { Data($0) } ?? Data()
        defer { keyText.resetBytes(in: 0..<keyText.count) }
        try db.execute(sql: "ATTACH DATABASE ? AS \(target) KEY ?", arguments: [temporary, keyText])
        do {
            if let destinationKey {
                // Explicit settings: an attached database must not inherit
                // the source's.
                let settings = destinationKey.settings
                let defaults = CipherSettings.sqlcipher3Defaults
                try db.execute(sql: """
                    PRAGMA \(target).cipher_page_size = \(settings.pageSize ?? defaults.pageSize ?? 1024);
                    PRAGMA \(target).kdf_iter = \(settings.kdfIterations ?? defaults.kdfIterations ?? 64000);
                    PRAGMA \(target).cipher_use_hmac = \((settings.usesHMAC ?? true) ? "ON" : "OFF");
                    """)
            }
            _ = try DatabaseValue.fetchOne(db, sql: "SELECT sqlcipher_export('\(target)')")
            // sqlcipher_export does not copy the header's user_version.
            try db.execute(sql: "PRAGMA \(target).user_version = \(expected.userVersion)")
            try db.execute(sql: "DETACH DATABASE \(target)")
        } catch {
            try? db.execute(sql: "DETACH DATABASE \(target)")
            throw error
        }
        try db.close()
        try fsync(path: temporary)

        let actual = try verify(temporary, key: destinationKey, expected: expected, source: source)
        if wasWAL {
            let reopened = try Database(path: temporary, configuration: destinationKey?.configuration() ?? Configuration())
            try reopened.execute(sql: "PRAGMA journal_mode = WAL")
            try reopened.close()
        }
        try renameAtomically(temporary, to: destination)
        succeeded = true
        progress?(1)
        return actual
    }

    /// Opens a file read-only with `key` and summarizes it; throws
    /// `SQLITE_NOTADB` when the key does not open it.
    public static func summary(at path: String, key: CipherKey?) throws -> ExportSummary {
        let db = try Database(path: path, configuration: key?.configuration(readonly: true) ?? {
            var config = Configuration()
            config.readonly = true
            return config
        }())
        defer { try? db.close() }
        return try summary(db)
    }

    /// Row counts and user_version of every table, migration history included.
    public static func summary(_ db: Database) throws -> ExportSummary {
        let tables = try String.fetchAll(db, sql: """
            SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
            """)
        var counts: [String: Int] = [:]
        for table in tables {
            counts[table] = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table.quotedDatabaseIdentifier)") ?? 0
        }
        return ExportSummary(rowCounts: counts, userVersion: try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0)
    }

    private static func schema(of db: Database) throws -> [String] {
        try String.fetchAll(db, sql: """
            SELECT type || ' ' || name || ' ' || IFNULL(sql, '') FROM sqlite_master
            WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY type, name
            """)
    }

    /// Opens the new file with its key and compares it with the source.
    private static func verify(_ path: String, key: CipherKey?, expected: ExportSummary, source: String) throws -> ExportSummary {
        let copy = try Database(path: path, configuration: key?.configuration(readonly: true) ?? {
            var config = Configuration()
            config.readonly = true
            return config
        }())
        defer { try? copy.close() }
        let actual = try summary(copy)
        guard actual == expected else {
            throw DatabaseError(resultCode: .SQLITE_CORRUPT,
                                message: "the exported copy of \(source) does not match it (row counts or user_version differ); nothing was replaced")
        }
        if integrityCheck(copy) != ["ok"] {
            throw DatabaseError(resultCode: .SQLITE_CORRUPT,
                                message: "the exported copy of \(source) fails its integrity check; nothing was replaced")
        }
        return actual
    }

    /// integrity_check's messages, one per line (SQLite 3.15 may return
    /// several in one row, separated by newlines).
    static func integrityCheck(_ db: Database) -> [String] {
        let rows = (try? String.fetchAll(db, sql: "PRAGMA integrity_check(100)")) ?? ["integrity_check could not run"]
        return rows.flatMap { $0.split(separator: "\n").map(String.init) }.filter { !$0.hasPrefix("*** in database") }
    }

    // MARK: Files

    private static let temporaryMarker = ".securestore-tmp-"

    /// `dir/.name.securestore-tmp-UUID`, beside the target so that the
    /// final rename stays on one file system.
    static func temporaryPath(for destination: String) -> String {
        let url = URL(fileURLWithPath: destination)
        return url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent)\(temporaryMarker)\(UUID().uuidString)").path
    }

    /// Removes what an interrupted earlier run left: the next run recovers
    /// without manual steps.
    public static func removeStaleTemporaryFiles(for destination: String) {
        let url = URL(fileURLWithPath: destination)
        let prefix = ".\(url.lastPathComponent)\(temporaryMarker)"
        let folder = url.deletingLastPathComponent().path
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(prefix) {
            try? FileManager.default.removeItem(atPath: folder + "/" + name)
        }
    }

    static func removeFileAndJournal(_ path: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }

    static func fsync(path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw DatabaseError(resultCode: .SQLITE_IOERR, message: "\(path): cannot open to sync")
        }
        defer { close(descriptor) }
        guard Glibc.fsync(descriptor) == 0 else {
            throw DatabaseError(resultCode: .SQLITE_IOERR_FSYNC, message: "\(path): fsync failed")
        }
    }

    /// rename(2) over the target, then fsync the directory so that the
    /// rename itself survives a power loss.
    static func renameAtomically(_ source: String, to destination: String) throws {
        guard rename(source, destination) == 0 else {
            throw DatabaseError(resultCode: .SQLITE_IOERR,
                                message: "cannot rename \(source) to \(destination): \(String(cString: strerror(errno)))")
        }
        try fsync(path: URL(fileURLWithPath: destination).deletingLastPathComponent().path)
    }
}

/// Reports how far a file has grown towards an expected size, for progress
/// displays, from a background timer.
final class FileGrowthWatcher: @unchecked Sendable {
    // @unchecked Sendable: the timer is created in init and only cancelled
    // afterwards; the reported values are computed from the file system.
    private let timer: any DispatchSourceTimer

    init(path: String, totalBytes: Int64, report: @escaping Cipher.Progress) {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
        timer.schedule(deadline: .now(), repeating: .milliseconds(200))
        timer.setEventHandler {
            var info = stat()
            if stat(path, &info) == 0 {
                report(min(0.99, Double(info.st_size) / Double(totalBytes)))
            }
        }
        timer.resume()
    }

    func stop() {
        timer.cancel()
    }
}
