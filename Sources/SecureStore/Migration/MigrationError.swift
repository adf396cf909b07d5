import Foundation

/// An error of the migrator itself: a wrong request, a malformed migration
/// file, or a failed SQL migration. Errors thrown by your own Swift
/// migrations are rethrown unchanged.
public enum MigrationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Two migrations were registered with the same identifier.
    case duplicateIdentifier(String)
    /// The identifier names no registered migration.
    case unknownMigration(String)
    /// `migrate(upTo:)` names a migration that later applied ones have passed.
    case targetAlreadyPassed(target: String, appliedAfter: [String])
    /// `rollback(to:)` names a migration that is not applied.
    case targetNotApplied(String)
    /// A migration on the rollback path has no down step (neither registered
    /// nor stored in the database).
    case missingRollback(String)
    /// `rollback(steps:)` asks for more steps than there are applied migrations.
    case invalidStepCount(requested: Int, applied: Int)
    /// A migration file or directory is malformed. `line` is 0 when the
    /// problem is the file name or the directory.
    case malformedFile(path: String, line: Int, reason: String)
    /// An SQL statement of a migration file failed.
    case sqlFailed(identifier: String, path: String, line: Int, error: DatabaseError)
    /// A migration holds a statement that would break its atomicity or
    /// change the key (``StatementRefusal``): `COMMIT`, `ATTACH`, `VACUUM`,
    /// `PRAGMA rekey`... It was refused before it ran, and the migration's
    /// transaction rolled back. `path` is nil (and `line` 0) for Swift
    /// migrations.
    case forbiddenStatement(identifier: String, path: String?, line: Int, statement: String, reason: String)
    /// The migration files do not match the directory's integrity file
    /// (``MigrationIntegrityFile``): edited, removed, added out of order, or
    /// added without `migrate-tool hash`. Each problem names its file.
    case integrity(directory: String, problems: [String])
    /// `baseline`: the database's schema is not the schema the migrations up
    /// to `identifier` produce; `differences` says how (nothing was recorded).
    case baselineMismatch(identifier: String, differences: [String])
    /// `baseline`: the database has a migration history already.
    case baselineOfMigratedDatabase

    /// What went wrong, naming the migration, the file and the line when known.
    public var description: String {
        switch self {
        case .duplicateIdentifier(let identifier):
            return "migration \"\(identifier)\" is registered twice"
        case .unknownMigration(let identifier):
            return "no migration named \"\(identifier)\" is registered"
        case let .targetAlreadyPassed(target, appliedAfter):
            return "cannot migrate up to \"\(target)\": later migrations are already applied (\(appliedAfter.joined(separator: ", "))); roll back instead"
        case .targetNotApplied(let identifier):
            return "cannot roll back to \"\(identifier)\": it is not applied"
        case .missingRollback(let identifier):
            return "migration \"\(identifier)\" has no down step: nothing was rolled back"
        case let .invalidStepCount(requested, applied):
            return "cannot roll back \(requested) step(s): \(applied) migration(s) are applied"
        case let .malformedFile(path, line, reason):
            return line > 0 ? "\(path):\(line): \(reason)" : "\(path): \(reason)"
        case let .sqlFailed(identifier, path, line, error):
            let message = error.message ?? "SQLite error \(error.resultCode.rawValue)"
            return "\(path):\(line): migration \"\(identifier)\" failed: \(message) (SQLite error \(error.extendedResultCode.rawValue))"
        case let .forbiddenStatement(identifier, path, line, statement, reason):
            let place = path.map { line > 0 ? "\($0):\(line): " : "\($0): " } ?? ""
            return "\(place)migration \"\(identifier)\" refused `\(statement.trimmedSQLStatement)`: \(reason)"
        case let .baselineMismatch(identifier, differences):
            return "the schema is not the one the migrations up to \"\(identifier)\" make: "
                + differences.joined(separator: "; ") + " (nothing was recorded; check the --at migration, or --force)"
        case .baselineOfMigratedDatabase:
            return "the database has a migration history already: baseline is for databases that were never migrated"
        case let .integrity(directory, problems):
            return "\(directory) does not match its \(MigrationIntegrityFile.fileName): " + problems.joined(separator: "; ")
                + " (review the change, then run `migrate-tool hash \(directory)`)"
        }
    }
}

extension MigrationError: LocalizedError {
    /// The description.
    public var errorDescription: String? { description }
}
