import Foundation
import Logging
import SecureStore

/// Applies or rolls back migrations on one file: lock, key check,
/// validation, backup, then each step in its own transaction.
struct MigrationJob: Sendable {
    enum Request: Sendable {
        case apply(upTo: String?)
        case rollbackTo(String)
        case rollbackSteps(Int)
        /// Every applied migration; nothing to do when none is.
        case rollbackAll
    }

    var key: DatabaseKey?
    var migrator: DatabaseMigrator
    var request: Request
    var lockTimeout: Double
    var dryRun: Bool
    var force: Bool
    var backups: BackupPolicy
    var logger: Logger
    var progress: ProgressDisplay

    func run(_ file: String) -> FileResult {
        var done: [String] = []
        do {
            try DatabaseFile.check(file, for: dryRun ? .read : .write)
            let lock = try FileLock(path: file, timeout: lockTimeout)
            defer { withExtendedLifetime(lock) {} }
            let dbQueue = try DatabaseFile.open(file, key: key, readonly: dryRun, busyTimeout: lockTimeout)
            defer { try? dbQueue.close() }

            let plan = try dbQueue.read { db -> MigrationPlan in
                if case .apply = request { try refuseInconsistentDatabase(db, file: file) }
                let plan = try makePlan(db)
                try refuseForbiddenStatements(db, plan: plan, file: file)
                return plan
            }
            if dryRun {
                return FileResult(file: file, status: .planned, steps: plan.steps, dryRun: true)
            }
            if plan.isEmpty {
                return FileResult(file: file, status: .upToDate)
            }
            let store = backups.store(for: file)
            let backup = !backups.enabled ? nil : try EncryptedBackup.make(in: store, dbQueue: dbQueue, key: key)
            if let backup { logger.info("backup of \(file) written to \(backup)") }
            do {
                try execute(plan, on: dbQueue, file: file) { done.append($0) }
            } catch {
                throw migrationFailure(error, file: file, plan: plan, done: done)
            }
            // Only now, after a successful run, are older backups removed.
            let removed = !backups.enabled ? [] : store.prune(keeping: backups.keep)
            for path in removed { logger.info("older backup \(path) removed (--keep-backups \(backups.keep))") }
            let status: FileResult.Status = plan.direction == .up ? .applied : .rolledBack
            return FileResult(file: file, status: status, steps: done, backup: backup, removedBackups: removed)
        } catch {
            var failure = FileResult.failure(file, ErrorMapping.toolError(error, file: file), steps: done)
            failure.dryRun = dryRun
            return failure
        }
    }

    private func makePlan(_ db: Database) throws -> MigrationPlan {
        switch request {
        case .apply(let target): return try migrator.plan(db, upTo: target)
        case .rollbackTo(let target): return try migrator.plan(db, rollbackTo: target)
        case .rollbackSteps(let steps): return try migrator.plan(db, rollbackSteps: steps)
        case .rollbackAll: return try migrator.plan(db, rollbackSteps: migrator.history(db).count)
        }
    }

    /// apply refuses a database whose history disagrees with the files,
    /// unless --force.
    private func refuseInconsistentDatabase(_ db: Database, file: String) throws {
        guard !force else { return }
        let validation = try migrator.validate(db)
        if !validation.superseded.isEmpty {
            throw ToolError(.superseded,
                            "\(file) has migrations these files do not know: \(validation.superseded.joined(separator: ", ")) (the database is newer); use a newer release, or --force")
        }
        if let mismatch = validation.checksumMismatches.first {
            throw ToolError(.drift,
                            "\(file): migration \"\(mismatch.identifier)\" was edited after it was applied (checksum differs); restore the file, or --force")
        }
        if let drift = validation.schemaDrift {
            let changes = (try? migrator.driftDifferences(db, since: drift.lastMigration)) ?? []
            throw ToolError(.drift,
                            "\(file): the schema changed outside migrations since \"\(drift.lastMigration)\""
                                + (changes.isEmpty ? "" : " (" + changes.joined(separator: "; ") + ")") + "; investigate, or --force")
        }
    }

    /// A migration file that would break its transaction or change the key
    /// is refused before anything runs, dry runs included (exit 78).
    private func refuseForbiddenStatements(_ db: Database, plan: MigrationPlan, file: String) throws {
        let forbidden = try migrator.forbiddenStatements(db, in: plan)
        guard !forbidden.isEmpty else { return }
        throw ToolError(.configuration, "\(file): nothing was changed: " + forbidden.map { "\($0.error)" }.joined(separator: "; "))
    }

    private func execute(_ plan: MigrationPlan, on dbQueue: DatabaseQueue, file: String,
                         didStep: @escaping (String) -> Void) throws {
        let report: (MigrationEvent) -> Void = { event in
            switch event {
            case .willApply(let id):
                logger.info("\(file): applying \(id)")
                progress.show("\(file): applying \(id)")
            case .willRollBack(let id):
                logger.info("\(file): rolling back \(id)")
                progress.show("\(file): rolling back \(id)")
            case .didApply(let id), .didRollBack(let id): didStep(id)
            }
        }
        switch request {
        case .apply(let target):
            try migrator.migrate(dbQueue, upTo: target, progress: report)
        case .rollbackTo, .rollbackSteps, .rollbackAll:
            try migrator.rollback(dbQueue, progress: report) { db in try makePlan(db) }
        }
    }

    /// A failed step: the database is at the last good migration.
    private func migrationFailure(_ error: any Error, file: String, plan: MigrationPlan, done: [String]) -> ToolError {
        let mapped = ErrorMapping.toolError(error, file: file)
        switch mapped.code {
        case .ioError, .inUse, .notADatabase:
            return mapped
        default:
            let failed = plan.steps.first { !done.contains($0) } ?? "?"
            let last = done.last.map { "\"\($0)\"" } ?? "its state before this run"
            // A failed SQL step names the migration, its file and line itself.
            switch error as? MigrationError {
            case .sqlFailed?, .forbiddenStatement?:
                return ToolError(.migrationFailed, "\(file): \(error); the database is left at \(last)")
            default:
                break
            }
            return ToolError(.migrationFailed,
                             "\(file): migration \"\(failed)\" failed: \(error); the database is left at \(last)")
        }
    }
}
