import Foundation

/// What `migrate` or `rollback` would do, computed without changing
/// anything: the basis of dry runs.
public struct MigrationPlan: Sendable, Hashable {
    /// Which way a plan goes.
    public enum Direction: String, Sendable {
        /// Applying migrations.
        case up
        /// Rolling them back.
        case down
    }

    /// Up applies migrations; down rolls them back.
    public var direction: Direction
    /// The identifiers, in the order they would run.
    public var steps: [String]

    /// True when there is nothing to do.
    public var isEmpty: Bool { steps.isEmpty }

    /// A plan of these steps.
    public init(direction: Direction, steps: [String]) {
        self.direction = direction
        self.steps = steps
    }
}

/// The state of a database's migrations compared with a migrator.
public struct MigrationValidation: Sendable, Hashable {
    /// A migration file changed after it was applied.
    public struct ChecksumMismatch: Sendable, Hashable {
        /// The migration.
        public var identifier: String
        /// The checksum in the history.
        public var recorded: String
        /// The checksum of the file now.
        public var current: String
    }

    /// The schema changed outside migrations since the last one.
    public struct SchemaDrift: Sendable, Hashable {
        /// The last applied migration that recorded a fingerprint.
        public var lastMigration: String
        /// The fingerprint in the history.
        public var recorded: String
        /// The fingerprint of the schema now.
        public var current: String
    }

    /// Registered migrations not applied yet, in order.
    public var pending: [String]
    /// Applied migrations this migrator does not know: the database was
    /// migrated by a newer release.
    public var superseded: [String]
    /// Applied migrations whose file changed since.
    public var checksumMismatches: [ChecksumMismatch]
    /// The schema change outside migrations, if any.
    public var schemaDrift: SchemaDrift?

    /// True when nothing is superseded, changed or drifted (pending
    /// migrations are normal).
    public var isConsistent: Bool {
        superseded.isEmpty && checksumMismatches.isEmpty && schemaDrift == nil
    }
}

extension DatabaseMigrator {
    /// The history recorded in the database, in the order it was applied.
    public func history(_ db: Database) throws -> [AppliedMigration] {
        try MigrationHistory.read(db, registered: migrations)
    }

    /// The identifiers of registered migrations that are applied, in the
    /// order of registration.
    public func appliedMigrations(_ db: Database) throws -> [String] {
        let applied = try appliedIdentifiers(db)
        return migrations.filter(applied.contains)
    }

    /// The identifiers of every applied migration, registered or not.
    public func appliedIdentifiers(_ db: Database) throws -> Set<String> {
        Set(try history(db).map(\.identifier))
    }

    /// The registered migrations that are applied along with every one
    /// registered before them.
    public func completedMigrations(_ db: Database) throws -> [String] {
        let applied = try appliedIdentifiers(db)
        return Array(migrations.prefix { applied.contains($0) })
    }

    /// True if every registered migration is applied.
    public func hasCompletedMigrations(_ db: Database) throws -> Bool {
        try completedMigrations(db).count == migrations.count
    }

    /// True if the database holds migrations this migrator does not know.
    public func hasBeenSuperseded(_ db: Database) throws -> Bool {
        let known = Set(migrations)
        return try appliedIdentifiers(db).contains { !known.contains($0) }
    }

    /// Compares the database with this migrator: pending and superseded
    /// migrations, edited migration files, schema changed outside migrations.
    public func validate(_ db: Database) throws -> MigrationValidation {
        try checkRegistrations()
        let history = try self.history(db)
        let applied = Set(history.map(\.identifier))
        let known = Set(migrations)
        var mismatches: [MigrationValidation.ChecksumMismatch] = []
        for entry in history {
            if let recorded = entry.checksum, let current = migration(named: entry.identifier)?.checksum,
               recorded != current {
                mismatches.append(.init(identifier: entry.identifier, recorded: recorded, current: current))
            }
        }
        var drift: MigrationValidation.SchemaDrift?
        if let last = history.last(where: { $0.schemaFingerprint != nil }), let recorded = last.schemaFingerprint {
            let current = try db.schemaFingerprint()
            if current != recorded {
                drift = .init(lastMigration: last.identifier, recorded: recorded, current: current)
            }
        }
        return MigrationValidation(
            pending: migrations.filter { !applied.contains($0) },
            superseded: history.map(\.identifier).filter { !known.contains($0) },
            checksumMismatches: mismatches,
            schemaDrift: drift)
    }

