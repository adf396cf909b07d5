import ArgumentParser
import Foundation
import SecureStore

extension MigrateToolCommand {
    /// `rekey DB...`: a new key, or new cipher settings, on one file or a fleet.
    struct Rekey: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Re-encrypt databases with a new key and/or new cipher settings; crash-safe (exactly one key opens each file).",
            discussion: """
                The keys are read once, then the files are re-keyed --jobs at a time, each under its own lock. \
                A file the new key already opens is left as it is, so running the same command again finishes \
                a rotation that was stopped. With several files, one line per file and a summary (re-keyed, \
                already re-keyed, failed, skipped) are printed (--json: { summary, results }), and the exit \
                code is the first failed file's.

                \(WaitForCloseOptions.help)

                The backups of the database (in --backup-dir, by default beside it) are re-keyed too, so that \
                nothing the tool keeps opens with the old key; --keep-old-backups leaves them, and names each one \
                the old key still opens.
                """)

        @Argument(help: "The database files.")
        var databases: [String]

        @OptionGroup var key: KeyOptions
        @OptionGroup var newKey: NewKeyOptions
        @OptionGroup var lock: LockOptions
        @OptionGroup var waiting: WaitForCloseOptions
        @OptionGroup var backupLocation: BackupDirectoryOptions

        @Flag(name: .customLong("keep-old-backups"), help: "Leave the database's backups on the old key (they are listed).")
        var keepOldBackups = false

        @OptionGroup var batch: BatchOptions
        @OptionGroup var outputOptions: OutputOptions

        func validate() throws {
            guard !databases.isEmpty else { throw ValidationError("Give at least one database file.") }
        }

        /// What one file's rekey does: the database, then its backups.
        private var job: Job {
            Job(options: waiting.replaceOptions(), backupDirectory: backupLocation.directory, keepOldBackups: keepOldBackups)
        }

        func run() throws {
            try Output.run(json: outputOptions.json) {
                guard let current = try key.resolve() else { throw ToolError(.usage, "rekey needs the current key") }
                let next = try newKey.resolve(current: current)
                let lockTimeout = lock.seconds
                let job = job
                if databases.count == 1, let database = databases.first {
                    return try CipherRun.run("rekey", file: database, output: database, json: outputOptions.json,
                                             lockTimeout: lockTimeout, access: .write) { progress in
                        try job.rekey(database, from: current, to: next, progress: progress)
                    }
                }
                let results = Batch.run(files: databases, jobs: batch.jobs, failFast: batch.failFast,
                                        progress: ProgressDisplay(json: outputOptions.json)) { file in
                    do {
                        let report = try CipherRun.perform("rekey", file: file, output: file, lockTimeout: lockTimeout, access: .write) {
                            try job.rekey(file, from: current, to: next, progress: $0)
                        }
                        let backups = BackupRotation.text(report.backups ?? [], directory: report.backupDirectory ?? "")
                        let note = ([report.note].compactMap { $0 } + backups).joined(separator: "\n")
                        let code = BackupRotation.exitCode(report.backups ?? [])
                        guard code == .success else {
                            return FileResult(file: file, status: .failed, error: note, exitCode: code.rawValue)
                        }
                        return FileResult(file: file, status: report.note == nil ? .rekeyed : .alreadyRekeyed,
                                          note: note.isEmpty ? nil : note)
                    } catch {
                        return FileResult.failure(file, ErrorMapping.toolError(error, file: file))
                    }
                }
                if outputOptions.json {
                    Output.json(RekeyBatchJSON(summary: BatchSummary(results), results: results))
                } else {
                    Batch.printText(results, verb: "rekey")
                }
                return Batch.exitCode(results)
            }
        }

        /// One file's rekey: the database, then its backups.
        private struct Job: Sendable {
            var options: Cipher.ReplaceOptions
            var backupDirectory: String?
            var keepOldBackups: Bool

            func rekey(_ database: String, from current: DatabaseKey, to next: DatabaseKey,
                       progress: @escaping Cipher.Progress) throws -> CipherOutcome {
                var outcome: CipherOutcome
                do {
                    outcome = CipherOutcome(summary: try Cipher.rekey(at: database, from: current.key, to: next.key,
                                                                      replacing: options, progress: progress))
                } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
                    // A retry after a rekey that finished (or was killed
                    // after its rename): the new key opens the file; its
                    // backups may not be done yet.
                    guard let summary = try? Cipher.summary(at: database, key: next.key) else { throw error }
                    outcome = CipherOutcome(summary: summary, note: "already re-keyed: the new key opens it")
                }
                let store = BackupStore(database: database, directory: backupDirectory)
                outcome.backups = (BackupRotation(store: store, keepOld: keepOldBackups).run(from: current, to: next),
                                   store.directory)
                return outcome
            }
        }
    }

    /// `upgrade DB`: an older SQLCipher format to the library's current one.
    struct Upgrade: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rewrite a file of an older SQLCipher format (1.x, 2.x; 3.x on SQLCipher 4) in this library's format, in place, after a backup.",
            discussion: "The file is exported into a private temporary file, verified and renamed over the old one: a crash leaves the old file or the new one. The current format: \(Cipher.FileFormat.current) (SQLCipher \(SQLCipherLibrary.version)). \(WaitForCloseOptions.help)")

        @Argument(help: "The database.")
        var database: String

        @OptionGroup var backups: BackupOptions
        @OptionGroup var key: KeyOptions

        @Option(name: .customLong("new-kdf-iter"), help: ArgumentHelp(
            "kdf_iter for the upgraded file (default: a new file's, \(CipherSettings.newFileDefaults.kdfIterations ?? 0) on SQLCipher \(SQLCipherLibrary.version)).",
            valueName: "n"))
        var newKDFIterations: Int?

        @OptionGroup var lock: LockOptions
        @OptionGroup var waiting: WaitForCloseOptions
        @OptionGroup var outputOptions: OutputOptions

        func validate() throws {
            if let newKDFIterations, newKDFIterations <= 0 { throw ValidationError("--new-kdf-iter must be a positive number.") }
        }

        func run() throws {
            try Output.run(json: outputOptions.json) {
                guard let key = try key.resolve() else { throw ToolError(.usage, "upgrade needs the database's key") }
                return try CipherRun.run("upgrade", file: database, output: database, json: outputOptions.json,
                                         lockTimeout: lock.seconds, access: .write) { progress in
                    let format = try Cipher.detectFormat(at: database, key: key.key)
                    guard format != .current else {
                        // Opened as the other commands open it: a file cut
                        // short is reported, not "nothing to do".
                        let dbQueue = try DatabaseFile.open(database, key: key, readonly: true, busyTimeout: lock.seconds)
                        defer { try? dbQueue.close() }
                        throw AlreadyDone(summary: try dbQueue.read { db in try Cipher.summary(db) },
                                          note: "already in the \(format) format; nothing to do")
                    }
                    let store = backups.store(for: database)
                    let backup = backups.noBackup ? nil : try store.copy()
                    do {
                        let report = try Cipher.upgrade(at: database, key: key.key,
                                                        newSettings: CipherSettings(kdfIterations: newKDFIterations),
                                                        replacing: waiting.replaceOptions(), progress: progress)
                        if !backups.noBackup { store.prune(keeping: backups.keep) }
                        return CipherOutcome(summary: report.summary, backup: backup, note: "upgraded from \(report.format)")
                    } catch {
                        // The file is unchanged: the backup is not needed.
                        if let backup { try? FileManager.default.removeItem(atPath: backup) }
                        throw error
                    }
                }
            }
        }
    }

    /// `verify DB`: key, integrity, every page.
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check the key, run the integrity checks, and read every row so that damaged pages show up (exit 7).",
            discussion: "On SQLCipher 4 the check includes PRAGMA cipher_integrity_check: every page's HMAC, read from the file without decrypting into the schema.")

        @Argument(help: "The database.")
        var database: String

        @OptionGroup var key: KeyOptions
        @OptionGroup var outputOptions: OutputOptions

        func run() throws {
            try Output.run(json: outputOptions.json) {
                try DatabaseFile.check(database, for: .read)
                let key = try key.resolve()
                let report: Cipher.VerifyReport
                do {
                    report = try Cipher.verify(at: database, key: key?.key)
                } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT {
                    // The key opened the file but its structure is broken
                    // (a truncated file): damaged, not "not a database".
                    let message = ErrorMapping.toolError(error, file: database).message
                    throw ToolError(.damaged, message)
                } catch {
                    throw ErrorMapping.toolError(error, file: database)
                }
                let json = VerifyJSON(file: database, ok: report.isOK, integrity: report.integrity,
                                      cipherIntegrity: report.cipherIntegrity,
                                      damagedPage: report.damagedPage, damagedTables: report.damagedTables,
                                      rowCounts: report.rowCounts)
                if outputOptions.json {
                    Output.json(json)
                } else if report.isOK {
                    let hmac = report.cipherIntegrity == nil ? "" : "every page's HMAC, "
                    Output.line("\(database): ok (key, integrity, \(hmac)\(report.rowCounts.values.reduce(0, +)) row(s) in \(report.rowCounts.count) table(s) read)")
                } else {
                    var text = "\(database): DAMAGED"
                    if let page = report.damagedPage { text += " at page \(page)" }
                    if !report.damagedTables.isEmpty { text += "; tables that do not read: \(report.damagedTables.joined(separator: ", "))" }
                    Output.line(text)
                    for message in ((report.cipherIntegrity ?? []) + report.integrity.filter { $0 != "ok" }).prefix(5) {
                        Output.line("  \(message)")
                    }
                }
                return report.isOK ? .success : .damaged
            }
        }
    }
}

struct VerifyJSON: Codable {
    var file: String
    var ok: Bool
    var integrity: [String]
    /// SQLCipher 4's HMAC failures by page; nil on SQLCipher 3.
    var cipherIntegrity: [String]?
    var damagedPage: Int?
    var damagedTables: [String]
    var rowCounts: [String: Int]
}
