import Foundation

/// The string interpolation of ``SQL`` literals and ``SQLRequest``s.
///
/// | Interpolation | SQL |
/// |---|---|
/// | a value: `\(name)` | `?`, the value bound |
/// | a column or expression: `\(Column("score") + 1)` | `"score" + ?` |
/// | a record type or table: `\(Player.self)`, `\(Table("player"))` | `"player"` |
/// | `\(columnsOf: Player.self)` | `"player".*` |
/// | a request: `\(Player.select(Column("id")))` | `SELECT "id" FROM "player"` |
/// | a sequence: `\([1, 2, 3])` | `(?,?,?)` |
/// | `\(identifier: "my table")` | `"my table"` |
/// | `\(sql: "RANDOM()")`, `\(literal: other)` | as is |
public struct SQLInterpolation: StringInterpolationProtocol {
    var elements: [SQL.Element] = []

    /// Starts a literal.
    public init(literalCapacity: Int, interpolationCount: Int) {
        elements.reserveCapacity(2 * interpolationCount + 1)
    }

    /// Appends SQL text.
    public mutating func appendLiteral(_ sql: String) {
        guard !sql.isEmpty else { return }
        elements.append(.sql(sql, StatementArguments()))
    }

    /// Raw SQL and its arguments.
    public mutating func appendInterpolation(sql: String, arguments: StatementArguments = StatementArguments()) {
        elements.append(.sql(sql, arguments))
    }

    /// Another literal.
    public mutating func appendInterpolation(_ literal: SQL) {
        elements += literal.elements
    }

    /// Another literal.
    public mutating func appendInterpolation(literal: SQL) {
        elements += literal.elements
    }

    /// A string, bound as a value.
    public mutating func appendInterpolation<S: StringProtocol>(_ string: S) {
        elements.append(.expression(String(string).sqlExpression))
    }

    /// A quoted identifier: `"my table"`.
    public mutating func appendInterpolation(identifier: String) {
        appendLiteral(identifier.quotedDatabaseIdentifier)
    }

    /// The table of a record type: `"player"`.
    public mutating func appendInterpolation(_ table: (some TableRecord).Type) {
        appendLiteral(table.databaseTableName.quotedDatabaseIdentifier)
    }

    /// The table of a record type: `"player"`.
    @_disfavoredOverload
    public mutating func appendInterpolation(_ table: any TableRecord.Type) {
        appendLiteral(table.databaseTableName.quotedDatabaseIdentifier)
    }

    /// The table of a record.
    public mutating func appendInterpolation(tableOf record: some TableRecord) {
        appendInterpolation(type(of: record))
    }

    /// The table of a record.
    @_disfavoredOverload
    public mutating func appendInterpolation(tableOf record: any TableRecord) {
        appendInterpolation(type(of: record))
    }

    /// A table: `"player"`.
    @_disfavoredOverload
    public mutating func appendInterpolation<T>(_ table: Table<T>) {
        appendLiteral(table.tableName.quotedDatabaseIdentifier)
    }

    /// The selected columns of a record type, qualified with the table or
    /// `tableAlias`: `"player".*`.
    public mutating func appendInterpolation(columnsOf recordType: (some TableRecord).Type, tableAlias: String? = nil) {
        let alias = TableAlias(tableName: recordType.databaseTableName, userName: tableAlias ?? recordType.databaseTableName)
        for (index, selectable) in recordType.databaseSelection.enumerated() {
            if index > 0 { appendLiteral(", ") }
            elements.append(.selection(selectable.sqlSelection.qualified(with: alias)))
        }
    }

    /// A selection: `*`, `"name"`, `MAX("score") AS "best"`.
    public mutating func appendInterpolation(_ selection: some SQLSelectable) {
        elements.append(.selection(selection.sqlSelection))
    }

