/// Options of `create(table:options:)`.
public struct TableOptions: OptionSet, Sendable {
    /// The options' bits.
    public let rawValue: Int
    /// Options from bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// `CREATE TABLE IF NOT EXISTS`.
    public static let ifNotExists = TableOptions(rawValue: 1 << 0)
    /// `CREATE TEMPORARY TABLE`.
    public static let temporary = TableOptions(rawValue: 1 << 1)
    /// `WITHOUT ROWID`.
    public static let withoutRowID = TableOptions(rawValue: 1 << 2)
    /// `STRICT`: needs SQLite 3.37 (creating the table throws on 3.15.2).
    public static let strict = TableOptions(rawValue: 1 << 3)
}

/// The body of `db.create(table:)`: columns first, then table
/// constraints, in the SQL GRDB writes.
///
/// ```swift
/// try db.create(table: "book") { t in
///     t.autoIncrementedPrimaryKey("id")
///     t.column("title", .text).notNull().collate(.nocase)
///     t.belongsTo("author", onDelete: .cascade).notNull()   // "authorId" INTEGER REFERENCES "author"("id")
///     t.uniqueKey(["authorId", "title"])
/// }
/// ```
///
/// ## Topics
///
/// ### Columns
///
/// - ``column(_:_:)``
/// - ``autoIncrementedPrimaryKey(_:onConflict:)``
/// - ``primaryKey(_:_:onConflict:)``
/// - ``belongsTo(_:inTable:onDelete:onUpdate:deferred:indexed:)``
/// - ``column(sql:)``
///
/// ### Constraints
///
/// - ``primaryKey(_:onConflict:)``
/// - ``primaryKey(onConflict:body:)``
/// - ``uniqueKey(_:onConflict:)``
/// - ``foreignKey(_:references:columns:onDelete:onUpdate:deferred:)``
/// - ``check(_:)-(SQLSpecificExpressible)``
/// - ``constraint(sql:)``
public final class TableDefinition {
    /// The columns of a key: names, or definitions made in a
    /// `primaryKey { }` body.
    struct KeyConstraint {
        enum Component {
            case columnName(String)
            case column(ColumnDefinition)
            case foreignKey(ForeignKeyDefinition)
        }
        var components: [Component]
        var conflictResolution: Database.ConflictResolution?
    }

    /// Column-like items, in the order they were declared.
    enum ColumnComponent {
        case column(ColumnDefinition)
        case literal(SQL)
        case foreignKeyDefinition(ForeignKeyDefinition)
        case foreignKeyConstraint(ForeignKeyConstraint)
    }

    /// A table FOREIGN KEY constraint.
    struct ForeignKeyConstraint {
        var columns: [String]
        var destinationTable: String
        var destinationColumns: [String]?
        var deleteAction: Database.ForeignKeyAction?
        var updateAction: Database.ForeignKeyAction?
        var isDeferred: Bool
    }

    let name: String
    let options: TableOptions
    var columnComponents: [ColumnComponent] = []
    var primaryKeyConstraint: KeyConstraint?
    var uniqueKeyConstraints: [KeyConstraint] = []
    var checkConstraints: [SQLExpression] = []
    var literalConstraints: [SQL] = []
    /// A mistake in the definition, thrown when the table is created.
    var definitionError: DatabaseError?
    private var inPrimaryKeyBody = false

    init(name: String, options: TableOptions) {
        self.name = name
        self.options = options
    }

    /// `"id" INTEGER PRIMARY KEY AUTOINCREMENT`.
    @discardableResult
    public func autoIncrementedPrimaryKey(_ name: String, onConflict conflictResolution: Database.ConflictResolution? = nil) -> ColumnDefinition {
        column(name, .integer).primaryKey(onConflict: conflictResolution, autoincrement: true)
    }

    /// A primary key column: `"id" TEXT PRIMARY KEY NOT NULL` (an INTEGER
    /// key is the rowid, never NULL).
    @discardableResult
    public func primaryKey(_ name: String, _ type: Database.ColumnType,
                           onConflict conflictResolution: Database.ConflictResolution? = nil) -> ColumnDefinition {
        let column = column(name, type).primaryKey(onConflict: conflictResolution)
        return type == .integer ? column : column.notNull()
    }

