import Foundation

extension Cipher {
    /// The name of the database attached as the export target.
    private static let target = "securestore_export"

    /// Exports `source` into a new file through `sqlcipher_export`, then
    /// verifies and renames it over `destination`. `openSource` opens the
    /// source when the key alone does not (legacy formats).
    ///
    /// The new file gets the destination key's settings, over the source's
    /// own settings when `keepsFormat` (a backup stays readable by the
    /// libraries that read the original), else over the library's
    /// defaults, with SecureStore's iteration count for new files when the
    /// key is a passphrase and its settings name none.
    ///
    /// A file larger than `countsBesideAbove` bytes (by default, one that
    /// the export's page cache cannot hold) is decrypted anew by each pass
    /// over it. Its row counts are then read by a connection of their own,
    /// on another thread: the source's while the export copies it, the
    /// copy's while its integrity check runs. Two passes fewer follow one
    /// another, at the cost of a second key derivation for the source
    /// (none for the copy, opened with the key its verification uses).
    ///
    /// An export that replaces its source does it as ``FileReplacement``
    /// says (the file a symbolic link names; refused while a connection or
    /// another process has it open, after `waitingForClose` seconds;
    /// writers kept out; a WAL checkpointed and removed before the rename);
    /// `keepingReplacedAt` keeps the old file under that name.
    static func export(from given: String, sourceKey: CipherKey?, to destination: String,
                       destinationKey: CipherKey?, keepsFormat: Bool, progress: Progress?,
                       openSource: ((_ path: String, _ configuration: Configuration) throws -> Database)? = nil,
                       replacing options: ReplaceOptions = ReplaceOptions(),
                       countsBesideAbove: Int64 = cacheLimitKibibytes * 1024 * 4 / 5) throws -> ExportSummary {
        let replacement = samePath(given, destination)
            ? try FileReplacement(path: given, waitingForClose: options.waitingForClose) : nil
        // Released last (defers run in reverse order), once every
        // connection to the file has closed.
        defer { replacement?.release() }
        let replacing = replacement != nil
        let source = replacement?.path ?? given
        let destination = replacement?.path ?? destination
        if !replacing && FileManager.default.fileExists(atPath: destination) {
            throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "\(destination) exists already: it is never overwritten")
        }
        // A replaced file keeps its owner and mode; a new one is private,
        // and never readable by more users than the source.
        let replacedOwnership = replacing ? PrivateFile.ownership(of: destination) : nil
        let outputMode = PrivateFile.outputMode(forSource: source)
        removeStaleTemporaryFiles(for: destination)
        let temporary = temporaryPath(for: destination)
        // Created private before SQLite writes a byte (ATTACH would create
        // it with the umask's mode); its journal gets the same mode.
        try PrivateFile.createEmpty(temporary)
        var succeeded = false
        var newFile: ExportTarget?
        defer {
            // Nothing is left open on the temporary file, and a failed
            // export leaves nothing behind (a decrypt's temporary file
            // holds plaintext).
            newFile?.discard()
            if !succeeded { PrivateFile.removeDatabaseFiles(temporary) }
        }

        // Every setting explicit: an attached database must not inherit
        // the source's, nor SQLCipher's process defaults.
        let line = SQLCipherLibrary.line
        func resolvedKey(over base: CipherSettings) -> CipherKey? {
            destinationKey.map { key in
                // A new file (not a copy of this one) keyed with a
                // passphrase gets a KDF that meets the guidance unless its
                // settings say.
                var settings = key.settings
                if !keepsFormat, key.derivesKey {
                    if let strong = line.strengthened(settings) { settings = strong }
                    if let warning = line.weakKeyDerivationWarning(for: settings, path: destination) {
                        Database.logError?(.SQLITE_WARNING, warning)
                    }
                }
                return CipherKey(material: key.material, settings: settings.resolved(over: base))
            }
        }
        // A new format is known before the source opens: on SQLCipher 4,
        // the new file's key derivation (see `ExportTarget`) runs beside
        // the source's.
        var newKey = keepsFormat ? nil : resolvedKey(over: line.defaults)
        if !keepsFormat { newFile = ExportTarget(path: temporary, key: newKey) }

