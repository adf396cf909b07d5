import ArgumentParser
import Foundation
import SecureStore

extension MigrateToolCommand {
    /// `rollback DB... (--to ID | --steps N)`: undo migrations.
    struct Rollback: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Roll back migrations, with down steps from the files or the down SQL stored in the database.")

        @Argument(help: "The database files.")
        var databases: [String]

        @Option(name: .customLong("to"), help: ArgumentHelp("Roll back until this migration is the last applied.", valueName: "id"))
        var target: String?

        @Option(name: .long, help: "Roll back this many migrations.")
        var steps: Int?

        @Flag(name: .long, help: "Roll back every applied migration (succeeds with nothing to do when none is).")
        var all = false

        @Flag(name: .customLong("dry-run"), help: "Print what would be rolled back; change nothing.")
        var dryRun = false


        @OptionGroup var migrations: MigrationsOptions
        @OptionGroup var backups: BackupOptions
        @OptionGroup var key: KeyOptions
        @OptionGroup var lock: LockOptions
        @OptionGroup var batch: BatchOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            guard !databases.isEmpty else { throw ValidationError("Give at least one database file.") }
            guard [target != nil, steps != nil, all].filter({ $0 }).count == 1 else {
                throw ValidationError("Give exactly one of --to, --steps and --all.")
            }
            if let steps, steps < 1 { throw ValidationError("--steps must be 1 or more.") }
        }

        func run() throws {
            try Output.run(json: output.json) {
                let progress = ProgressDisplay(json: output.json)
                // Without migrations, every down step comes from the database.
                let migrator = try migrations.migrator(required: false) ?? ToolContext.emptyMigrator()
                let request: MigrationJob.Request = all ? .rollbackAll : target.map { .rollbackTo($0) } ?? .rollbackSteps(steps ?? 1)
                let job = MigrationJob(key: try key.resolve(), migrator: migrator, request: request,
                                       lockTimeout: lock.seconds, dryRun: dryRun, force: true,
                                       backups: backups.policy, logger: Output.logger(verbose: output.verbose),
                                       progress: progress)
                let results = Batch.run(files: databases, jobs: batch.jobs, failFast: batch.failFast,
                                        progress: progress, job.run)
                if output.json { Output.json(results) } else { Batch.printText(results, verb: "roll back") }
                return Batch.exitCode(results)
            }
        }
    }
}
