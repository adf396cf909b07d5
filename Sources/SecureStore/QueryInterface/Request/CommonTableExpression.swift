/// A common table expression: a named subquery, embedded in a request with
/// `with(_:)`, and usable as a table (joined, or in `IN`).
///
/// ```swift
/// let bestScore = CommonTableExpression(named: "bestScore", request: Player.select(max(Column("score"))))
/// let best = Player.with(bestScore).filter(bestScore.contains(Column("score")))
/// // WITH "bestScore" AS (SELECT MAX("score") FROM "player")
/// // SELECT * FROM "player" WHERE "score" IN "bestScore"
/// ```
///
/// Recursive common table expressions work on SQLite 3.15.2.
public struct CommonTableExpression<RowDecoder>: Sendable {
    var cte: SQLCTE

    /// The name of the common table expression.
    public var tableName: String { cte.tableName }

    private init(recursive: Bool, named tableName: String, columns: [String]?, subquery: SQLSubquery) {
        cte = SQLCTE(tableName: tableName, columns: columns, subquery: subquery, isRecursive: recursive)
    }

    /// A common table expression from a request.
    public init(recursive: Bool = false, named tableName: String, columns: [String]? = nil, request: some SQLSubqueryable) {
        self.init(recursive: recursive, named: tableName, columns: columns, subquery: request.sqlSubquery)
    }

    /// A common table expression from raw SQL.
    public init(recursive: Bool = false, named tableName: String, columns: [String]? = nil, sql: String,
                arguments: StatementArguments = StatementArguments()) {
        self.init(recursive: recursive, named: tableName, columns: columns, subquery: .literal(SQL(sql: sql, arguments: arguments)))
    }

    /// A common table expression from an SQL literal.
    public init(recursive: Bool = false, named tableName: String, columns: [String]? = nil, literal sqlLiteral: SQL) {
        self.init(recursive: recursive, named: tableName, columns: columns, subquery: .literal(sqlLiteral))
    }

    var relationForAll: SQLRelation { .all(fromTable: tableName) }

    /// Every row of the common table expression.
    public func all() -> QueryInterfaceRequest<RowDecoder> { QueryInterfaceRequest(relation: relationForAll) }

    /// `value IN cteName`.
    public func contains(_ element: some SQLExpressible) -> SQLExpression {
        SQLCollection.table(tableName).contains(element.sqlExpression)
    }
}

extension CommonTableExpression where RowDecoder == Row {
    /// A common table expression of rows, from a request.
    public init(recursive: Bool = false, named tableName: String, columns: [String]? = nil, request: some SQLSubqueryable) {
        self.init(recursive: recursive, named: tableName, columns: columns, subquery: request.sqlSubquery)
    }

    /// A common table expression of rows, from raw SQL.
    public init(recursive: Bool = false, named tableName: String, columns: [String]? = nil, sql: String,
                arguments: StatementArguments = StatementArguments()) {
        self.init(recursive: recursive, named: tableName, columns: columns, subquery: .literal(SQL(sql: sql, arguments: arguments)))
    }

    /// A common table expression of rows, from an SQL literal.
    public init(recursive: Bool = false, named tableName: String, columns: [String]? = nil, literal sqlLiteral: SQL) {
        self.init(recursive: recursive, named: tableName, columns: columns, subquery: .literal(sqlLiteral))
    }
}

/// The untyped common table expression.
struct SQLCTE: Sendable {
    var tableName: String
    var columns: [String]?
    var subquery: SQLSubquery
    var isRecursive: Bool

    func columnCount(_ db: Database) throws -> Int {
        if let columns { return columns.count }
        return try explainingFailure { try subquery.columnCount(db) }
    }

    func columnNames(_ db: Database) throws -> [String] {
        if let columns { return columns }
        return try explainingFailure { try subquery.columnNames(db) }
    }

    /// A CTE whose SQL refers to other CTEs cannot be compiled alone, and
    /// SecureStore does not parse SQL to find them: the error says how to
    /// give the columns instead.
    private func explainingFailure<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR {
            let message = ["Can't compute the number of columns in the \(String(reflecting: tableName)) common table expression",
                           error.message].compactMap { $0 }.joined(separator: ": ")
                + ". Check the syntax of the SQL definition, or provide the explicit list of selected columns"
                + " with the `columns` parameter in the CommonTableExpression initializer."
            throw DatabaseError(resultCode: error.extendedResultCode, message: message, sql: error.sql,
                                arguments: error.arguments, publicStatementArguments: error.publicStatementArguments)
        }
    }
}
