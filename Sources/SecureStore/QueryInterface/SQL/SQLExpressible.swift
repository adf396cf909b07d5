/// A type that can be used as an SQL expression: columns, values,
/// expressions, SQL literals, subqueries.
///
/// ```swift
/// let score: any SQLExpressible = 1000          // a value, bound as `?`
/// let column: any SQLExpressible = Column("score")
/// ```
public protocol SQLExpressible {
    /// The expression.
    var sqlExpression: SQLExpression { get }
}

/// A column or an expression, as opposed to a plain value: the operands
/// that make `==`, `<`, `&&`... build SQL instead of comparing values. They
/// can also be selected and used for ordering.
///
/// ```swift
/// Column("score") > 1000          // an SQLExpression, not a Bool
/// ```
public protocol SQLSpecificExpressible: SQLExpressible, SQLSelectable, SQLOrderingTerm {}

extension SQLSpecificExpressible {
    /// The expression, selected: `SELECT <expression>`.
    public var sqlSelection: SQLSelection { .expression(sqlExpression) }

    /// The expression, as an ordering term in SQLite's default order.
    public var sqlOrdering: SQLOrdering { .expression(sqlExpression) }
}

extension SQLExpressible where Self == Column {
    /// The hidden `rowid` column.
    public static var rowID: Self { Column.rowID }
}

extension DatabaseValueConvertible {
    /// A value is an expression: it is bound as a statement argument.
    public var sqlExpression: SQLExpression { .databaseValue(databaseValue) }
}

/// A ``DatabaseValue`` builds SQL with the operators, as GRDB's does:
/// `DatabaseValue.null == Column("a")` is `NULL IS "a"`... and can be
/// selected: `Player.select(1.databaseValue.forKey("one"))`.
extension DatabaseValue: SQLSpecificExpressible {}

/// A type usable in `select(...)`: columns, expressions, `.allColumns`.
///
/// ```swift
/// Player.select(Column("name"), max(Column("score")).forKey("best"))
/// ```
public protocol SQLSelectable {
    /// The selection.
    var sqlSelection: SQLSelection { get }
}

/// A type usable in `order(...)`: columns, expressions, `.asc`, `.desc`.
///
/// ```swift
/// Player.order(Column("score").desc, Column("name"))
/// ```
public protocol SQLOrderingTerm {
    /// The ordering term.
    var sqlOrdering: SQLOrdering { get }
}

/// A request that can be used as a subquery: `request.contains(value)`,
/// `request.exists()`, or the request itself as a value in `select` and
/// `filter`.
///
/// ```swift
/// let bestScore = Player.select(max(Column("score")))
/// let best = Player.filter(Column("score") == bestScore)
/// ```
public protocol SQLSubqueryable: SQLSpecificExpressible {
    /// The subquery.
    var sqlSubquery: SQLSubquery { get }
}

extension SQLSubqueryable {
    /// The subquery as a value: `(SELECT ...)`.
    public var sqlExpression: SQLExpression { .subquery(sqlSubquery) }

    /// `value IN (SELECT ...)`.
    public func contains(_ element: some SQLExpressible) -> SQLExpression {
        SQLCollection.subquery(sqlSubquery).contains(element.sqlExpression)
    }

    /// `EXISTS (SELECT ...)`.
    public func exists() -> SQLExpression {
        .exists(sqlSubquery)
    }
}