    /// A selection, or NULL.
    @_disfavoredOverload
    public mutating func appendInterpolation(_ selection: (any SQLSelectable)?) {
        if let selection { elements.append(.selection(selection.sqlSelection)) } else { appendLiteral("NULL") }
    }

    /// An ordering term: `"score" DESC`.
    public mutating func appendInterpolation(_ ordering: some SQLOrderingTerm) {
        elements.append(.ordering(ordering.sqlOrdering))
    }

    /// An ordering term.
    @_disfavoredOverload
    public mutating func appendInterpolation(_ ordering: any SQLOrderingTerm) {
        elements.append(.ordering(ordering.sqlOrdering))
    }

    /// A column or expression.
    public mutating func appendInterpolation(_ expressible: some SQLExpressible & SQLSelectable & SQLOrderingTerm) {
        elements.append(.expression(expressible.sqlExpression))
    }

    /// A value or expression; nil is NULL.
    @_disfavoredOverload
    public mutating func appendInterpolation(_ expressible: (any SQLExpressible)?) {
        if let expressible { elements.append(.expression(expressible.sqlExpression)) } else { appendLiteral("NULL") }
    }

    /// A coding key, as the column of the same name.
    public mutating func appendInterpolation(_ key: some CodingKey) {
        appendInterpolation(Column(key.stringValue))
    }

    /// A coding key, as the column of the same name.
    @_disfavoredOverload
    public mutating func appendInterpolation(_ key: any CodingKey) {
        appendInterpolation(Column(key.stringValue))
    }

    /// A request, as a subquery (without parentheses).
    public mutating func appendInterpolation(_ subquery: some SQLSubqueryable & SQLExpressible & SQLSelectable & SQLOrderingTerm) {
        elements.append(.subquery(subquery.sqlSubquery))
    }

    /// Values or expressions, as a parenthesized list: `(?,?,?)`.
    public mutating func appendInterpolation(_ sequence: some Sequence<some SQLExpressible>) {
        appendList(sequence.map(\.sqlExpression))
    }

    /// Values or expressions, as a parenthesized list.
    public mutating func appendInterpolation(_ sequence: some Sequence<any SQLExpressible>) {
        appendList(sequence.map(\.sqlExpression))
    }

    /// A value that is itself a sequence (`Data`, `String`...), bound.
    public mutating func appendInterpolation<S>(_ expressible: S) where S: SQLExpressible, S: Sequence, S.Element: SQLExpressible {
        elements.append(.expression(expressible.sqlExpression))
    }

    /// An empty list matches nothing: `(SELECT NULL WHERE NULL)`.
    private mutating func appendList(_ expressions: [SQLExpression]) {
        guard !expressions.isEmpty else { return appendLiteral("(SELECT NULL WHERE NULL)") }
        appendLiteral("(")
        for (index, expression) in expressions.enumerated() {
            if index > 0 { appendLiteral(",") }
            elements.append(.expression(expression))
        }
        appendLiteral(")")
    }

    /// A common table expression's name.
    public mutating func appendInterpolation<T>(_ cte: CommonTableExpression<T>) {
        appendLiteral(cte.tableName.quotedDatabaseIdentifier)
    }

    /// A common table expression's definition: `name(columns) AS (...)`.
    public mutating func appendInterpolation<T>(definitionFor cte: CommonTableExpression<T>) {
        appendLiteral(cte.tableName.quotedDatabaseIdentifier)
        if let columns = cte.cte.columns, !columns.isEmpty {
            appendLiteral("(" + columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ") + ")")
        }
        appendLiteral(" AS (")
        elements.append(.subquery(cte.cte.subquery))
        appendLiteral(")")
    }

    /// A collation's name.
    public mutating func appendInterpolation(_ collation: Database.CollationName) {
        appendLiteral(collation.rawValue)
    }

    /// A custom collation's name.
    public mutating func appendInterpolation(_ collation: DatabaseCollation) {
        appendLiteral(collation.name)
    }
}
