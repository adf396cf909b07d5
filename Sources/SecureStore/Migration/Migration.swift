/// One registered migration: its forward step and, if it has one, its
/// rollback step.
struct Migration: Sendable {
    let identifier: String
    let foreignKeyChecks: DatabaseMigrator.ForeignKeyChecks
    let migrate: @Sendable (Database) throws -> Void
    let rollback: (@Sendable (Database) throws -> Void)?
    /// For SQL file migrations: the up SQL's checksum.
    let checksum: String?
    /// For SQL file migrations: the down SQL, stored in the history.
    let downSQL: String?
    let source: String

    init(swift identifier: String, foreignKeyChecks: DatabaseMigrator.ForeignKeyChecks,
         migrate: @escaping @Sendable (Database) throws -> Void,
         rollback: (@Sendable (Database) throws -> Void)?) {
        self.identifier = identifier
        self.foreignKeyChecks = foreignKeyChecks
        self.migrate = migrate
        self.rollback = rollback
        self.checksum = nil
        self.downSQL = nil
        self.source = "swift"
    }

    init(file: SQLMigrationFile, foreignKeyChecks: DatabaseMigrator.ForeignKeyChecks) {
        identifier = file.identifier
        self.foreignKeyChecks = foreignKeyChecks
        migrate = { db in try Migration.runScript(file.upSQL, of: file.identifier, at: file.upURL.path, db) }
        if let downSQL = file.downSQL, let downURL = file.downURL {
            rollback = { db in try Migration.runScript(downSQL, of: file.identifier, at: downURL.path, db) }
        } else {
            rollback = nil
        }
        checksum = file.checksum
        downSQL = file.downSQL
        source = "sql"
    }

    /// Runs SQL text; a failure names the file and the line of the
    /// statement that failed.
    static func runScript(_ sql: String, of identifier: String, at path: String, _ db: Database) throws {
        do {
            try db.executeScript(sql)
        } catch {
            guard let databaseError = error.error as? DatabaseError else { throw error.error }
            throw MigrationError.sqlFailed(identifier: identifier, path: path,
                                           line: SQLMigrationFile.line(in: sql, atOffset: error.offset),
                                           error: databaseError)
        }
    }
}
