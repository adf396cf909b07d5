import ArgumentParser
import Foundation
import SecureStore

extension MigrateToolCommand {
    /// `baseline DB --at ID`: adopt a database that was never migrated.
    struct Baseline: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record the migrations up to --at as applied on a database that has no history, after checking its schema.",
            discussion: """
                For a database made by hand, by an older app or by the sqlcipher shell: its schema must equal the \
                schema the migrations up to --at produce on a scratch database (the difference is shown, exit 4, \
                when it does not). Nothing runs on the database but the history rows (source "baseline"), in one \
                transaction, under the lock. --force records without the check.
                """)

        @Argument(help: "The database file.")
        var database: String

        @Option(name: .long, help: ArgumentHelp("The last migration the database already has.", valueName: "id"))
        var at: String

        @Flag(name: .long, help: "Record without comparing the schemas.")
        var force = false

        @OptionGroup var options: HistoryChangeOptions

        func run() throws {
            try options.run(database) { migrator, dbQueue in
                try migrator.baseline(dbQueue, at: at, force: force)
                return Array(migrator.migrations.prefix { $0 != at }) + [at]
            } text: { adopted in
                ["recorded as applied (baseline): " + adopted.joined(separator: ", ")]
            }
        }
    }

    /// `repair DB`: re-record checksums and the schema fingerprint.
    struct Repair: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "After a reviewed edit of applied migration files, or of the schema, record the new checksums and schema fingerprint.",
            discussion: "Prints what it changed, with the schema differences it accepts; nothing else in the database changes.")

        @Argument(help: "The database file.")
        var database: String

        @OptionGroup var options: HistoryChangeOptions

        func run() throws {
            try options.run(database) { migrator, dbQueue in
                try migrator.repair(dbQueue)
            } text: { changes in
                changes.isEmpty ? ["nothing to repair"] : changes
            }
        }
    }
}

/// What `baseline` and `repair` take, and how they run: a change of the
/// migration history only, under the database lock.
struct HistoryChangeOptions: ParsableArguments {
    @OptionGroup var migrations: MigrationsOptions
    @OptionGroup var key: KeyOptions
    @OptionGroup var lock: LockOptions
    @OptionGroup var output: OutputOptions

    /// Runs `change`, then prints its lines (`text` for people, the raw
    /// changes in JSON).
    func run(_ database: String, _ change: (DatabaseMigrator, DatabaseQueue) throws -> [String],
             text: ([String]) -> [String]) throws {
        try Output.run(json: output.json) {
            let (key, migrator) = try migrations.prepare(reading: database, key: key)
            try DatabaseFile.check(database, for: .write)
            let fileLock = try FileLock(path: database, timeout: lock.seconds)
            defer { withExtendedLifetime(fileLock) {} }
            let dbQueue = try DatabaseFile.open(database, key: key, readonly: false, busyTimeout: lock.seconds)
            defer { try? dbQueue.close() }
            let changes: [String]
            do {
                changes = try change(migrator, dbQueue)
            } catch {
                throw ErrorMapping.toolError(error, file: database)
            }
            if output.json {
                Output.json(HistoryChangeReport(file: database, changes: changes))
            } else {
                text(changes).forEach { Output.line("\(database): \($0)") }
            }
            return .success
        }
    }
}

/// The JSON of `baseline` and `repair`.
struct HistoryChangeReport: Codable {
    var file: String
    var changes: [String]
}
