import Foundation

extension Database {
    /// Column affinities for the schema DSL.
    public struct ColumnType: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let text = ColumnType(rawValue: "TEXT")
        public static let integer = ColumnType(rawValue: "INTEGER")
        public static let double = ColumnType(rawValue: "DOUBLE")
        public static let real = ColumnType(rawValue: "REAL")
        public static let numeric = ColumnType(rawValue: "NUMERIC")
        public static let boolean = ColumnType(rawValue: "BOOLEAN")
        public static let blob = ColumnType(rawValue: "BLOB")
        public static let date = ColumnType(rawValue: "DATE")
        public static let datetime = ColumnType(rawValue: "DATETIME")
        public static let any = ColumnType(rawValue: "ANY")
    }

    /// `ON CONFLICT` clauses.
    public enum ConflictResolution: String, Sendable {
        case rollback = "ROLLBACK", abort = "ABORT", fail = "FAIL", ignore = "IGNORE", replace = "REPLACE"
    }

    /// Foreign key actions.
    public enum ForeignKeyAction: String, Sendable {
        case cascade = "CASCADE", restrict = "RESTRICT", setNull = "SET NULL", setDefault = "SET DEFAULT"
    }
}

/// Options of `create(table:options:)`.
public struct TableOptions: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let ifNotExists = TableOptions(rawValue: 1)
    public static let temporary = TableOptions(rawValue: 2)
    public static let withoutRowID = TableOptions(rawValue: 4)
}

/// The body of `db.create(table:)`.
///
/// ```swift
/// try db.create(table: "player") { t in
///     t.autoIncrementedPrimaryKey("id")
///     t.column("name", .text).notNull().collate(.nocase)
///     t.column("teamId", .integer).references("team", onDelete: .cascade).indexed()
/// }
/// ```
public final class TableDefinition {
    let name: String
    let options: TableOptions
    var elements: [Element] = []
    var columns: [ColumnDefinition] { elements.compactMap { if case .column(let c) = $0 { return c } else { return nil } } }

    enum Element {
        case column(ColumnDefinition)
        case literal(String)
        case primaryKey([String], Database.ConflictResolution?)
        case uniqueKey([String], Database.ConflictResolution?)
        case foreignKey([String], table: String, columns: [String]?, onDelete: Database.ForeignKeyAction?, onUpdate: Database.ForeignKeyAction?, deferred: Bool)
        case check(SQLExpression)
    }

    init(name: String, options: TableOptions) {
        self.name = name
        self.options = options
    }

    /// `"id" INTEGER PRIMARY KEY AUTOINCREMENT`.
    @discardableResult
    public func autoIncrementedPrimaryKey(_ name: String, onConflict: Database.ConflictResolution? = nil) -> ColumnDefinition {
        let column = ColumnDefinition(name: name, type: .integer)
        column.primaryKeyClause = (onConflict, true)
        elements.append(.column(column))
        return column
    }

    /// A primary key column: `"id" TEXT PRIMARY KEY`.
    @discardableResult
    public func primaryKey(_ name: String, _ type: Database.ColumnType, onConflict: Database.ConflictResolution? = nil) -> ColumnDefinition {
        let column = ColumnDefinition(name: name, type: type)
        column.primaryKeyClause = (onConflict, false)
        elements.append(.column(column))
        return column
    }

    /// A column; the type may be omitted.
    @discardableResult
    public func column(_ name: String, _ type: Database.ColumnType? = nil) -> ColumnDefinition {
        let column = ColumnDefinition(name: name, type: type)
        elements.append(.column(column))
        return column
    }

    /// A column written in SQL: `t.column(sql: "name TEXT")`.
    public func column(sql: String) { elements.append(.literal(sql)) }

    /// A primary key on several columns.
    public func primaryKey(_ columns: [String], onConflict: Database.ConflictResolution? = nil) {
        elements.append(.primaryKey(columns, onConflict))
    }