    /// A primary key of the columns and foreign keys defined in `body`.
    ///
    /// ```swift
    /// t.primaryKey {
    ///     t.belongsTo("citizen")
    ///     t.belongsTo("country")
    /// }
    /// ```
    public func primaryKey(onConflict conflictResolution: Database.ConflictResolution? = nil, body: () throws -> Void) rethrows {
        guard primaryKeyConstraint == nil else {
            definitionError = DatabaseError(resultCode: .SQLITE_MISUSE, message: "table \(name) defines several primary keys")
            return
        }
        primaryKeyConstraint = KeyConstraint(components: [], conflictResolution: conflictResolution)
        let wasInBody = inPrimaryKeyBody
        inPrimaryKeyBody = true
        defer { inPrimaryKeyBody = wasInBody }
        try body()
    }

    /// A column; the type may be omitted.
    @discardableResult
    public func column(_ name: String, _ type: Database.ColumnType? = nil) -> ColumnDefinition {
        let column = ColumnDefinition(name: name, type: type)
        columnComponents.append(.column(column))
        if inPrimaryKeyBody {
            column.notNull()
            primaryKeyConstraint?.components.append(.column(column))
        }
        return column
    }

    /// A column written in SQL: `t.column(sql: "name TEXT")`.
    public func column(sql: String) { column(literal: SQL(sql: sql)) }

    /// A column written as an SQL literal.
    public func column(literal: SQL) { columnComponents.append(.literal(literal)) }

    /// `PRIMARY KEY (a, b)`.
    public func primaryKey(_ columns: [String], onConflict conflictResolution: Database.ConflictResolution? = nil) {
        guard primaryKeyConstraint == nil else {
            definitionError = DatabaseError(resultCode: .SQLITE_MISUSE, message: "table \(name) defines several primary keys")
            return
        }
        primaryKeyConstraint = KeyConstraint(components: columns.map { .columnName($0) }, conflictResolution: conflictResolution)
    }

    /// `UNIQUE (a, b)`.
    public func uniqueKey(_ columns: [String], onConflict conflictResolution: Database.ConflictResolution? = nil) {
        uniqueKeyConstraints.append(KeyConstraint(components: columns.map { .columnName($0) }, conflictResolution: conflictResolution))
    }

    /// `FOREIGN KEY (a, b) REFERENCES table(c, d)`.
    public func foreignKey(_ columns: [String], references table: String, columns destinationColumns: [String]? = nil,
                           onDelete deleteAction: Database.ForeignKeyAction? = nil,
                           onUpdate updateAction: Database.ForeignKeyAction? = nil, deferred isDeferred: Bool = false) {
        columnComponents.append(.foreignKeyConstraint(ForeignKeyConstraint(
            columns: columns, destinationTable: table, destinationColumns: destinationColumns,
            deleteAction: deleteAction, updateAction: updateAction, isDeferred: isDeferred)))
    }

    /// The foreign key columns of an association to another table:
    /// `t.belongsTo("author")` adds `"authorId"` (named after the key of
    /// `author`, or `authors`, or `inTable`), references it, and indexes it.
    @discardableResult
    public func belongsTo(_ name: String, inTable table: String? = nil,
                          onDelete deleteAction: Database.ForeignKeyAction? = nil,
                          onUpdate updateAction: Database.ForeignKeyAction? = nil,
                          deferred isDeferred: Bool = false, indexed: Bool = true) -> ForeignKeyDefinition {
        let foreignKey = ForeignKeyDefinition(name: name, table: table, deleteAction: deleteAction, updateAction: updateAction,
                                              isIndexed: indexed && !inPrimaryKeyBody, isDeferred: isDeferred)
        columnComponents.append(.foreignKeyDefinition(foreignKey))
        if inPrimaryKeyBody {
            foreignKey.notNull()
            primaryKeyConstraint?.components.append(.foreignKey(foreignKey))
        }
        return foreignKey
    }

    /// `CHECK (condition)`.
    public func check(_ condition: some SQLSpecificExpressible) { checkConstraints.append(condition.sqlExpression) }

    /// A check constraint on a value: `t.check("a < b")` checks the string
    /// 'a < b', not the comparison. Deprecated as in GRDB: use
    /// `check(sql:)` or an expression.
    @available(*, deprecated, message: "a string is checked as a value: use check(sql:) or an expression")
    public func check(_ condition: some SQLExpressible) { checkConstraints.append(condition.sqlExpression) }

    /// `CHECK (sql)`.
    public func check(sql: String) { checkConstraints.append(SQL(sql: sql).sqlExpression) }

    /// A table constraint written in SQL.
    public func constraint(sql: String) { literalConstraints.append(SQL(sql: sql)) }

    /// A table constraint written as an SQL literal.
    public func constraint(literal: SQL) { literalConstraints.append(literal) }
}
