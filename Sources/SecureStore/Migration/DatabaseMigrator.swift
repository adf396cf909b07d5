import Foundation

/// Applies and rolls back named migrations, in order, each in its own
/// transaction.
///
/// ```swift
/// var migrator = DatabaseMigrator()
/// migrator.registerMigration("Zalora-v1") { db in
///     try db.execute(sql: "CREATE TABLE brandRGDB (brandId TEXT PRIMARY KEY, name TEXT)")
/// } rollback: { db in
///     try db.execute(sql: "DROP TABLE brandRGDB")
/// }
/// try migrator.migrate(dbQueue)                       // apply what is pending
/// try migrator.rollback(dbQueue, steps: 1)            // undo the last one
/// ```
///
/// A migration and its history row commit together: a migration that
/// fails leaves the database exactly as the previous one left it.
///
/// ## Topics
///
/// ### Registering
///
/// - ``registerMigration(_:foreignKeyChecks:migrate:)``
/// - ``registerMigration(_:foreignKeyChecks:migrate:rollback:)``
/// - ``registerMigration(_:foreignKeyChecks:merging:migrate:)``
/// - ``registerMigrations(from:foreignKeyChecks:verifyingIntegrity:)``
///
/// ### Migrating
///
/// - ``migrate(_:)-ikek``
/// - ``migrate(_:upTo:)``
/// - ``asyncMigrate(_:completion:)``
/// - ``rollback(_:to:)``
/// - ``rollback(_:steps:)``
///
/// ### Inspecting
///
/// - ``appliedMigrations(_:)``
/// - ``appliedIdentifiers(_:)``
/// - ``completedMigrations(_:)``
/// - ``hasCompletedMigrations(_:)``
/// - ``hasBeenSuperseded(_:)``
/// - ``history(_:)``
/// - ``validate(_:)``
/// - ``plan(_:upTo:)``
///
/// ### Auditing
///
/// - ``auditEvents(_:since:)``
/// - ``auditedProcess``
/// - ``MigrationAuditEvent``
public struct DatabaseMigrator: Sendable {
    /// How foreign keys are checked while a migration runs.
    public enum ForeignKeyChecks: Sendable {
        /// Foreign keys are off while the migration runs, and checked once
        /// at its end, before commit: a migration may rebuild tables.
        case deferred
        /// Foreign keys stay on: each statement is checked as it runs.
        case immediate
    }

    /// A development aid: when a registered migration changed after it was
    /// applied (the schema it makes differs), erase the database and apply
    /// everything again. Never enable it for data you want to keep.
    public var eraseDatabaseOnSchemaChange = false

    /// The program named in the audit events this migrator records
    /// (``MigrationAuditEvent/process``): by default the app's bundle name,
    /// or its executable's name. migrate-tool sets its name and version.
    public var auditedProcess: String = DatabaseMigrator.defaultAuditedProcess

    var defersForeignKeyChecks = true
    var registered: [Migration] = []
    private var duplicates: [String] = []

    /// The options with their defaults, for ArgumentParser to fill.
    public init() {}

    /// A migrator whose `.deferred` migrations registered from now on do
    /// not check foreign keys at all (those registered before keep their
    /// checks): faster on large databases, at your own risk.
    public func disablingDeferredForeignKeyChecks() -> DatabaseMigrator {
        var migrator = self
        migrator.defersForeignKeyChecks = false
        return migrator
    }

    /// The identifiers of the registered migrations, in order.
    public var migrations: [String] { registered.map(\.identifier) }

    /// Registers a migration with no rollback step.
    ///
    /// Registering an identifier twice is reported by the next `migrate`,
    /// `rollback` or `validate`, which throw
    /// ``MigrationError/duplicateIdentifier(_:)`` before changing anything.
    public mutating func registerMigration(
        _ identifier: String,
        foreignKeyChecks: ForeignKeyChecks = .deferred,
        migrate: @escaping @Sendable (Database) throws -> Void
    ) {
        append(Migration(swift: identifier, foreignKeyChecks: foreignKeyChecks,
                         migrate: { db, _ in try migrate(db) }, rollback: nil))
    }

    /// Registers a migration that replaces migrations of an older release.
    ///
    /// The releases that shipped "v1", "v2" and "v3" can be followed by one
    /// whose "v3" does all three; its second argument is the set of the
    /// merged migrations that a database had already applied:
    ///
    /// ```swift
    /// migrator.registerMigration("v3", merging: ["v1", "v2"]) { db, applied in
    ///     if !applied.contains("v1") { /* what v1 did */ }
    ///     if !applied.contains("v2") { /* what v2 did */ }
    ///     // what v3 did
    /// }
    /// ```
    ///
    /// The merged identifiers leave the history in the transaction of the
    /// merging migration (or, when it is already applied, at the next
    /// `migrate`). Name the merging migration after the last one it
    /// merges, or give it a new name; never the name of an earlier one.
    public mutating func registerMigration(
        _ identifier: String,
        foreignKeyChecks: ForeignKeyChecks = .deferred,
        merging mergedIdentifiers: Set<String> = [],
        migrate: @escaping @Sendable (_ db: Database, _ appliedIdentifiers: Set<String>) throws -> Void
    ) {
        append(Migration(swift: identifier, foreignKeyChecks: foreignKeyChecks, merging: mergedIdentifiers,
                         migrate: migrate, rollback: nil))
    }

    /// Registers a migration and the step that undoes it.
    ///
    /// ```swift
    /// migrator.registerMigration("Zalora-v2") { db in
    ///     try db.execute(sql: "ALTER TABLE brandRGDB ADD COLUMN language TEXT")
    /// } rollback: { db in
    ///     // rebuild the table without the column
    /// }
    /// ```
    public mutating func registerMigration(
        _ identifier: String,
        foreignKeyChecks: ForeignKeyChecks = .deferred,
        migrate: @escaping @Sendable (Database) throws -> Void,
        rollback: @escaping @Sendable (Database) throws -> Void
    ) {
        append(Migration(swift: identifier, foreignKeyChecks: foreignKeyChecks,
                         migrate: { db, _ in try migrate(db) }, rollback: rollback))
    }

    /// Registers the migrations of a directory of SQL files (see
    /// ``SQLMigrationFile`` for the layout), after those already registered.
    /// A directory with an integrity file (``MigrationIntegrityFile``) must
    /// match it, unless `verifyingIntegrity` is false.
    public mutating func registerMigrations(
        from directory: URL, foreignKeyChecks: ForeignKeyChecks = .deferred, verifyingIntegrity: Bool = true
    ) throws {
        if verifyingIntegrity { try MigrationIntegrityFile.check(directory: directory) }
        for file in try SQLMigrationFile.load(directory: directory) {
            append(Migration(file: file, foreignKeyChecks: foreignKeyChecks))
        }
    }

    private mutating func append(_ migration: Migration) {
        var migration = migration
        migration.checksForeignKeysAtCommit = defersForeignKeyChecks
        if registered.contains(where: { $0.identifier == migration.identifier }) {
            duplicates.append(migration.identifier)
        }
        registered.append(migration)
    }

    func checkRegistrations() throws {
        if let duplicate = duplicates.first { throw MigrationError.duplicateIdentifier(duplicate) }
    }

    func migration(named identifier: String) -> Migration? {
        registered.first { $0.identifier == identifier }
    }
}
