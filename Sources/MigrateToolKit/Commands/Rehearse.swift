import ArgumentParser
import Foundation
import SecureStore

extension MigrateToolCommand {
    /// `rehearse DB`: the pending migrations, applied to a copy.
    struct Rehearse: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Apply the pending migrations to a copy of the database, and report time, rows changed, size and integrity.",
            discussion: """
                The copy is encrypted with the same key (sqlcipher_export, read in one transaction: a consistent copy \
                even while the app writes), made in a private scratch directory (--scratch-dir, default the temporary \
                directory), and removed at the end. The database itself is only read. This is what a dry run cannot \
                tell: whether the migrations work on this data, and how long the maintenance window must be.
                """)

        @Argument(help: "The database file.")
        var database: String

        @Option(name: .customLong("scratch-dir"), help: ArgumentHelp("Where the copy goes (it needs the database's size free).", valueName: "dir"))
        var scratchDirectory: String?

        @OptionGroup var migrations: MigrationsOptions
        @OptionGroup var key: KeyOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            try Output.run(json: output.json) {
                let (key, migrator) = try migrations.prepare(reading: database, key: key)
                let report = try ScratchDirectory.with(in: scratchDirectory) { directory in
                    let copy = directory.appendingPathComponent("rehearsal.db").path
                    do {
                        _ = try Cipher.backup(at: database, key: key?.key, to: copy)
                    } catch {
                        throw ErrorMapping.toolError(error, file: database)
                    }
                    return try Self.rehearse(migrator, on: copy, key: key, file: database)
                }
                if output.json {
                    Output.json(report)
                } else {
                    if report.steps.isEmpty { Output.line("\(database): nothing pending") }
                    for step in report.steps {
                        let rows = step.rowsChanged.isEmpty ? "no rows changed"
                            : step.rowsChanged.map { "\($0.table) \($0.rows)" }.joined(separator: ", ") + " rows changed"
                        Output.line("\(step.identifier): \(step.milliseconds) ms, \(rows), \(step.sizeBefore) → \(step.sizeAfter) bytes, "
                                    + "integrity \(step.integrity.joined(separator: "; "))")
                    }
                    if let error = report.error { Output.line("failed: \(error)") }
                    Output.line("integrity: \(report.integrity.joined(separator: "; ")); the copy was removed; \(database) was not changed")
                }
                return report.error == nil ? .success : .migrationFailed
            }
        }

        /// Applies the pending migrations one by one to `copy`, measuring each.
        private static func rehearse(_ migrator: DatabaseMigrator, on copy: String, key: DatabaseKey?, file: String) throws -> RehearsalReport {
            let dbQueue = try DatabaseFile.open(copy, key: key, readonly: false, busyTimeout: 5)
            defer { try? dbQueue.close() }
            let pending = try dbQueue.read { db in try migrator.validate(db).pending }
            var report = RehearsalReport(file: file, steps: [], integrity: [])
            let counter = ChangeCounter()
            dbQueue.add(transactionObserver: counter, extent: .databaseLifetime)
            for identifier in pending {
                let sizeBefore = fileSize(copy)
                counter.reset()
                let start = DispatchTime.now().uptimeNanoseconds
                do {
                    try migrator.migrate(dbQueue, upTo: identifier)
                } catch {
                    report.error = ErrorMapping.toolError(error, file: file).message
                    break
                }
                let milliseconds = Int((DispatchTime.now().uptimeNanoseconds - start) / 1_000_000)
                let integrity = try dbQueue.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
                report.steps.append(.init(identifier: identifier, milliseconds: milliseconds, rowsChanged: counter.changes,
                                          sizeBefore: sizeBefore, sizeAfter: fileSize(copy), integrity: integrity))
            }
            report.integrity = try dbQueue.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
            return report
        }

        private static func fileSize(_ path: String) -> Int {
            (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        }
    }
}

/// The rows each table had inserted, updated or deleted, as SQLite reports
/// them to transaction observers (the migration history left out).
private final class ChangeCounter: TransactionObserver, @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [String: Int] = [:]

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        !MigrationHistory.internalTableNames.contains(eventKind.tableName.lowercased())
    }

    func databaseDidChange(with event: DatabaseEvent) {
        let table = event.tableName
        lock.withLock { counts[table, default: 0] += 1 }
    }

    func databaseDidCommit(_ db: Database) {}
    func databaseDidRollback(_ db: Database) {}

    func reset() { lock.withLock { counts = [:] } }

    var changes: [RehearsalReport.TableChanges] {
        lock.withLock { counts.sorted { $0.key < $1.key }.map { .init(table: $0.key, rows: $0.value) } }
    }
}

/// The report of `rehearse`, also its JSON.
struct RehearsalReport: Codable {
    struct TableChanges: Codable {
        var table: String
        var rows: Int
    }

    struct Step: Codable {
        var identifier: String
        var milliseconds: Int
        var rowsChanged: [TableChanges]
        var sizeBefore: Int
        var sizeAfter: Int
        /// `PRAGMA integrity_check` after this migration (the time is measured before it).
        var integrity: [String]
    }

    var file: String
    var steps: [Step]
    var integrity: [String]
    var error: String?
}
