/// A term of an `ORDER BY` clause.
///
/// ```swift
/// Player.order(Column("score").desc, Column("name").collating(.nocase))
/// ```
public struct SQLOrdering: Sendable {
    enum Impl: Sendable {
        case expression(SQLExpression)
        case asc(SQLExpression)
        case desc(SQLExpression)
        case ascNullsLast(SQLExpression)
        case descNullsFirst(SQLExpression)
        case literal(SQL)
    }

    let impl: Impl

    static func expression(_ expression: SQLExpression) -> SQLOrdering { SQLOrdering(impl: .expression(expression)) }
    static func literal(_ sql: SQL) -> SQLOrdering { SQLOrdering(impl: .literal(sql)) }

    func sql(_ context: SQLGenerationContext) throws -> String {
        switch impl {
        case .expression(let expression): return try expression.sql(context)
        case .asc(let expression): return try expression.sql(context) + " ASC"
        case .desc(let expression): return try expression.sql(context) + " DESC"
        case .ascNullsLast(let expression):
            try context.db.requireSQLite(3_030_000, feature: "NULLS LAST")
            return try expression.sql(context) + " ASC NULLS LAST"
        case .descNullsFirst(let expression):
            try context.db.requireSQLite(3_030_000, feature: "NULLS FIRST")
            return try expression.sql(context) + " DESC NULLS FIRST"
        case .literal(let sql): return try sql.sql(context)
        }
    }

    func qualified(with alias: TableAliasBase) -> SQLOrdering {
        switch impl {
        case .expression(let expression): return SQLOrdering(impl: .expression(expression.qualified(with: alias)))
        case .asc(let expression): return SQLOrdering(impl: .asc(expression.qualified(with: alias)))
        case .desc(let expression): return SQLOrdering(impl: .desc(expression.qualified(with: alias)))
        case .ascNullsLast(let expression): return SQLOrdering(impl: .ascNullsLast(expression.qualified(with: alias)))
        case .descNullsFirst(let expression): return SQLOrdering(impl: .descNullsFirst(expression.qualified(with: alias)))
        case .literal(let sql): return SQLOrdering(impl: .literal(sql.qualified(with: alias)))
        }
    }

    /// The opposite order. An SQL literal cannot be reversed: order by an
    /// expression literal instead (`SQL("...").sqlExpression`).
    var reversed: SQLOrdering {
        get throws {
            switch impl {
            case .expression(let expression), .asc(let expression): return SQLOrdering(impl: .desc(expression))
            case .desc(let expression): return SQLOrdering(impl: .asc(expression))
            case .ascNullsLast(let expression): return SQLOrdering(impl: .descNullsFirst(expression))
            case .descNullsFirst(let expression): return SQLOrdering(impl: .ascNullsLast(expression))
            case .literal:
                throw DatabaseError(resultCode: .SQLITE_MISUSE,
                                    message: "an ordering literal cannot be reversed: order by an expression instead, such as SQL(\"...\").sqlExpression")
            }
        }
    }
}

extension SQLOrdering: SQLOrderingTerm {
    /// The ordering itself.
    public var sqlOrdering: SQLOrdering { self }
}

extension SQLSpecificExpressible {
    /// Ascending order: `"name" ASC`.
    public var asc: SQLOrdering { SQLOrdering(impl: .asc(sqlExpression)) }

    /// Descending order: `"score" DESC`.
    public var desc: SQLOrdering { SQLOrdering(impl: .desc(sqlExpression)) }

    /// Ascending, NULLs last: needs SQLite 3.30 (this SQLCipher has 3.15.2,
    /// and throws when the request runs).
    public var ascNullsLast: SQLOrdering { SQLOrdering(impl: .ascNullsLast(sqlExpression)) }

    /// Descending, NULLs first: needs SQLite 3.30.
    public var descNullsFirst: SQLOrdering { SQLOrdering(impl: .descNullsFirst(sqlExpression)) }
}
