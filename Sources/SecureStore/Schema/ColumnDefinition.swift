/// One column of `create(table:)` or `alter(table:)`.
///
/// ```swift
/// t.column("score", .integer).notNull().defaults(to: 0).check { $0 >= 0 }.indexed()
/// ```
public final class ColumnDefinition {
    enum Indexing {
        case index
        case unique(Database.ConflictResolution)
    }

    struct ForeignKeyConstraint {
        var destinationTable: String
        var destinationColumn: String?
        var deleteAction: Database.ForeignKeyAction?
        var updateAction: Database.ForeignKeyAction?
        var isDeferred: Bool
    }

    /// Whether a generated column is stored.
    public enum GeneratedColumnQualification: Sendable {
        /// Computed when read.
        case virtual
        /// Computed when written.
        case stored
    }

    let name: String
    let type: Database.ColumnType?
    var primaryKey: (conflictResolution: Database.ConflictResolution?, autoincrement: Bool)?
    var indexing: Indexing?
    var notNullConflictResolution: Database.ConflictResolution?
    var checkConstraints: [SQLExpression] = []
    var foreignKeyConstraints: [ForeignKeyConstraint] = []
    var defaultExpression: SQLExpression?
    var collationName: String?
    var generated: (expression: SQLExpression, qualification: GeneratedColumnQualification)?

    init(name: String, type: Database.ColumnType?) {
        self.name = name
        self.type = type
    }

    /// `PRIMARY KEY`, optionally `AUTOINCREMENT`.
    @discardableResult
    public func primaryKey(onConflict conflictResolution: Database.ConflictResolution? = nil, autoincrement: Bool = false) -> Self {
        primaryKey = (conflictResolution, autoincrement)
        return self
    }

    /// `NOT NULL`.
    @discardableResult
    public func notNull(onConflict conflictResolution: Database.ConflictResolution? = nil) -> Self {
        notNullConflictResolution = conflictResolution ?? .abort
        return self
    }

    /// `UNIQUE`.
    @discardableResult
    public func unique(onConflict conflictResolution: Database.ConflictResolution? = nil) -> Self {
        indexing = .unique(conflictResolution ?? .abort)
        return self
    }

    /// An index `<table>_on_<column>`, created after the table.
    @discardableResult
    public func indexed() -> Self {
        if indexing == nil { indexing = .index }
        return self
    }

    /// `CHECK (...)` built from the column: `.check { $0 > 0 }`.
    @discardableResult
    public func check(_ condition: (Column) -> any SQLExpressible) -> Self {
        checkConstraints.append(condition(Column(name)).sqlExpression)
        return self
    }

    /// `CHECK (sql)`.
    @discardableResult
    public func check(sql: String) -> Self {
        checkConstraints.append(SQL(sql: sql).sqlExpression)
        return self
    }

    /// `DEFAULT value`, written as an SQL literal.
    @discardableResult
    public func defaults(to value: some DatabaseValueConvertible) -> Self {
        defaultExpression = value.sqlExpression
        return self
    }

    /// `DEFAULT sql`.
    @discardableResult
    public func defaults(sql: String) -> Self {
        defaultExpression = SQL(sql: sql).sqlExpression
        return self
    }

    /// `COLLATE name`.
    @discardableResult
    public func collate(_ collation: Database.CollationName) -> Self {
        collationName = collation.rawValue
        return self
    }

    /// `COLLATE name` of a custom collation.
    @discardableResult
    public func collate(_ collation: DatabaseCollation) -> Self {
        collationName = collation.name
        return self
    }

    /// `GENERATED ALWAYS AS (sql)`: needs SQLite 3.31 (creating the
    /// table throws on 3.15.2).
    @discardableResult
    public func generatedAs(sql: String, _ qualification: GeneratedColumnQualification = .virtual) -> Self {
        generated = (SQL(sql: sql).sqlExpression, qualification)
        return self
    }

    /// `GENERATED ALWAYS AS (expression)`: needs SQLite 3.31.
    @discardableResult
    public func generatedAs(_ expression: some SQLExpressible, _ qualification: GeneratedColumnQualification = .virtual) -> Self {
        generated = (expression.sqlExpression, qualification)
        return self
    }

