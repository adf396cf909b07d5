/// One registered migration: its forward step and, if it has one, its
/// rollback step.
struct Migration: Sendable {
    let identifier: String
    let foreignKeyChecks: DatabaseMigrator.ForeignKeyChecks
    /// The migrations of an older release that this one replaces
    /// (``DatabaseMigrator/registerMigration(_:foreignKeyChecks:merging:migrate:)``).
    let mergedIdentifiers: Set<String>
    /// The forward step; its second argument is the set of merged
    /// migrations already applied when it runs.
    let migrate: @Sendable (Database, Set<String>) throws -> Void
    /// False when a `.deferred` migration was registered after
    /// ``DatabaseMigrator/disablingDeferredForeignKeyChecks()``: foreign
    /// keys are off while it runs and not checked at its end.
    var checksForeignKeysAtCommit = true
    let rollback: (@Sendable (Database) throws -> Void)?
    /// For SQL file migrations: the up SQL's checksum.
    let checksum: String?
    /// For SQL file migrations: the down SQL, stored in the history.
    let downSQL: String?
    let source: String
    /// The files of an SQL migration.
    let file: SQLMigrationFile?

    init(swift identifier: String, foreignKeyChecks: DatabaseMigrator.ForeignKeyChecks,
         merging mergedIdentifiers: Set<String> = [],
         migrate: @escaping @Sendable (Database, Set<String>) throws -> Void,
         rollback: (@Sendable (Database) throws -> Void)?) {
        self.identifier = identifier
        self.foreignKeyChecks = foreignKeyChecks
        // A migration that names itself among those it merges merges the
        // others (as GRDB reads it).
        self.mergedIdentifiers = mergedIdentifiers.subtracting([identifier])
        self.migrate = migrate
        self.rollback = rollback
        self.checksum = nil
        self.downSQL = nil
        self.source = "swift"
        self.file = nil
    }

    init(file: SQLMigrationFile, foreignKeyChecks: DatabaseMigrator.ForeignKeyChecks) {
        identifier = file.identifier
        self.foreignKeyChecks = foreignKeyChecks
        mergedIdentifiers = []
        migrate = { db, _ in try Migration.runScript(file.upSQL, of: file.identifier, at: file.upURL.path, db) }
        if let downSQL = file.downSQL, let downURL = file.downURL {
            rollback = { db in try Migration.runScript(downSQL, of: file.identifier, at: downURL.path, db) }
        } else {
            rollback = nil
        }
        checksum = file.checksum
        downSQL = file.downSQL
        source = "sql"
        self.file = file
    }

    /// Runs SQL text; a failure names the file and the line of the
    /// statement that failed.
    static func runScript(_ sql: String, of identifier: String, at path: String, _ db: Database) throws {
        do {
            try db.executeScript(sql)
        } catch {
            let line = SQLMigrationFile.line(in: sql, atOffset: error.offset)
            if let refused = error.error as? StatementRefusalError {
                throw MigrationError.forbiddenStatement(identifier: identifier, path: path, line: line,
                                                        statement: refused.sql ?? "", reason: refused.refusal.description)
            }
            guard let databaseError = error.error as? DatabaseError else { throw error.error }
            throw MigrationError.sqlFailed(identifier: identifier, path: path, line: line, error: databaseError)
        }
    }

    /// Runs a migration's up or down step with the statements that would
    /// break its atomicity refused by SQLite's authorizer.
    static func guarded(_ identifier: String, _ db: Database, _ step: (Database) throws -> Void) throws {
        do {
            try db.guardingMigration { try step(db) }
        } catch let refused as StatementRefusalError {
            // A Swift migration: no file, no line.
            throw MigrationError.forbiddenStatement(identifier: identifier, path: nil, line: 0,
                                                    statement: refused.sql ?? refused.refusal.action,
                                                    reason: refused.refusal.description)
        }
    }
}
