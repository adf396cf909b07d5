/// A subquery: an SQL literal or a request, used as a value, a list
/// (`IN`), or a source (`EXISTS`, common table expressions).
public struct SQLSubquery: Sendable {
    enum Impl: Sendable {
        case literal(SQL)
        case relation(SQLRelation)
    }

    let impl: Impl

    static func literal(_ sql: SQL) -> SQLSubquery { SQLSubquery(impl: .literal(sql)) }
    static func relation(_ relation: SQLRelation) -> SQLSubquery { SQLSubquery(impl: .relation(relation)) }

    func sql(_ context: SQLGenerationContext) throws -> String {
        switch impl {
        case .literal(let sql): return try sql.sql(context)
        case .relation(let relation): return try SQLQueryGenerator(relation: relation).requestSQL(context)
        }
    }

    /// The number of columns the subquery selects.
    func columnCount(_ db: Database) throws -> Int {
        switch impl {
        case .literal(let sql):
            let context = SQLGenerationContext(db)
            return try db.cachedStatement(sql: sql.sql(context)).columnCount
        case .relation(let relation):
            return try SQLQueryGenerator(relation: relation).columnCount(db)
        }
    }

    /// The names of the columns the subquery selects.
    func columnNames(_ db: Database) throws -> [String] {
        let context = SQLGenerationContext(db)
        return try db.makeStatement(sql: sql(context)).columnNames
    }
}

extension SQLSubquery: SQLSubqueryable {
    /// The subquery itself.
    public var sqlSubquery: SQLSubquery { self }
}

/// The right side of `IN`: a list of expressions, a subquery, or a table.
struct SQLCollection: Sendable {
    enum Impl: Sendable {
        case array([SQLExpression])
        case subquery(SQLSubquery)
        case table(String)
    }

    let impl: Impl

    static func array(_ expressions: [SQLExpression]) -> SQLCollection { SQLCollection(impl: .array(expressions)) }
    static func subquery(_ subquery: SQLSubquery) -> SQLCollection { SQLCollection(impl: .subquery(subquery)) }
    static func table(_ name: String) -> SQLCollection { SQLCollection(impl: .table(name)) }

    /// The items of a list; nil for a subquery or a table.
    var expressions: [SQLExpression]? {
        if case .array(let expressions) = impl { return expressions }
        return nil
    }

    func qualified(with alias: TableAliasBase) -> SQLCollection {
        if case .array(let expressions) = impl { return .array(expressions.map { $0.qualified(with: alias) }) }
        return self
    }

    func sql(_ context: SQLGenerationContext) throws -> String {
        switch impl {
        case .array(let expressions): return try "(" + expressions.map { try $0.sql(context) }.joined(separator: ", ") + ")"
        case .subquery(let subquery): return try "(" + subquery.sql(context) + ")"
        case .table(let name): return name.quotedDatabaseIdentifier
        }
    }

    /// `value IN (...)`; false for an empty list, `=` for one item.
    func contains(_ value: SQLExpression) -> SQLExpression {
        guard case .array(let expressions) = impl else { return .in(value, self) }
        guard let first = expressions.first else { return false.sqlExpression }
        return expressions.count == 1 ? .compare(.equal, value, first) : .in(value, self)
    }
}