        // A replaced file's pages leave the system's cache as the export
        // copies them, so that the copy stays there for the verification.
        // Its descriptor closes after the connection below (defers run in
        // reverse order).
        let release = replacing ? SourceCacheRelease(source: source, copy: temporary) : nil
        defer { release?.finish() }
        var sourceConfig = sourceKey?.configuration() ?? Configuration()
        sourceConfig.busyMode = .timeout(10)
        // A replacement holds the file's write lock; its own connections
        // take no read lock.
        sourceConfig.takesFileLock = !replacing
        let db = try openSource?(source, sourceConfig) ?? Database(path: source, configuration: sourceConfig)
        defer { try? db.close() }
        let journalMode: String? = try String.fetchOne(db, sql: "PRAGMA journal_mode")
        let wasWAL: Bool = journalMode == "wal"
        if let replacement {
            // The replaced file holds all its data without its WAL, which
            // goes before the rename; then nobody else writes.
            if wasWAL { try checkpointFully(db, path: source) }
            try replacement.holdWriters()
        }
        let totalBytes = max(1, Int64(try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 1)
                             * Int64(try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 1024))
        // The pages the row counts decrypt stay for the export to copy, or,
        // for a file larger than the cache that a replacement keeps other
        // writers out of, the counts run beside it (another connection
        // would see other writers' commits). The counts end before the
        // source's connection closes (defers run in reverse order), so
        // that no read of the source outlives the export.
        try setCacheSize(of: db, forFileOf: totalBytes)
        let countsBeside = replacing && totalBytes > countsBesideAbove && openSource == nil
        let sourceCounts = countsBeside ? BackgroundWork { [sourceConfig] in try summary(at: source, configuration: sourceConfig) } : nil
        defer { _ = sourceCounts?.result() }
        // Read again in the export's transaction; here, for the copy's header.
        let headerUserVersion = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        let watcher = progress.map { report in
            FileGrowthWatcher(path: temporary, every: .milliseconds(200)) { size in
                report(min(0.99, Double(size) / Double(totalBytes)))
            }
        }
        defer { watcher?.stop() }

        if keepsFormat {
            newKey = resolvedKey(over: try db.cipherSettings ?? line.defaults)
            newFile = ExportTarget(path: temporary, key: newKey)
        }
        let targetPragmas = try newFile!.attachSettings.map { try line.pragmas(for: $0, schema: target) } ?? []
        try attach(temporary, as: target, key: try newFile!.attachKey(), in: db)
        var countedHere: ExportSummary?
        var expectedSchema: [String] = []
        do {
            for pragma in targetPragmas { try db.execute(sql: pragma) }
            // The copy is fsynced once, whole, before it is renamed into
            // place: a crash before leaves a temporary file that the next
            // run removes.
            try db.execute(sql: "PRAGMA \(target).synchronous = OFF")
            // Held in memory until the commit, the copy is written once.
            try setCacheSize(of: db, schema: target, forFileOf: totalBytes)
            // The header first (sqlcipher_export does not copy the
            // user_version): with its salt on disk, the key can be derived
            // for the verification while the export runs.
            try db.execute(sql: "PRAGMA \(target).user_version = \(headerUserVersion)")
            newFile!.firstPageWritten(in: db, schema: target)
            // One transaction, so one commit: sqlcipher_export alone commits
            // each table. What the copy must hold is read in it: the state
            // of the source that the export copies, whatever other
            // connections commit meanwhile.
            try db.execute(sql: "BEGIN")
            countedHere = sourceCounts == nil ? try summary(db) : nil
            expectedSchema = try schema(of: db)
            let userVersion = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
            if userVersion != headerUserVersion { try db.execute(sql: "PRAGMA \(target).user_version = \(userVersion)") }
            _ = try DatabaseValue.fetchOne(db, sql: "SELECT sqlcipher_export('\(target)')")
            try db.execute(sql: "COMMIT")
            try db.execute(sql: "DETACH DATABASE \(target)")
        } catch {
            if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") }
            try? db.execute(sql: "DETACH DATABASE \(target)")
            throw error
        }
        let expected = try countedHere ?? sourceCounts!.value()
        try db.close()
        release?.finish()
        // The copy reaches the disk while the verification reads it (from
        // the system's cache); it is renamed only after both. The
        // descriptor closes after the verification's connection (see
        // `PrivateFile.openForSync`).
        let descriptor = try PrivateFile.openForSync(temporary)
        let synced = BackgroundWork { try PrivateFile.fsync(descriptor, path: temporary) }
        defer {
            _ = synced.result()
            close(descriptor)
        }

