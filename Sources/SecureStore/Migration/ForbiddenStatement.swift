/// A statement of a migration that would break its atomicity or change the
/// key: `COMMIT`, `ATTACH`, `VACUUM`, `PRAGMA rekey`... (see
/// ``StatementRefusal``).
///
/// SQL migrations are checked before anything runs: `migrate`, `rollback`
/// and migrate-tool's `apply`, `rollback`, `status` and `lint` report them
/// with the file and the line. Swift migrations are checked as they run,
/// by SQLite's authorizer, and fail with
/// ``MigrationError/forbiddenStatement(identifier:path:line:statement:reason:)``.
///
/// ```swift
/// for found in try SQLMigrationFile.load(directory: url).flatMap({ try $0.forbiddenStatements() }) {
///     print(found.error)   // 0002_two.up.sql:2: migration "two" refused `COMMIT`: ...
/// }
/// ```
public struct ForbiddenStatement: Sendable, Hashable {
    /// The migration's identifier.
    public var identifier: String
    /// The file (or where the SQL came from).
    public var path: String
    /// The 1-based line where the statement starts.
    public var line: Int
    /// The statement, without the comments before it.
    public var statement: String
    /// What the statement does, and why it is refused.
    public var refusal: StatementRefusal

    /// The error `migrate` throws for it.
    public var error: MigrationError {
        .forbiddenStatement(identifier: identifier, path: path, line: line, statement: statement,
                            reason: refusal.description)
    }

    /// The statements of `sql` that a migration may not run.
    static func find(in sql: String, identifier: String, path: String) throws -> [ForbiddenStatement] {
        try Database.refusals(inScript: sql).map { offset, statement, refusal in
            ForbiddenStatement(identifier: identifier, path: path,
                               line: SQLMigrationFile.line(in: sql, atOffset: offset),
                               statement: statement, refusal: refusal)
        }
    }
}

extension SQLMigrationFile {
    /// The statements of the up and down files that a migration may not
    /// run, in file order (up first).
    public func forbiddenStatements() throws -> [ForbiddenStatement] {
        var found = try ForbiddenStatement.find(in: upSQL, identifier: identifier, path: upURL.path)
        if let downSQL, let downURL {
            found += try ForbiddenStatement.find(in: downSQL, identifier: identifier, path: downURL.path)
        }
        return found
    }
}