    /// A unique constraint on several columns.
    public func uniqueKey(_ columns: [String], onConflict: Database.ConflictResolution? = nil) {
        elements.append(.uniqueKey(columns, onConflict))
    }

    /// A foreign key on several columns.
    public func foreignKey(_ columns: [String], references table: String, columns destination: [String]? = nil,
                           onDelete: Database.ForeignKeyAction? = nil, onUpdate: Database.ForeignKeyAction? = nil,
                           deferred: Bool = false) {
        elements.append(.foreignKey(columns, table: table, columns: destination, onDelete: onDelete, onUpdate: onUpdate, deferred: deferred))
    }

    /// A table CHECK constraint.
    public func check(_ condition: some SQLExpressible) { elements.append(.check(condition.sqlExpression)) }
    public func check(sql: String) { elements.append(.check(SQLExpression(sql: sql))) }

    /// CREATE TABLE and the CREATE INDEX statements of `.indexed()` columns.
    func statements() throws -> [String] {
        var head = "CREATE "
        if options.contains(.temporary) { head += "TEMPORARY " }
        head += "TABLE "
        if options.contains(.ifNotExists) { head += "IF NOT EXISTS " }
        let body = try elements.map { element -> String in
            switch element {
            case .column(let column): return try column.sql()
            case .literal(let sql): return sql
            case let .primaryKey(columns, conflict):
                return "PRIMARY KEY (\(Self.list(columns)))" + (conflict.map { " ON CONFLICT \($0.rawValue)" } ?? "")
            case let .uniqueKey(columns, conflict):
                return "UNIQUE (\(Self.list(columns)))" + (conflict.map { " ON CONFLICT \($0.rawValue)" } ?? "")
            case let .foreignKey(columns, table, destination, onDelete, onUpdate, deferred):
                var sql = "FOREIGN KEY (\(Self.list(columns))) REFERENCES \(table.quotedDatabaseIdentifier)"
                if let destination { sql += "(\(Self.list(destination)))" }
                sql += ForeignKeyClause.actions(onDelete: onDelete, onUpdate: onUpdate, deferred: deferred)
                return sql
            case .check(let expression):
                return "CHECK (\(try SQLLiteral.inline(expression)))"
            }
        }.joined(separator: ", ")
        var create = head + name.quotedDatabaseIdentifier + " (" + body + ")"
        if options.contains(.withoutRowID) { create += " WITHOUT ROWID" }
        let indexes = columns.filter(\.isIndexed).map { column in
            "CREATE INDEX " + (options.contains(.ifNotExists) ? "IF NOT EXISTS " : "")
                + "\(name)_on_\(column.name)".quotedDatabaseIdentifier + " ON " + name.quotedDatabaseIdentifier
                + "(" + column.name.quotedDatabaseIdentifier + ")"
        }
        return [create] + indexes
    }

    static func list(_ columns: [String]) -> String {
        columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
    }
}

/// One column of a table definition.
public final class ColumnDefinition {
    let name: String
    let type: Database.ColumnType?
    var primaryKeyClause: (Database.ConflictResolution?, autoincrement: Bool)?
    var notNullClause: Database.ConflictResolution??
    var uniqueClause: Database.ConflictResolution??
    var checks: [SQLExpression] = []
    var defaultSQL: String?
    var defaultValue: DatabaseValue?
    var collation: String?
    var references: [String] = []
    var isIndexed = false

    init(name: String, type: Database.ColumnType?) {
        self.name = name
        self.type = type
    }

    @discardableResult
    public func notNull(onConflict: Database.ConflictResolution? = nil) -> Self { notNullClause = .some(onConflict); return self }

    @discardableResult
    public func unique(onConflict: Database.ConflictResolution? = nil) -> Self { uniqueClause = .some(onConflict); return self }

    @discardableResult
    public func primaryKey(onConflict: Database.ConflictResolution? = nil, autoincrement: Bool = false) -> Self {
        primaryKeyClause = (onConflict, autoincrement)
        return self
    }