        // A WAL source's copy is put in WAL mode by the verification's
        // connection, so it reads and writes.
        var verificationConfig = wasWAL ? newKey?.configuration() ?? Configuration() : readonlyConfiguration(newKey)
        verificationConfig.busyMode = .timeout(10)
        let copy = try newFile!.verificationConnection(verificationConfig)
        defer { try? copy.close() }
        try setCacheSize(of: copy, forFileOf: totalBytes)
        var copyCounts: BackgroundWork<ExportSummary>?
        if countsBeside {
            var countingConfig = try newFile!.verificationConfiguration(readonlyConfiguration(newKey))
            countingConfig.busyMode = .timeout(10)
            copyCounts = BackgroundWork { [temporary, countingConfig] in try summary(at: temporary, configuration: countingConfig) }
        }
        // Before the copy's connection closes, and before a WAL copy's
        // journal mode changes (which needs the file to itself).
        defer { _ = copyCounts?.result() }
        var actual = try verify(copy, expected: expected, schema: expectedSchema, source: source, countedBeside: copyCounts)
        actual.cipherSettings = newKey?.settings
        if wasWAL {
            try copy.execute(sql: "PRAGMA journal_mode = WAL")
        }
        try copy.close()
        try synced.value()
        if let replacedOwnership {
            try PrivateFile.apply(replacedOwnership, to: temporary)
        } else if outputMode != PrivateFile.privateMode {
            try PrivateFile.apply(PrivateFile.Ownership(owner: getuid(), group: getgid(), mode: outputMode), to: temporary)
        }
        if let replacement {
            try replacement.replace(with: temporary, keepingReplacedAt: options.keepingReplacedAt)
        } else {
            try PrivateFile.renameAtomically(temporary, to: destination)
        }
        succeeded = true
        // No report of the watcher follows this one.
        watcher?.stop()
        progress?(1)
        return actual
    }

    /// `PRAGMA wal_checkpoint(TRUNCATE)`, which must fold the whole WAL
    /// into the file: no other connection may be reading it.
    private static func checkpointFully(_ db: Database, path: String) throws {
        let busy = try Int.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)") ?? 0
        guard busy == 0 else {
            throw DatabaseError(resultCode: .SECURESTORE_BUSY_IN_USE, message: """
                \(path) is in use: a connection kept its WAL from being checkpointed; nothing was changed
                """)
        }
    }

    /// Opens a file read-only with `key` and summarizes it; throws
    /// `SQLITE_NOTADB` when the key does not open it.
    public static func summary(at path: String, key: CipherKey?) throws -> ExportSummary {
        try summary(at: path, configuration: readonlyConfiguration(key))
    }

    /// Opens a file with `configuration` and summarizes it.
    private static func summary(at path: String, configuration: Configuration) throws -> ExportSummary {
        let db = try Database(path: path, configuration: configuration)
        defer { try? db.close() }
        return try summary(db)
    }

    /// A read-only configuration keyed with `key`, or unkeyed, that waits
    /// up to 10 s for a writer of another connection to commit.
    static func readonlyConfiguration(_ key: CipherKey?) -> Configuration {
        var config = key?.configuration(readonly: true) ?? Configuration()
        config.readonly = true
        config.busyMode = .timeout(10)
        return config
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

    /// `ATTACH DATABASE path AS schema KEY key`, the key bound from its
    /// protected memory (bound as an argument value, it would stay in the
    /// statement's copy of its arguments).
    private static func attach(_ path: String, as schema: String, key: SecretBytes, in db: Database) throws {
        let statement = try db.makeStatement(sql: "ATTACH DATABASE ? AS \(schema) KEY ?")
        for (index, value) in [path.databaseValue as any StatementBinding, key].enumerated() {
            let code = value.bind(to: statement.sqliteStatement, at: CInt(index + 1))
            guard code == 0 else { throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "cannot bind ATTACH's arguments") }
        }
        try statement.execute()
    }

    /// Every table, index, view and trigger, with its SQL, in a stable
    /// order (SQLite's own objects left out).
    private static func schema(of db: Database) throws -> [String] {
        try String.fetchAll(db, sql: """
            SELECT type || ' ' || name || ' ' || IFNULL(sql, '') FROM sqlite_master
            WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY type, name
            """)
    }

    /// Compares the new file, read through `copy`, with the source: its
    /// row counts and `user_version` (read by another connection when
    /// `countedBeside`, while `copy` checks the integrity), its schema, and
    /// its integrity.
    private static func verify(_ copy: Database, expected: ExportSummary, schema expectedSchema: [String],
                               source: String, countedBeside: BackgroundWork<ExportSummary>?) throws -> ExportSummary {
        let integrity = countedBeside == nil ? nil : integrityCheck(copy)
        let actual = try countedBeside?.value() ?? summary(copy)
        guard actual == expected else {
            throw DatabaseError(resultCode: .SQLITE_CORRUPT,
                                message: "the exported copy of \(source) does not match it (row counts or user_version differ); nothing was replaced")
        }
        guard try schema(of: copy) == expectedSchema else {
            throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: """
                the exported copy of \(source) does not match its schema (tables, indexes, views or triggers differ); \
                nothing was replaced
                """)
        }
        if (integrity ?? integrityCheck(copy)) != ["ok"] {
            throw DatabaseError(resultCode: .SQLITE_CORRUPT,
                                message: "the exported copy of \(source) fails its integrity check; nothing was replaced")
        }
        return actual
    }

    /// A page cache that holds the whole file, up to 64 MiB, so that a
    /// file read twice (row counts, then the export or the integrity
    /// check) is decrypted once.
    private static func setCacheSize(of db: Database, schema: String = "main", forFileOf bytes: Int64) throws {
        // Each cached page costs its bytes and about a quarter more.
        let kibibytes = min(cacheLimitKibibytes, bytes / 1024 * 5 / 4 + 256)
        try db.execute(sql: "PRAGMA \(schema).cache_size = -\(kibibytes)")
    }

    /// The largest page cache of an export's connection: 64 MiB.
    static let cacheLimitKibibytes: Int64 = 64 * 1024

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

}
