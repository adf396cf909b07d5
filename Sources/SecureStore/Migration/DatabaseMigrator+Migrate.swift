import Foundation

/// What the migrator is doing, for progress displays and logs.
public enum MigrationEvent: Sendable, Hashable {
    case willApply(String)
    case didApply(String)
    case willRollBack(String)
    case didRollBack(String)
}

extension DatabaseMigrator {
    /// Applies every pending migration, in order.
    public func migrate(_ writer: any DatabaseWriter) throws {
        try migrate(writer, upTo: nil, progress: nil)
    }

    /// Applies the pending migrations up to and including
    /// `targetIdentifier`. An unknown target, or one that later applied
    /// migrations have passed, is an error and changes nothing.
    public func migrate(_ writer: any DatabaseWriter, upTo targetIdentifier: String) throws {
        try migrate(writer, upTo: targetIdentifier, progress: nil)
    }

    /// Applies pending migrations, reporting each step.
    public func migrate(
        _ writer: any DatabaseWriter, upTo targetIdentifier: String?,
        progress: ((MigrationEvent) -> Void)?
    ) throws {
        try writer.barrierWriteWithoutTransaction { db in
            try apply(db, upTo: targetIdentifier, progress: progress)
        }
    }

    /// Applies every pending migration without blocking the caller's thread.
    public func migrate(_ writer: any DatabaseWriter) async throws {
        try await writer.barrierWriteWithoutTransaction { db in
            try self.apply(db, upTo: nil, progress: nil)
        }
    }

    private func apply(_ db: Database, upTo targetIdentifier: String?, progress: ((MigrationEvent) -> Void)?) throws {
        if eraseDatabaseOnSchemaChange, try hasSchemaChanges(db) {
            try db.eraseAllObjects()
        }
        let plan = try self.plan(db, upTo: targetIdentifier)
        // SQL files are checked before anything changes.
        if let forbidden = try forbiddenStatements(db, in: plan).first { throw forbidden.error }
        for identifier in plan.steps {
            guard let migration = migration(named: identifier) else { continue }
            progress?(.willApply(identifier))
            let applied = try runStep(db, identifier: identifier, foreignKeyChecks: migration.foreignKeyChecks) {
                try Migration.guarded(identifier, db, migration.migrate)
                let order = try MigrationHistory.nextOrder(db)
                try MigrationHistory.record(db, AppliedMigration(
                    identifier: identifier, order: order, appliedAt: Date(), checksum: migration.checksum,
                    schemaFingerprint: try db.schemaFingerprint(), downSQL: migration.downSQL,
                    source: migration.source))
            } isDone: { applied in applied.contains(identifier) }
            if applied { progress?(.didApply(identifier)) }
        }
    }

    /// Rolls back the migrations applied after `targetIdentifier`, last
    /// first, each in its own transaction. If one of them has no down step,
    /// nothing is rolled back and the error names it.
    public func rollback(_ writer: any DatabaseWriter, to targetIdentifier: String) throws {
        try rollback(writer, progress: nil) { db in try plan(db, rollbackTo: targetIdentifier) }
    }

    /// Rolls back the last `steps` applied migrations.
    public func rollback(_ writer: any DatabaseWriter, steps: Int) throws {
        try rollback(writer, progress: nil) { db in try plan(db, rollbackSteps: steps) }
    }

    /// Rolls back as `makePlan` says, reporting each step.
    public func rollback(
        _ writer: any DatabaseWriter, progress: ((MigrationEvent) -> Void)?,
        plan makePlan: (Database) throws -> MigrationPlan
    ) throws {
        try writer.barrierWriteWithoutTransaction { db in
            let plan = try makePlan(db)
            if let forbidden = try forbiddenStatements(db, in: plan).first { throw forbidden.error }
            let history = try self.history(db)
            for identifier in plan.steps {
                guard let entry = history.first(where: { $0.identifier == identifier }),
                      let down = downStep(for: entry)
                else { throw MigrationError.missingRollback(identifier) }
                let checks = migration(named: identifier)?.foreignKeyChecks ?? .deferred
                progress?(.willRollBack(identifier))
                let rolledBack = try runStep(db, identifier: identifier, foreignKeyChecks: checks) {
                    try Migration.guarded(identifier, db, down)
                    try MigrationHistory.remove(db, identifier: identifier)
                } isDone: { applied in !applied.contains(identifier) }
                if rolledBack { progress?(.didRollBack(identifier)) }
            }
        }
    }

