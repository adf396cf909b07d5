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

    /// Applies every pending migration on the writer's queue and returns at
    /// once; `completion` gets the connection (to write more before any
    /// other access) or the error that stopped the migrations.
    ///
    /// ```swift
    /// migrator.asyncMigrate(dbPool) { result in
    ///     guard case .success(let db) = result else { return }
    ///     try? db.execute(sql: "INSERT INTO brandRGDB (brandId, name) VALUES ('z', 'Zalora')")
    /// }
    /// ```
    public func asyncMigrate(
        _ writer: any DatabaseWriter,
        completion: @escaping @Sendable (Result<Database, any Error>) -> Void
    ) {
        writer.asyncBarrierWriteWithoutTransaction { result in
            completion(Result {
                let db = try result.get()
                try self.apply(db, upTo: nil, progress: nil)
                return db
            })
        }
    }

    /// Applies the plan without a schema source (``Database/withSchemaSource(_:execute:)``).
    private func apply(_ db: Database, upTo targetIdentifier: String?, progress: ((MigrationEvent) -> Void)?) throws {
        try db.withSchemaSource(nil) {
            if eraseDatabaseOnSchemaChange, try hasSchemaChanges(db) {
                try db.eraseAllObjects()
            }
            let plan = try self.plan(db, upTo: targetIdentifier)
            // SQL files are checked before anything changes.
            if let forbidden = try forbiddenStatements(db, in: plan).first { throw forbidden.error }
            try forgetMergedMigrations(db, upTo: targetIdentifier)
            for identifier in plan.steps {
                try applyStep(db, identifier: identifier, progress: progress)
            }
        }
    }

    /// Runs one migration of a plan, with its history row; the merged
    /// migrations it replaces leave the history in the same transaction.
    private func applyStep(_ db: Database, identifier: String, progress: ((MigrationEvent) -> Void)?) throws {
        guard let migration = migration(named: identifier) else { return }
        progress?(.willApply(identifier))
        let started = Date()
        let applied = try audited(db, identifier, .apply, source: migration.source, started: started) {
            try runStep(db, checks: migration.foreignKeyChecks, checksAtCommit: migration.checksForeignKeysAtCommit) {
                let merged = try migration.mergedIdentifiers.intersection(appliedIdentifiers(db))
                try Migration.guarded(identifier, db) { db in try migration.migrate(db, merged) }
                for mergedIdentifier in merged.sorted() {
                    try MigrationHistory.remove(db, identifier: mergedIdentifier)
                }
                let order = try MigrationHistory.nextOrder(db)
                try MigrationHistory.record(db, AppliedMigration(
                    identifier: identifier, order: order, appliedAt: Date(), checksum: migration.checksum,
                    schemaFingerprint: try db.schemaFingerprint(), downSQL: migration.downSQL,
                    source: migration.source))
                try MigrationAuditLog.record(db, identifier: identifier, action: .apply, outcome: "applied",
                                             source: migration.source, process: auditedProcess, started: started)
            } isDone: { applied in applied.contains(identifier) }
        }
        if applied { progress?(.didApply(identifier)) }
    }

    /// Removes from the history the migrations that an applied migration
    /// merged (a database that ran the merging migration's old form, then
    /// the merged ones were registered), in one transaction.
    private func forgetMergedMigrations(_ db: Database, upTo targetIdentifier: String?) throws {
        let applied = try appliedIdentifiers(db)
        let candidates = targetIdentifier.flatMap { target in registered.firstIndex { $0.identifier == target } }
            .map { registered[...$0] } ?? registered[...]
        let forgotten = candidates
            .filter { applied.contains($0.identifier) }
            .flatMap { $0.mergedIdentifiers.intersection(applied) }
        guard !forgotten.isEmpty else { return }
        try db.inTransaction(.immediate) {
            try MigrationHistory.prepareForWrite(db, registered: migrations)
            for identifier in Set(forgotten).sorted() { try MigrationHistory.remove(db, identifier: identifier) }
            return .commit
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
            try db.withSchemaSource(nil) { try rollBack(db, progress: progress, plan: makePlan) }
        }
    }

    private func rollBack(
        _ db: Database, progress: ((MigrationEvent) -> Void)?, plan makePlan: (Database) throws -> MigrationPlan
    ) throws {
        let plan = try makePlan(db)
        if let forbidden = try forbiddenStatements(db, in: plan).first { throw forbidden.error }
        let history = try self.history(db)
        for identifier in plan.steps {
            guard let entry = history.first(where: { $0.identifier == identifier }),
                  let down = downStep(for: entry)
            else { throw MigrationError.missingRollback(identifier) }
            let known = migration(named: identifier)
            progress?(.willRollBack(identifier))
            let started = Date(), source = known?.source ?? entry.source
            let rolledBack = try audited(db, identifier, .rollback, source: source, started: started) {
                try runStep(db, checks: known?.foreignKeyChecks ?? .deferred,
                            checksAtCommit: known?.checksForeignKeysAtCommit ?? defersForeignKeyChecks) {
                    try Migration.guarded(identifier, db, down)
                    try MigrationHistory.remove(db, identifier: identifier)
                    try MigrationAuditLog.record(db, identifier: identifier, action: .rollback, outcome: "rolled back",
                                                 source: source, process: auditedProcess, started: started)
                } isDone: { applied in !applied.contains(identifier) }
            }
            if rolledBack { progress?(.didRollBack(identifier)) }
        }
    }

    /// Runs a step; when it fails, its failure is added to the audit trail
    /// (after the step's transaction rolled back) and the error rethrown.
    private func audited<T>(
        _ db: Database, _ identifier: String, _ action: MigrationAuditEvent.Action, source: String, started: Date,
        _ step: () throws -> T
    ) throws -> T {
        do {
            return try step()
        } catch {
            MigrationAuditLog.recordFailure(db, identifier: identifier, action: action, source: source,
                                            process: auditedProcess, started: started, error: error)
            throw error
        }
    }

    /// Runs one step in its own immediate transaction, with the history
    /// change in the same transaction. Returns false when another process
    /// did the step first (`isDone` on the history read under the lock).
    ///
    /// With deferred checks, foreign keys are off during the step (they can
    /// only be switched outside a transaction) and, unless the migration was
    /// registered after ``disablingDeferredForeignKeyChecks()``, checked
    /// before commit: a violation fails the step with GRDB's error, which
    /// names the foreign key and shows the row.
    private func runStep(
        _ db: Database, checks: ForeignKeyChecks, checksAtCommit: Bool,
        _ body: () throws -> Void, isDone: (Set<String>) throws -> Bool
    ) throws -> Bool {
        let foreignKeysOn = try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") ?? false
        let deferChecks = foreignKeysOn && checks == .deferred
        // The defer comes first: SQLite applies the pragma as it compiles
        // it, so even a refused run (a cancelled access) has switched it.
        defer { if deferChecks { try? db.uncancellable { try db.execute(sql: "PRAGMA foreign_keys = ON") } } }
        if deferChecks { try db.execute(sql: "PRAGMA foreign_keys = OFF") }

        var ran = false
        try db.inTransaction(.immediate) {
            if try isDone(appliedIdentifiers(db)) { return .rollback }
            try MigrationHistory.prepareForWrite(db, registered: migrations)
            try body()
            if deferChecks && checksAtCommit { try db.checkForeignKeys() }
            ran = true
            return .commit
        }
        return ran
    }

    /// True if the migrations applied to `db` no longer make the schema it
    /// has: a registered migration was edited after it ran, or the database
    /// applied a migration this migrator does not know (renamed or removed).
    ///
    /// The applied migrations run again in a scratch file opened with the
    /// connection's configuration (its key and functions), in a private
    /// temporary directory removed afterwards; internal tables
    /// (`sqlite_*`, the migration history) are not compared.
    public func hasSchemaChanges(_ db: Database) throws -> Bool {
        try db.withSchemaSource(nil) { try migrationsChangedSchema(db) }
    }

    /// The name of the scratch directories of ``hasSchemaChanges(_:)``,
    /// before their random part.
    package static let scratchPrefix = "securestore-migrator-"

    private func migrationsChangedSchema(_ db: Database) throws -> Bool {
        let applied = try appliedIdentifiers(db)
        guard applied.isSubset(of: migrations) else { return true }
        guard !applied.isEmpty else { return false }
        var scratchMigrator = DatabaseMigrator()
        scratchMigrator.registered = registered.filter { applied.contains($0.identifier) }
        let expected = try PrivateFile.withTemporaryDirectory(prefix: DatabaseMigrator.scratchPrefix) { directory in
            var configuration = db.configuration
            configuration.readonly = false
            configuration.targetQueue = nil
            configuration.writeTargetQueue = nil
            configuration.keyCache = nil
            configuration.label = "SecureStore.DatabaseMigrator.scratch"
            let scratch = try DatabaseQueue(path: directory.appendingPathComponent("scratch.sqlite").path,
                                            configuration: configuration)
            defer { try? scratch.close() }
            try scratchMigrator.migrate(scratch)
            return try scratch.read { try $0.schemaFingerprint() }
        }
        return try db.schemaFingerprint() != expected
    }
}

extension Database {
    /// Drops every table, index, view and trigger: the eraser of
    /// `eraseDatabaseOnSchemaChange`. The file stays encrypted.
    func eraseAllObjects() throws {
        let foreignKeysOn = try Bool.fetchOne(self, sql: "PRAGMA foreign_keys") ?? false
        defer { if foreignKeysOn { try? uncancellable { try execute(sql: "PRAGMA foreign_keys = ON") } } }
        if foreignKeysOn { try execute(sql: "PRAGMA foreign_keys = OFF") }
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