    /// `REFERENCES table(column)`; the destination's primary key when
    /// `column` is nil.
    @discardableResult
    public func references(_ table: String, column: String? = nil, onDelete deleteAction: Database.ForeignKeyAction? = nil,
                           onUpdate updateAction: Database.ForeignKeyAction? = nil, deferred isDeferred: Bool = false) -> Self {
        foreignKeyConstraints.append(ForeignKeyConstraint(destinationTable: table, destinationColumn: column,
                                                          deleteAction: deleteAction, updateAction: updateAction,
                                                          isDeferred: isDeferred))
        return self
    }
}

/// The foreign key of `t.belongsTo(...)`.
public final class ForeignKeyDefinition {
    enum Indexing { case index, unique }

    let name: String
    let table: String?
    let deleteAction: Database.ForeignKeyAction?
    let updateAction: Database.ForeignKeyAction?
    var indexing: Indexing?
    let isDeferred: Bool
    var notNullConflictResolution: Database.ConflictResolution?

    init(name: String, table: String?, deleteAction: Database.ForeignKeyAction?, updateAction: Database.ForeignKeyAction?,
         isIndexed: Bool, isDeferred: Bool) {
        self.name = name
        self.table = table
        self.deleteAction = deleteAction
        self.updateAction = updateAction
        self.indexing = isIndexed ? .index : nil
        self.isDeferred = isDeferred
    }

    /// The foreign key columns are `NOT NULL`.
    @discardableResult
    public func notNull(onConflict conflictResolution: Database.ConflictResolution? = nil) -> Self {
        notNullConflictResolution = conflictResolution ?? .abort
        return self
    }

    /// The foreign key columns are unique (a one-to-one association).
    @discardableResult
    public func unique() -> Self {
        indexing = .unique
        return self
    }

    /// The referenced table: `inTable`, or a table named like the key, or
    /// its plural.
    func destinationTable(_ db: Database) throws -> String {
        if let table { return table }
        if try db.tableExists(name) { return name }
        if try db.tableExists(name.pluralized) { return name.pluralized }
        throw DatabaseError(resultCode: .SQLITE_ERROR, message: "no such table: \(name)")
    }
}

/// Options of `create(index:)`.
public struct IndexOptions: OptionSet, Sendable {
    /// The options' bits.
    public let rawValue: Int
    /// Options from bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// `CREATE INDEX IF NOT EXISTS`.
    public static let ifNotExists = IndexOptions(rawValue: 1 << 0)
    /// `CREATE UNIQUE INDEX`.
    public static let unique = IndexOptions(rawValue: 1 << 1)
}

/// Options of `create(view:)`.
public struct ViewOptions: OptionSet, Sendable {
    /// The options' bits.
    public let rawValue: Int
    /// Options from bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// `CREATE VIEW IF NOT EXISTS`.
    public static let ifNotExists = ViewOptions(rawValue: 1 << 0)
    /// `CREATE TEMPORARY VIEW`.
    public static let temporary = ViewOptions(rawValue: 1 << 1)
}

/// An index to create.
struct IndexDefinition {
    var name: String
    var table: String
    var expressions: [SQLExpression]
    var options: IndexOptions
    var condition: SQLExpression?

    /// `CREATE [UNIQUE] INDEX [IF NOT EXISTS] "name" ON "table"(...) [WHERE ...]`.
    func sql(_ db: Database) throws -> String {
        var sql: SQL = "CREATE"
        if options.contains(.unique) { sql += " UNIQUE" }
        sql += " INDEX"
        if options.contains(.ifNotExists) { sql += " IF NOT EXISTS" }
        sql += " \(identifier: name) ON \(identifier: table)("
        sql += expressions.map { SQL($0) }.joined(separator: ", ")
        sql += ")"
        if let condition { sql += " WHERE \(condition)" }
        return try sql.sql(SQLGenerationContext(db, inlinesValues: true))
    }
}

extension Database {
    /// `index_<table>_on_<a>_<b>`: the name of indexes created without one.
    static func defaultIndexName(on table: String, columns: [String]) -> String {
        "index_\(table)_on_\(columns.joined(separator: "_"))"
    }
}
