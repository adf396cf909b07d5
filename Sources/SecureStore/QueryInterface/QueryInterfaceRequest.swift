/// A request built with the query interface.
///
/// ```swift
/// let request = Player
///     .filter(Column("score") > 1000)
///     .order(Column("name").desc)
///     .limit(10)
/// let players = try request.fetchAll(db)   // SELECT * FROM "player" WHERE "score" > 1000 ORDER BY "name" DESC LIMIT 10
/// ```
public struct QueryInterfaceRequest<RowDecoder>: FetchRequest {
    var tableName: String
    var selection: [SQLSelection]
    var isDistinct = false
    var predicates: [SQLExpression] = []
    var groupings: [SQLExpression] = []
    var havings: [SQLExpression] = []
    var orderings: [SQLOrdering] = []
    var isReversed = false
    var limitClause: (limit: Int, offset: Int?)?
    /// Filters on keys, resolved against the schema when the SQL is made.
    var keyFilters: [QueryKeyFilter] = []

    init(tableName: String, selection: [SQLSelection]) {
        self.tableName = tableName
        self.selection = selection
    }

    // MARK: Building

    /// Keeps the rows that satisfy `predicate`; several filters combine with AND.
    public func filter(_ predicate: some SQLExpressible) -> Self {
        var request = self
        request.predicates.append(predicate.sqlExpression)
        return request
    }

    /// Filters with raw SQL.
    public func filter(sql: String, arguments: StatementArguments = StatementArguments()) -> Self {
        filter(SQLExpression(sql: sql, arguments: arguments))
    }

    /// Keeps no row.
    public func none() -> Self { filter(SQLExpression.alwaysFalse) }

    /// Replaces the ordering.
    public func order(_ orderings: any SQLOrderingTerm...) -> Self { order(orderings) }

    public func order(_ orderings: [any SQLOrderingTerm]) -> Self {
        var request = self
        request.orderings = orderings.map(\.sqlOrdering)
        request.isReversed = false
        return request
    }

    /// Orders with raw SQL.
    public func order(sql: String, arguments: StatementArguments = StatementArguments()) -> Self {
        order(SQLExpression(sql: sql, arguments: arguments))
    }

    /// The reverse order (by rowid when there is no ordering).
    public func reversed() -> Self {
        var request = self
        request.isReversed.toggle()
        return request
    }

    /// `LIMIT limit OFFSET offset`.
    public func limit(_ limit: Int, offset: Int? = nil) -> Self {
        var request = self
        request.limitClause = (limit, offset)
        return request
    }

    /// Selects these columns or expressions.
    public func select(_ selection: any SQLSelectable...) -> Self { select(selection) }

    public func select(_ selection: [any SQLSelectable]) -> Self {
        var request = self
        request.selection = selection.map(\.sqlSelection)
        return request
    }

    /// Selects with raw SQL.
    public func select(sql: String, arguments: StatementArguments = StatementArguments()) -> Self {
        select(SQLExpression(sql: sql, arguments: arguments))
    }

    /// Selects, and decodes rows into another type: `select(max(Column("score")), as: Int.self)`.
    public func select<T>(_ selection: any SQLSelectable..., as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        select(selection).asRequest(of: T.self)
    }

    /// Adds columns to the selection.
    public func annotated(with selection: any SQLSelectable...) -> Self {
        var request = self
        request.selection += selection.map(\.sqlSelection)
        return request
    }

    /// `SELECT DISTINCT`.
    public func distinct() -> Self {
        var request = self
        request.isDistinct = true
        return request
    }

    /// `GROUP BY`.
    public func group(_ expressions: any SQLExpressible...) -> Self {
        var request = self
        request.groupings = expressions.map(\.sqlExpression)
        return request
    }

    /// Groups with raw SQL.
    public func group(sql: String, arguments: StatementArguments = StatementArguments()) -> Self {
        group(SQLExpression(sql: sql, arguments: arguments))
    }

    /// `HAVING`; several combine with AND.
    public func having(_ predicate: some SQLExpressible) -> Self {
        var request = self
        request.havings.append(predicate.sqlExpression)
        return request
    }

    /// The same request, decoding rows into another type.
    public func asRequest<T>(of type: T.Type) -> QueryInterfaceRequest<T> {
        var request = QueryInterfaceRequest<T>(tableName: tableName, selection: selection)
        request.isDistinct = isDistinct
        request.predicates = predicates
        request.groupings = groupings
        request.havings = havings
        request.orderings = orderings
        request.isReversed = isReversed
        request.limitClause = limitClause
        request.keyFilters = keyFilters
        return request
    }

    // MARK: SQL

    private static func conjunction(_ expressions: [SQLExpression]) -> SQLExpression? {
        guard let first = expressions.first else { return nil }
        return expressions.dropFirst().reduce(first) { $0 && $1 }
    }

    private func effectiveOrderings() -> [SQLOrdering] {
        guard isReversed else { return orderings }
        if orderings.isEmpty { return [SQLOrdering(expression: Column.rowID.sqlExpression, direction: .descending)] }
        return orderings.map(\.reversed)
    }