    /// Runs one step in its own immediate transaction, with the history
    /// change in the same transaction. Returns false when another process
    /// did the step first (`isDone` on the history read under the lock).
    ///
    /// With deferred checks, foreign keys are off during the step (they can
    /// only be switched outside a transaction) and checked before commit;
    /// a violation fails the step with an error that names the table.
    private func runStep(
        _ db: Database, identifier: String, foreignKeyChecks: ForeignKeyChecks,
        _ body: () throws -> Void, isDone: (Set<String>) throws -> Bool
    ) throws -> Bool {
        let foreignKeysOn = try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") ?? false
        let deferChecks = foreignKeysOn && foreignKeyChecks == .deferred
        if deferChecks { try db.execute(sql: "PRAGMA foreign_keys = OFF") }
        defer { if deferChecks { try? db.execute(sql: "PRAGMA foreign_keys = ON") } }

        var ran = false
        try db.inTransaction(.immediate) {
            if try isDone(appliedIdentifiers(db)) { return .rollback }
            try MigrationHistory.prepareForWrite(db, registered: migrations)
            try body()
            if deferChecks && defersForeignKeyChecks {
                try checkForeignKeys(db, migration: identifier)
            }
            ran = true
            return .commit
        }
        return ran
    }

    private func checkForeignKeys(_ db: Database, migration identifier: String) throws {
        guard let violation = try Row.fetchOne(db, sql: "PRAGMA foreign_key_check") else { return }
        let table: String = violation[0]
        let rowid: Int64? = violation[1]
        let parent: String = violation[2]
        let row = rowid.map { " (rowid \($0))" } ?? ""
        throw DatabaseError(
            resultCode: .SQLITE_CONSTRAINT_FOREIGNKEY,
            message: "FOREIGN KEY constraint violation in migration \"\(identifier)\": table \(table)\(row) references a missing row of \(parent)")
    }

    /// True if the migrations applied to `db` no longer make the schema it
    /// has: a registered migration was edited after it ran.
    public func hasSchemaChanges(_ db: Database) throws -> Bool {
        let applied = try appliedIdentifiers(db)
        var scratchMigrator = DatabaseMigrator()
        scratchMigrator.defersForeignKeyChecks = defersForeignKeyChecks
        for migration in registered where applied.contains(migration.identifier) {
            scratchMigrator.registered.append(migration)
        }
        let scratch = try DatabaseQueue()
        try scratchMigrator.migrate(scratch)
        let expected = try scratch.read { try $0.schemaFingerprint() }
        return try db.schemaFingerprint() != expected
    }
}

extension Database {
    /// Drops every table, index, view and trigger: the eraser of
    /// `eraseDatabaseOnSchemaChange`. The file stays encrypted.
    func eraseAllObjects() throws {
        let foreignKeysOn = try Bool.fetchOne(self, sql: "PRAGMA foreign_keys") ?? false
        if foreignKeysOn { try execute(sql: "PRAGMA foreign_keys = OFF") }
        defer { if foreignKeysOn { try? execute(sql: "PRAGMA foreign_keys = ON") } }
        try inTransaction {
            for type in ["trigger", "view", "index", "table"] {
                let names = try String.fetchAll(
                    self, sql: "SELECT name FROM sqlite_master WHERE type = ? AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
                    arguments: [type])
                for name in names {
                    try execute(sql: "DROP \(type.uppercased()) IF EXISTS \(name.quotedDatabaseIdentifier)")
                }
            }
            return .commit
        }
    }
}
