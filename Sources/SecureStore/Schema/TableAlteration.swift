/// The body of `db.alter(table:)`.
///
/// ```swift
/// try db.alter(table: "player") { t in
///     t.add(column: "email", .text)
///     t.rename(column: "name", to: "fullName")   // RENAME COLUMN; a table rebuild on SQLite 3.15
///     t.drop(column: "legacy")                   // DROP COLUMN; a table rebuild on SQLite 3.15
/// }
/// ```
public final class TableAlteration {
    enum Change {
        case add(ColumnDefinition)
        case addLiteral(SQL)
        case rename(String, String)
        case drop(String)
    }

    let name: String
    var changes: [Change] = []

    init(name: String) { self.name = name }

    /// `ALTER TABLE ... ADD COLUMN`.
    @discardableResult
    public func add(column name: String, _ type: Database.ColumnType? = nil) -> ColumnDefinition {
        let column = ColumnDefinition(name: name, type: type)
        changes.append(.add(column))
        return column
    }

    /// `ALTER TABLE ... ADD COLUMN` written in SQL.
    public func addColumn(sql: String) { changes.append(.addLiteral(SQL(sql: sql))) }

    /// `ALTER TABLE ... ADD COLUMN` written as an SQL literal.
    public func addColumn(literal: SQL) { changes.append(.addLiteral(literal)) }

    /// Renames a column: `ALTER TABLE ... RENAME COLUMN` where SQLite has it
    /// (3.25 and later: SQLCipher 4). SQLite 3.15 has none: the table is
    /// rebuilt, with its indexes, triggers and foreign keys.
    public func rename(column name: String, to newName: String) {
        changes.append(.rename(name, newName))
    }

    /// Drops a column: `ALTER TABLE ... DROP COLUMN` where SQLite has it
    /// (3.35 and later: SQLCipher 4). SQLite 3.15 has none: the table is
    /// rebuilt. A column used by an index, a constraint or a trigger cannot
    /// be dropped, either way.
    public func drop(column name: String) {
        changes.append(.drop(name))
    }
}

extension Database {
    /// Changes a table. Every change runs in the caller's transaction (or a
    /// savepoint of its own), so a failure leaves the table as it was.
    public func alter(table name: String, body: (TableAlteration) throws -> Void) throws {
        let alteration = TableAlteration(name: name)
        try body(alteration)
        try inSavepoint {
            for change in alteration.changes {
                switch change {
                case .add(let column):
                    let definition = TableDefinition(name: name, options: [])
                    let sql = try SQLTableGenerator(self, table: definition).columnSQL(column)
                    try execute(sql: "ALTER TABLE \(name.quotedDatabaseIdentifier) ADD COLUMN \(sql)")
                case .addLiteral(let literal):
                    let sql = try literal.sql(SQLGenerationContext(self, inlinesValues: true))
                    try execute(sql: "ALTER TABLE \(name.quotedDatabaseIdentifier) ADD COLUMN \(sql)")
                case let .rename(old, new) where Database.sqliteLibVersionNumber >= 3_025_000:
                    try execute(sql: """
                        ALTER TABLE \(name.quotedDatabaseIdentifier) RENAME COLUMN \(old.quotedDatabaseIdentifier) TO \(new.quotedDatabaseIdentifier)
                        """)
                case let .rename(old, new):
                    try TableRebuild(db: self, table: name).run(.rename(old, new))
                case .drop(let column) where Database.sqliteLibVersionNumber >= 3_035_000:
                    try execute(sql: "ALTER TABLE \(name.quotedDatabaseIdentifier) DROP COLUMN \(column.quotedDatabaseIdentifier)")
                case .drop(let column):
                    try TableRebuild(db: self, table: name).run(.drop(column))
                }
            }
            return .commit
        }
    }
}