    /// The SELECT statement's SQL, appending bound values to `arguments`.
    func selectSQL(_ db: Database, _ arguments: inout [DatabaseValue], singleResult: Bool = false) throws -> String {
        var sql = "SELECT " + (isDistinct ? "DISTINCT " : "")
        sql += selection.map { $0.sql(&arguments) }.joined(separator: ", ")
        sql += " FROM " + tableName.quotedDatabaseIdentifier
        sql += try whereClause(db, &arguments)
        if !groupings.isEmpty {
            sql += " GROUP BY " + groupings.map { $0.sql(&arguments) }.joined(separator: ", ")
        }
        if let having = Self.conjunction(havings) {
            sql += " HAVING " + having.sql(&arguments)
        }
        let orderings = effectiveOrderings()
        if !orderings.isEmpty {
            sql += " ORDER BY " + orderings.map { $0.sql(&arguments) }.joined(separator: ", ")
        }
        if let (limit, offset) = limitClause {
            sql += " LIMIT \(singleResult ? 1 : limit)" + (offset.map { " OFFSET \($0)" } ?? "")
        } else if singleResult {
            sql += " LIMIT 1"
        }
        return sql
    }

    private func whereClause(_ db: Database, _ arguments: inout [DatabaseValue]) throws -> String {
        var all = predicates
        for filter in keyFilters {
            switch filter {
            case .primaryKey(let keys):
                let primaryKey = try db.primaryKey(tableName)
                guard primaryKey.columns.count == 1 else {
                    throw DatabaseError(resultCode: .SQLITE_MISUSE,
                                        message: "table \(tableName) has a primary key of \(primaryKey.columns.count) columns: filter with a dictionary key instead")
                }
                all.append(Column(primaryKey.columns[0]).sqlExpressionForKey(keys))
            }
        }
        return Self.conjunction(all).map { " WHERE " + $0.sql(&arguments) } ?? ""
    }

    public func makePreparedRequest(_ db: Database, forSingleResult singleResult: Bool) throws -> PreparedRequest {
        var values: [DatabaseValue] = []
        let sql = try selectSQL(db, &values, singleResult: singleResult)
        let statement = try db.cachedStatementForFetch(sql: sql)
        try statement.setArguments(StatementArguments(values))
        return PreparedRequest(statement: statement)
    }

    /// `SELECT COUNT(*) ...`, wrapping the request when it has DISTINCT,
    /// GROUP BY or LIMIT.
    public func fetchCount(_ db: Database) throws -> Int {
        var values: [DatabaseValue] = []
        let sql: String
        let table = tableName.quotedDatabaseIdentifier
        let isPlain = groupings.isEmpty && limitClause == nil
        if isPlain && !isDistinct {
            sql = "SELECT COUNT(*) FROM \(table)" + (try whereClause(db, &values))
        } else if isPlain, selection.count == 1, case .expression(let expression) = selection[0].node {
            sql = "SELECT COUNT(DISTINCT \(expression.sql(&values))) FROM \(table)" + (try whereClause(db, &values))
        } else {
            var request = self
            request.orderings = []
            request.isReversed = false
            sql = "SELECT COUNT(*) FROM (\(try request.selectSQL(db, &values)))"
        }
        return try Int.fetchOne(db, sql: sql, arguments: StatementArguments(values)) ?? 0
    }

    /// Deletes the rows of the request; returns how many.
    @discardableResult
    public func deleteAll(_ db: Database) throws -> Int {
        var values: [DatabaseValue] = []
        let sql = "DELETE FROM \(tableName.quotedDatabaseIdentifier)" + (try whereClause(db, &values))
        try db.execute(sql: sql, arguments: StatementArguments(values))
        return db.changesCount
    }

    /// Updates the rows of the request; returns how many.
    ///
    /// ```swift
    /// try Player.filter(Column("team") == "red").updateAll(db, Column("score").set(to: 0))
    /// ```
    @discardableResult
    public func updateAll(_ db: Database, _ assignments: ColumnAssignment...) throws -> Int {
        try updateAll(db, assignments)
    }

    @discardableResult
    public func updateAll(_ db: Database, _ assignments: [ColumnAssignment]) throws -> Int {
        guard !assignments.isEmpty else { return 0 }
        var values: [DatabaseValue] = []
        let sets = assignments.map { "\($0.column.name.quotedDatabaseIdentifier) = \($0.value.sql(&values))" }
        let sql = "UPDATE \(tableName.quotedDatabaseIdentifier) SET \(sets.joined(separator: ", "))" + (try whereClause(db, &values))
        try db.execute(sql: sql, arguments: StatementArguments(values))
        return db.changesCount
    }
}

/// `Column("score").set(to: 0)`, for `updateAll`.
public struct ColumnAssignment: Sendable {
    let column: Column
    let value: SQLExpression
}

extension Column {
    /// An assignment for `updateAll`: `Column("score").set(to: Column("score") + 1)`.
    public func set(to value: some SQLExpressible) -> ColumnAssignment {
        ColumnAssignment(column: self, value: value.sqlExpression)
    }

    /// Sets NULL.
    public func set(to value: _OptionalNilComparisonType) -> ColumnAssignment {
        ColumnAssignment(column: self, value: SQLExpression(.literal("NULL", [])))
    }
}

extension QueryInterfaceRequest where RowDecoder == Row {
    /// Rows of a table: `Table("player").filter(...)` style access.
    public init(table: String) {
        self.init(tableName: table, selection: [.allColumns])
    }
}

extension Column {
    /// `"id" = ?`, `"id" IN (?, ?)`, or false for no key; the rowid when
    /// the table has no declared primary key.
    func sqlExpressionForKey(_ keys: [DatabaseValue]) -> SQLExpression {
        let column = name == "rowid" ? Column.rowID.sqlExpression.node : sqlExpression.node
        switch keys.count {
        case 0: return .alwaysFalse
        case 1: return SQLExpression(.binary("=", column, .value(keys[0])))
        default: return SQLExpression(.inList(column, keys.map { .value($0) }, negated: false))
        }
    }
}

/// A filter on keys, resolved against the schema when the SQL is made.
enum QueryKeyFilter {
    case primaryKey([DatabaseValue])
}