    /// What ``migrate(_:upTo:)`` would apply (all pending migrations when
    /// `targetIdentifier` is nil).
    public func plan(_ db: Database, upTo targetIdentifier: String? = nil) throws -> MigrationPlan {
        try checkRegistrations()
        let applied = try appliedIdentifiers(db)
        var candidates = migrations
        if let targetIdentifier {
            guard let index = migrations.firstIndex(of: targetIdentifier) else {
                throw MigrationError.unknownMigration(targetIdentifier)
            }
            let later = migrations[(index + 1)...].filter(applied.contains)
            if !later.isEmpty {
                throw MigrationError.targetAlreadyPassed(target: targetIdentifier, appliedAfter: Array(later))
            }
            candidates = Array(migrations[...index])
        }
        return MigrationPlan(direction: .up, steps: candidates.filter { !applied.contains($0) })
    }

    /// What ``rollback(_:to:)`` would undo, last applied first.
    public func plan(_ db: Database, rollbackTo targetIdentifier: String) throws -> MigrationPlan {
        try checkRegistrations()
        let history = try self.history(db)
        guard let index = history.firstIndex(where: { $0.identifier == targetIdentifier }) else {
            if migration(named: targetIdentifier) == nil { throw MigrationError.unknownMigration(targetIdentifier) }
            throw MigrationError.targetNotApplied(targetIdentifier)
        }
        return try rollbackPlan(history[(index + 1)...])
    }

    /// What ``rollback(_:steps:)`` would undo, last applied first.
    public func plan(_ db: Database, rollbackSteps steps: Int) throws -> MigrationPlan {
        try checkRegistrations()
        let history = try self.history(db)
        guard steps >= 0, steps <= history.count else {
            throw MigrationError.invalidStepCount(requested: steps, applied: history.count)
        }
        return try rollbackPlan(history.suffix(steps))
    }

    /// Refuses the whole plan when one step cannot be undone.
    private func rollbackPlan(_ entries: ArraySlice<AppliedMigration>) throws -> MigrationPlan {
        for entry in entries.reversed() where downStep(for: entry) == nil {
            throw MigrationError.missingRollback(entry.identifier)
        }
        return MigrationPlan(direction: .down, steps: entries.reversed().map(\.identifier))
    }

    /// The statements of the SQL that `plan` would run which a migration
    /// may not run (``ForbiddenStatement``): the up files of an up plan;
    /// the down files, or the down SQL stored in the database, of a down
    /// plan. Swift migrations are checked as they run.
    public func forbiddenStatements(_ db: Database, in plan: MigrationPlan) throws -> [ForbiddenStatement] {
        let history = plan.direction == .down ? try self.history(db) : []
        var found: [ForbiddenStatement] = []
        for identifier in plan.steps {
            let file = migration(named: identifier)?.file
            switch plan.direction {
            case .up:
                guard let file else { continue }
                found += try ForbiddenStatement.find(in: file.upSQL, identifier: identifier, path: file.upURL.path)
            case .down:
                if let file, let downSQL = file.downSQL, let downURL = file.downURL {
                    found += try ForbiddenStatement.find(in: downSQL, identifier: identifier, path: downURL.path)
                } else if migration(named: identifier)?.rollback == nil,
                          let stored = history.first(where: { $0.identifier == identifier })?.downSQL {
                    found += try ForbiddenStatement.find(in: stored, identifier: identifier, path: Self.storedDownSQLPath)
                }
            }
        }
        return found
    }

    /// Where the down SQL of a migration comes from when its file is gone.
    static let storedDownSQLPath = "(down SQL stored in the database)"

    /// The down step of an applied migration: the registered one, else the
    /// down SQL stored when it was applied.
    func downStep(for entry: AppliedMigration) -> (@Sendable (Database) throws -> Void)? {
        if let rollback = migration(named: entry.identifier)?.rollback { return rollback }
        guard let downSQL = entry.downSQL else { return nil }
        let identifier = entry.identifier
        return { db in
            try Migration.runScript(downSQL, of: identifier, at: DatabaseMigrator.storedDownSQLPath, db)
        }
    }
}