    /// `CHECK (...)` built from the column: `.check { $0 > 0 }`.
    @discardableResult
    public func check(_ condition: (Column) -> any SQLExpressible) -> Self {
        checks.append(condition(Column(name)).sqlExpression)
        return self
    }

    @discardableResult
    public func check(sql: String) -> Self { checks.append(SQLExpression(sql: sql)); return self }

    /// `DEFAULT value`.
    @discardableResult
    public func defaults(to value: some DatabaseValueConvertible) -> Self { defaultValue = value.databaseValue; return self }

    /// `DEFAULT sql`.
    @discardableResult
    public func defaults(sql: String) -> Self { defaultSQL = sql; return self }

    @discardableResult
    public func collate(_ collation: Database.CollationName) -> Self { self.collation = collation.rawValue; return self }

    /// `REFERENCES table(column)`.
    @discardableResult
    public func references(_ table: String, column: String? = nil, onDelete: Database.ForeignKeyAction? = nil,
                           onUpdate: Database.ForeignKeyAction? = nil, deferred: Bool = false) -> Self {
        var clause = "REFERENCES \(table.quotedDatabaseIdentifier)"
        if let column { clause += "(\(column.quotedDatabaseIdentifier))" }
        clause += ForeignKeyClause.actions(onDelete: onDelete, onUpdate: onUpdate, deferred: deferred)
        references.append(clause)
        return self
    }

    /// Creates an index `<table>_on_<column>` after the table.
    @discardableResult
    public func indexed() -> Self { isIndexed = true; return self }

    func sql() throws -> String {
        var parts = [name.quotedDatabaseIdentifier]
        if let type { parts.append(type.rawValue) }
        if let (conflict, autoincrement) = primaryKeyClause {
            var clause = "PRIMARY KEY"
            if let conflict { clause += " ON CONFLICT \(conflict.rawValue)" }
            if autoincrement { clause += " AUTOINCREMENT" }
            parts.append(clause)
        }
        if let notNullClause { parts.append("NOT NULL" + (notNullClause.map { " ON CONFLICT \($0.rawValue)" } ?? "")) }
        if let uniqueClause { parts.append("UNIQUE" + (uniqueClause.map { " ON CONFLICT \($0.rawValue)" } ?? "")) }
        for check in checks { parts.append("CHECK (\(try SQLLiteral.inline(check)))") }
        if let defaultValue { parts.append("DEFAULT " + SQLLiteral.string(defaultValue)) }
        if let defaultSQL { parts.append("DEFAULT \(defaultSQL)") }
        if let collation { parts.append("COLLATE \(collation)") }
        parts += references
        return parts.joined(separator: " ")
    }
}

enum ForeignKeyClause {
    static func actions(onDelete: Database.ForeignKeyAction?, onUpdate: Database.ForeignKeyAction?, deferred: Bool) -> String {
        var sql = ""
        if let onDelete { sql += " ON DELETE \(onDelete.rawValue)" }
        if let onUpdate { sql += " ON UPDATE \(onUpdate.rawValue)" }
        if deferred { sql += " DEFERRABLE INITIALLY DEFERRED" }
        return sql
    }
}

/// SQL literals for DDL, where statements cannot take arguments.
enum SQLLiteral {
    static func string(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return "NULL"
        case .int64(let int): return String(int)
        case .double(let double): return "\(double)"
        case .string(let text): return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let data): return "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }

    /// An expression with its bound values written as literals.
    static func inline(_ expression: SQLExpression) throws -> String {
        var values: [DatabaseValue] = []
        let sql = expression.sql(&values)
        var result = ""
        var remaining = values[...]
        var inString = false
        for character in sql {
            if character == "'" { inString.toggle() }
            if character == "?" && !inString, let value = remaining.popFirst() {
                result += string(value)
            } else {
                result.append(character)
            }
        }
        return result
    }
}
