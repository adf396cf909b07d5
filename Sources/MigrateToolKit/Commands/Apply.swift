import ArgumentParser
import Foundation
import SecureStore

extension MigrateToolCommand {
    /// `apply DB... --migrations DIR`: apply pending migrations.
    struct Apply: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Apply pending migrations to one or more databases, each step atomic, after an encrypted backup.")

        @Argument(help: "The database files.")
        var databases: [String]

        @Option(name: .customLong("to"), help: ArgumentHelp("Stop after this migration.", valueName: "id"))
        var target: String?

        @Flag(name: .customLong("dry-run"), help: "Print what would be applied; change nothing.")
        var dryRun = false

        @Flag(name: .long, help: "Apply even when the database is superseded, drifted, or a file changed.")
        var force = false


        @OptionGroup var migrations: MigrationsOptions
        @OptionGroup var backups: BackupOptions
        @OptionGroup var key: KeyOptions
        @OptionGroup var lock: LockOptions
        @OptionGroup var batch: BatchOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            guard !databases.isEmpty else { throw ValidationError("Give at least one database file.") }
        }

        func run() throws {
            try Output.run(json: output.json) {
                let progress = ProgressDisplay(json: output.json)
                guard let migrator = try migrations.migrator(required: true) else { return .usage }
                let job = MigrationJob(key: try key.resolve(), migrator: migrator, request: .apply(upTo: target),
                                       lockTimeout: lock.seconds, dryRun: dryRun, force: force,
                                       backups: backups.policy, logger: Output.logger(verbose: output.verbose),
                                       progress: progress)
                let results = Batch.run(files: databases, jobs: batch.jobs, failFast: batch.failFast,
                                        progress: progress, job.run)
                if output.json { Output.json(results) } else { Batch.printText(results, verb: "apply") }
                return Batch.exitCode(results)
            }
        }
    }
}
