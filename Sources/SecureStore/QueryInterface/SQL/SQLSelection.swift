/// What a request selects: all columns, a column, an expression, an
/// aliased expression, or an SQL literal.
///
/// ```swift
/// Player.select(.allColumns, (Column("score") * 2).forKey("double"))
/// ```
public struct SQLSelection: Sendable {
    enum Impl: Sendable {
        case allColumns
        case qualifiedAllColumns(TableAliasBase)
        case allColumnsExcluding(Set<String>)
        case qualifiedAllColumnsExcluding(TableAliasBase, Set<String>)
        case expression(SQLExpression)
        case aliasedExpression(SQLExpression, String)
        case literal(SQL)
    }

    let impl: Impl

    static let allColumns = SQLSelection(impl: .allColumns)
    static func expression(_ expression: SQLExpression) -> SQLSelection { SQLSelection(impl: .expression(expression)) }
    static func aliasedExpression(_ expression: SQLExpression, _ name: String) -> SQLSelection {
        SQLSelection(impl: .aliasedExpression(expression, name))
    }
    static func literal(_ sql: SQL) -> SQLSelection { SQLSelection(impl: .literal(sql)) }
    static func qualifiedAllColumns(_ alias: TableAliasBase) -> SQLSelection { SQLSelection(impl: .qualifiedAllColumns(alias)) }

    func qualified(with alias: TableAliasBase) -> SQLSelection {
        switch impl {
        case .qualifiedAllColumns, .qualifiedAllColumnsExcluding: return self
        case .allColumns: return .qualifiedAllColumns(alias)
        case .allColumnsExcluding(let excluded): return SQLSelection(impl: .qualifiedAllColumnsExcluding(alias, excluded))
        case .expression(let expression): return .expression(expression.qualified(with: alias))
        case let .aliasedExpression(expression, name): return .aliasedExpression(expression.qualified(with: alias), name)
        case .literal(let sql): return .literal(sql.qualified(with: alias))
        }
    }

    func sql(_ context: SQLGenerationContext) throws -> String {
        switch impl {
        case .allColumns:
            return "*"
        case .allColumnsExcluding:
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "allColumns(excluding:) needs a table: use it in a request of a table")
        case .qualifiedAllColumns(let alias):
            return context.qualifier(for: alias).map { $0.quotedDatabaseIdentifier + ".*" } ?? "*"
        case let .qualifiedAllColumnsExcluding(alias, excluded):
            let names = try context.columnNames(in: alias.tableName)
            let kept = names.filter { !excluded.contains($0.lowercased()) }
            if kept.count == names.count {
                return context.qualifier(for: alias).map { $0.quotedDatabaseIdentifier + ".*" } ?? "*"
            }
            return try kept.map { try SQLExpression.qualifiedColumn($0, alias).sql(context) }.joined(separator: ", ")
        case .expression(let expression):
            return try expression.sql(context)
        case let .aliasedExpression(expression, name):
            return try expression.sql(context) + " AS " + name.quotedDatabaseIdentifier
        case .literal(let sql):
            return try sql.sql(context)
        }
    }

    /// The number of columns selected; nil when only SQLite knows (`*` of
    /// no particular table, a literal).
    func columnCount(_ context: SQLGenerationContext) throws -> Int? {
        switch impl {
        case .allColumns, .allColumnsExcluding, .literal: return nil
        case .qualifiedAllColumns(let alias): return try context.columnCount(in: alias.tableName)
        case let .qualifiedAllColumnsExcluding(alias, excluded): return try context.columnCount(in: alias.tableName, excluding: excluded)
        case .expression, .aliasedExpression: return 1
        }
    }

    /// How `SELECT COUNT(...)` counts what this selection selects.
    enum Count { case all, distinct(SQLExpression) }

    func count(distinct: Bool) -> Count? {
        switch impl {
        case .allColumns, .allColumnsExcluding: return distinct ? nil : .all
        case .qualifiedAllColumns, .qualifiedAllColumnsExcluding, .literal: return nil
        case .expression(let expression), .aliasedExpression(let expression, _): return distinct ? .distinct(expression) : .all
        }
    }

    var isAggregate: Bool {
        switch impl {
        case .expression(let expression), .aliasedExpression(let expression, _): return expression.isAggregate
        default: return false
        }
    }

    /// Aliased expressions and literals can only be counted by wrapping.
    var requiresTrivialCount: Bool {
        switch impl {
        case .aliasedExpression, .literal: return true
        default: return false
        }
    }
}

extension SQLSelection: SQLSelectable {
    /// The selection itself.
    public var sqlSelection: SQLSelection { self }
}

extension [SQLSelection] {
    /// The number of columns selected, known without running the request.
    func columnCount(_ context: SQLGenerationContext) throws -> Int {
        try reduce(0) { total, selection in
            guard let count = try selection.columnCount(context) else {
                throw DatabaseError(resultCode: .SQLITE_MISUSE,
                                    message: "SQL literals do not say how many columns they select: select expressions instead")
            }
            return total + count
        }
    }
}

/// Every column: `SELECT *`.
public struct AllColumns: Sendable, SQLSelectable {
    /// Every column.
    public init() {}

    /// `*`.
    public var sqlSelection: SQLSelection { .allColumns }
}

/// Every column but some: `SELECT "a", "b"` for a table of columns a, b, c.
public struct AllColumnsExcluding: Sendable, SQLSelectable {
    let excluded: Set<String>

    /// Every column but these (names compared ignoring case).
    public init(_ excludedColumns: some Collection<String>) {
        excluded = Set(excludedColumns.map { $0.lowercased() })
    }

    /// The selection.
    public var sqlSelection: SQLSelection { SQLSelection(impl: .allColumnsExcluding(excluded)) }
}

extension SQLSelectable where Self == AllColumns {
    /// Every column: `SELECT *`.
    public static var allColumns: AllColumns { AllColumns() }
}

extension SQLSelectable where Self == AllColumnsExcluding {
    /// Every column but these.
    public static func allColumns(excluding excludedColumns: some Collection<String>) -> Self {
        AllColumnsExcluding(excludedColumns)
    }

    /// Every column but these.
    public static func allColumns(excluding excludedColumns: some Collection<any ColumnExpression>) -> Self {
        AllColumnsExcluding(excludedColumns.map(\.name))
    }
}

extension SQLSelectable where Self == Column {
    /// The hidden `rowid` column.
    public static var rowID: Self { Column.rowID }
}
