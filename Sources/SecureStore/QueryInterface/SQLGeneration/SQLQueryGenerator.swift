internal import OrderedCollections

/// Turns a relation into SQL: SELECT statements with their joins, the row
/// adapter that gives each joined association its scope, and the DELETE and
/// UPDATE statements of `deleteAll` and `updateAll`.
///
/// Every table of the request gets an alias, qualified columns follow it,
/// and alias names are chosen once the whole request is known: the text
/// of a request is the same on every run, and equals GRDB's.
struct SQLQueryGenerator: Refinable {
    private var relation: QualifiedRelation
    private let singleResult: Bool
    private let buildError: DatabaseError?

    init(relation: SQLRelation, forSingleResult singleResult: Bool = false) {
        self.relation = QualifiedRelation(relation)
        self.singleResult = singleResult
        self.buildError = relation.firstBuildError
    }

    // MARK: SELECT

    func requestSQL(_ context: SQLGenerationContext) throws -> String {
        if let buildError { throw buildError }
        let context = context.subqueryContext(aliases: relation.allAliases, ctes: relation.ctes)
        var sql = try commonTableExpressionsPrefix(context)
        sql += relation.isDistinct ? "SELECT DISTINCT " : "SELECT "
        let selection = try relation.selectionPromise.resolve(context.db)
        guard !selection.isEmpty else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "cannot generate SQL with an empty selection")
        }
        sql += try selection.map { try $0.sql(context) }.joined(separator: ", ")
        sql += " FROM " + relation.source.sql(context)
        for join in relation.joins.values {
            sql += " " + (try join.sql(context, leftAlias: relation.source.alias, allowsInnerJoin: true))
        }
        let filter = try relation.filterPromise?.resolve(context.db)
        if let filter { sql += " WHERE " + (try filter.sql(context)) }
        let groups = try relation.groupPromise?.resolve(context.db) ?? []
        if !groups.isEmpty { sql += " GROUP BY " + (try groups.map { try $0.sql(context) }.joined(separator: ", ")) }
        if let having = try relation.havingPromise?.resolve(context.db) { sql += " HAVING " + (try having.sql(context)) }
        let orderings = try relation.ordering.resolve(context.db)
        if !orderings.isEmpty { sql += " ORDER BY " + (try orderings.map { try $0.sql(context) }.joined(separator: ", ")) }

        var limit = relation.limit
        if limit == nil, singleResult,
           try !expectsSingleResult(context.db, selection: selection, filter: filter, groups: groups) {
            limit = SQLLimit(limit: 1, offset: nil)
        }
        if let limit { sql += " LIMIT " + limit.sql }
        return sql
    }

    /// The statement, its arguments bound, and the adapter of its scopes.
    func makePreparedRequest(_ db: Database) throws -> PreparedRequest {
        let context = SQLGenerationContext(db)
        let sql = try requestSQL(context)
        let statement = try db.cachedStatementForFetch(sql: sql)
        try statement.setArguments(context.arguments)
        statement.databaseRegion = try observedRegion(db, statement.authorizedRegion)
        let adapterContext = SQLGenerationContext(db, ctes: relation.ctes)
        return PreparedRequest(statement: statement,
                               adapter: try relation.rowAdapter(adapterContext, fromIndex: 0, isRoot: true)?.adapter)
    }

    /// What an observation of the request tracks: the statement's region,
    /// narrowed to the rows a filter on the rowid names (`Player.none()`
    /// tracks nothing).
    private func observedRegion(_ db: Database, _ selected: DatabaseRegion) throws -> DatabaseRegion {
        let tableName = relation.source.tableName
        guard try db.tableExists(tableName),   // not a view
              let filter = try relation.filterPromise?.resolve(db),
              let rowIDs = try filter.identifyingRowIDs(db, for: relation.source.alias) else { return selected }
        return selected.tableIntersection(tableName, rowIds: rowIDs)
    }

    /// The number of columns the request selects.
    func columnCount(_ db: Database) throws -> Int {
        try relation.selectionPromise.resolve(db).columnCount(SQLGenerationContext(db, ctes: relation.ctes))
    }

    /// True when SQLite returns one row at most, so `fetchOne` needs no
    /// `LIMIT 1`: a filter on a unique key, or an aggregate without GROUP BY.
    private func expectsSingleResult(_ db: Database, selection: [SQLSelection], filter: SQLExpression?,
                                     groups: [SQLExpression]) throws -> Bool {
        guard relation.joins.isEmpty else { return false }
        let tableName = relation.source.tableName
        if let filter, try db.tableExists(tableName) {
            let columns = try filter.identifyingColumns(db, for: relation.source.alias)
            if try db.table(tableName, hasUniqueKey: columns) { return true }
        }
        return groups.isEmpty && selection.contains(where: \.isAggregate)
    }

    private func commonTableExpressionsPrefix(_ context: SQLGenerationContext) throws -> String {
        guard !relation.ctes.isEmpty else { return "" }
        var sql = "WITH "
        if relation.ctes.values.contains(where: \.isRecursive) { sql += "RECURSIVE " }
        sql += try relation.ctes.map { name, cte in
            var columns = ""
            if let names = cte.columns, !names.isEmpty {
                columns = "(" + names.map(\.quotedDatabaseIdentifier).joined(separator: ", ") + ")"
            }
            return "\(name.quotedDatabaseIdentifier)\(columns) AS (\(try cte.subquery.sql(context.subqueryContext())))"
        }.joined(separator: ", ")
        return sql + " "
    }

    // MARK: DELETE and UPDATE

    /// `DELETE FROM ... WHERE ...`; a request with joins or a unique
    /// GROUP BY deletes `WHERE key IN (SELECT key ...)`.
    func makeDeleteStatement(_ db: Database, returning selection: [any SQLSelectable] = []) throws -> Statement {
        switch try grouping(db) {
        case .none where relation.joins.isEmpty:
            let context = SQLGenerationContext(db, aliases: relation.allAliases, ctes: relation.ctes)
            var sql = try commonTableExpressionsPrefix(context)
            sql += "DELETE FROM " + relation.source.sql(context)
            if let filter = try relation.filterPromise?.resolve(db) { sql += " WHERE " + (try filter.sql(context)) }
            sql += try limitClauseOfChanges(context)
            return try statement(db, sql, context.arguments, returning: selection)
        case .none, .unique:
            return try statementThroughPrimaryKey(db, verb: "DELETE FROM \(relation.source.tableName.quotedDatabaseIdentifier)",
                                                  returning: selection)
        case .nonUnique:
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "cannot delete the rows of a request with a GROUP BY clause")
        }
    }

    /// `UPDATE ... SET ... WHERE ...`, or nil when there is nothing to set.
    func makeUpdateStatement(_ db: Database, conflictResolution: Database.ConflictResolution,
                             assignments: [ColumnAssignment], returning selection: [any SQLSelectable] = []) throws -> Statement? {
        let orPrefix = conflictResolution == .abort ? "" : "OR \(conflictResolution.rawValue) "
        switch try grouping(db) {
        case .none where relation.joins.isEmpty:
            let context = SQLGenerationContext(db, aliases: relation.allAliases, ctes: relation.ctes)
            var sql = try commonTableExpressionsPrefix(context)
            sql += "UPDATE " + orPrefix + relation.source.sql(context)
            let sets = try assignments.compactMap { try $0.sql(context) }.joined(separator: ", ")
            guard !sets.isEmpty else { return nil }
            sql += " SET " + sets
            if let filter = try relation.filterPromise?.resolve(db) { sql += " WHERE " + (try filter.sql(context)) }
            sql += try limitClauseOfChanges(context)
            return try statement(db, sql, context.arguments, returning: selection)
        case .none, .unique:
            let tableName = relation.source.tableName
            return try statementThroughPrimaryKey(db, verb: "UPDATE \(orPrefix)\(tableName.quotedDatabaseIdentifier)",
                                                  returning: selection) { context in
                try assignments.compactMap { try $0.sql(context) }.joined(separator: ", ")
            }
        case .nonUnique:
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "cannot update the rows of a request with a GROUP BY clause")
        }
    }

    /// `ORDER BY ... LIMIT ...` of DELETE and UPDATE, which SQLite accepts
    /// only when built with SQLITE_ENABLE_UPDATE_DELETE_LIMIT (this
    /// SQLCipher is).
    private func limitClauseOfChanges(_ context: SQLGenerationContext) throws -> String {
        guard let limit = relation.limit else { return "" }
        var sql = ""
        let orderings = try relation.ordering.resolve(context.db)
        if !orderings.isEmpty { sql += " ORDER BY " + (try orderings.map { try $0.sql(context) }.joined(separator: ", ")) }
        return sql + " LIMIT " + limit.sql
    }

    /// `VERB [SET ...] WHERE key IN (SELECT key FROM ...) [RETURNING ...]`.
    private func statementThroughPrimaryKey(_ db: Database, verb: String, returning selection: [any SQLSelectable],
                                            assignments: ((SQLGenerationContext) throws -> String)? = nil) throws -> Statement? {
        let tableName = relation.source.tableName
        let alias = TableAlias(tableName: tableName)
        let context = SQLGenerationContext(db, aliases: [alias])
        var sql = verb
        if let assignments {
            let sets = try assignments(context)
            guard !sets.isEmpty else { return nil }
            sql += " SET " + sets
        }
        let primaryKey = SQLExpression.fastPrimaryKey
        let keys = with { $0.relation = $0.relation.selectOnly([.expression(primaryKey)]) }
        sql += " WHERE " + (try primaryKey.qualified(with: alias).sql(context))
        sql += " IN (" + (try keys.requestSQL(context.subqueryContext(aliases: relation.allAliases, ctes: relation.ctes))) + ")"
        return try statement(db, sql, context.arguments, returning: selection)
    }

    private func statementThroughPrimaryKey(_ db: Database, verb: String, returning selection: [any SQLSelectable]) throws -> Statement {
        // Without assignments the statement is always made.
        try statementThroughPrimaryKey(db, verb: verb, returning: selection, assignments: nil)!
    }

    private func statement(_ db: Database, _ sql: String, _ arguments: StatementArguments,
                           returning selection: [any SQLSelectable]) throws -> Statement {
        let returning = try SQLReturningClause(db, selection: selection, tableName: relation.source.tableName)
        let statement = try db.makeStatement(sql: sql + returning.sql)
        try statement.setArguments(arguments + returning.arguments)
        return statement
    }

    private enum Grouping { case none, unique, nonUnique }

    /// Whether GROUP BY groups on a unique key (each group is one row).
    private func grouping(_ db: Database) throws -> Grouping {
        guard let groups = try relation.groupPromise?.resolve(db), !groups.isEmpty else { return .none }
        let tableName = relation.source.tableName
        guard try db.tableExists(tableName) else { return .nonUnique }
        var columns: Set<String> = []
        for expression in groups {
            guard let column = try expression.column(db, for: relation.source.alias, acceptsBijection: true) else { return .nonUnique }
            columns.insert(column)
        }
        return try db.table(tableName, hasUniqueKey: columns) ? .unique : .nonUnique
    }
}

// MARK: - The qualified relation

/// A relation whose columns are all qualified with a table alias: the
/// input of SQL generation.
private struct QualifiedRelation: Refinable {
    let source: QualifiedSource
    private var sourceSelection: DatabasePromise<[SQLSelection]>
    var isDistinct: Bool
    let filterPromise: DatabasePromise<SQLExpression>?
    private let sourceOrdering: SQLRelation.Ordering
    var joins: OrderedDictionary<String, QualifiedJoin>
    let groupPromise: DatabasePromise<[SQLExpression]>?
    let havingPromise: DatabasePromise<SQLExpression>?
    let limit: SQLLimit?
    let ctes: OrderedDictionary<String, SQLCTE>

    init(_ relation: SQLRelation) {
        source = QualifiedSource(relation.source)
        let alias = source.alias
        sourceSelection = relation.selectionPromise.map { $0.map { $0.qualified(with: alias) } }
        filterPromise = relation.filterPromise?.map { $0.qualified(with: alias) }
        sourceOrdering = relation.ordering.qualified(with: alias)
        groupPromise = relation.groupPromise?.map { $0.map { $0.qualified(with: alias) } }
        havingPromise = relation.havingPromise?.map { $0.qualified(with: alias) }
        joins = relation.children.compactMapValues(QualifiedJoin.init)
        limit = relation.limit
        isDistinct = relation.isDistinct
        ctes = relation.allCTEs
    }

    /// Every alias of the statement, in the order tables appear.
    var allAliases: [TableAliasBase] {
        joins.values.reduce(into: [source.alias]) { $0 += $1.relation.allAliases }
    }

    /// The selection of the source, then of each join.
    var selectionPromise: DatabasePromise<[SQLSelection]> {
        let sourceSelection = self.sourceSelection, joins = Array(self.joins.values)
        return DatabasePromise { db in
            try joins.reduce(into: sourceSelection.resolve(db)) { $0 += try $1.relation.selectionPromise.resolve(db) }
        }
    }

    /// The ordering of the source, then of each join.
    var ordering: SQLRelation.Ordering {
        joins.values.reduce(sourceOrdering) { $0.appending($1.relation.ordering) }
    }

    func selectOnly(_ selection: [SQLSelection]) -> QualifiedRelation {
        let alias = source.alias
        let qualified = selection.map { $0.qualified(with: alias) }
        return with {
            $0.sourceSelection = DatabasePromise { _ in qualified }
            $0.isDistinct = false
            $0.joins = $0.joins.mapValues { join in join.with { $0.relation = $0.relation.selectOnly([]) } }
        }
    }

    /// The adapter that gives each joined association its slice of the row
    /// (a scope named after the association key), from `startIndex`.
    func rowAdapter(_ context: SQLGenerationContext, fromIndex startIndex: Int, isRoot: Bool) throws -> (adapter: any RowAdapter, endIndex: Int)? {
        if isRoot && joins.isEmpty { return nil }
        let width = try sourceSelection.resolve(context.db).columnCount(context)
        var endIndex = startIndex + width
        var scopes: [String: any RowAdapter] = [:]
        for (key, join) in joins {
            if let (adapter, joinEnd) = try join.relation.rowAdapter(context, fromIndex: endIndex, isRoot: false) {
                scopes[key] = adapter
                endIndex = joinEnd
            }
        }
        if (isRoot || width == 0) && scopes.isEmpty { return nil }
        return (RangeRowAdapter(startIndex..<(startIndex + width)).addingScopes(scopes), endIndex)
    }
}

extension QualifiedRelation: Sendable {}

private struct QualifiedSource: Sendable {
    let tableName: String
    let alias: TableAliasBase

    init(_ source: SQLSource) {
        tableName = source.tableName
        alias = source.alias ?? TableAlias(tableName: source.tableName)
    }

    func sql(_ context: SQLGenerationContext) -> String {
        guard let aliasName = context.aliasName(for: alias) else { return tableName.quotedDatabaseIdentifier }
        return "\(tableName.quotedDatabaseIdentifier) \(aliasName.quotedDatabaseIdentifier)"
    }
}

private struct QualifiedJoin: Sendable, Refinable {
    let isInner: Bool
    let condition: SQLAssociationCondition
    var relation: QualifiedRelation

    init?(_ child: SQLRelation.Child) {
        switch child.kind {
        case .oneRequired: isInner = true
        case .oneOptional: isInner = false
        case .all, .bridge: return nil
        }
        condition = child.condition
        relation = QualifiedRelation(child.relation)
    }

    func sql(_ context: SQLGenerationContext, leftAlias: TableAliasBase, allowsInnerJoin: Bool) throws -> String {
        if isInner && !allowsInnerJoin {
            throw DatabaseError(resultCode: .SQLITE_MISUSE,
                                message: "a required association cannot follow an optional one (GRDB does not implement it either)")
        }
        var sql = (isInner ? "JOIN " : "LEFT JOIN ") + relation.source.sql(context)
        let rightAlias = relation.source.alias
        var conditions: [SQLExpression] = []
        if let joinCondition = try condition.joinExpression(context.db, leftAlias: leftAlias, rightAlias: rightAlias) {
            conditions.append(joinCondition)
        }
        if let filter = try relation.filterPromise?.resolve(context.db) {
            conditions.append(filter.qualified(with: rightAlias))
        }
        if !conditions.isEmpty { sql += " ON " + (try conditions.joined(operator: .and).sql(context)) }
        for join in relation.joins.values {
            sql += " " + (try join.sql(context, leftAlias: rightAlias, allowsInnerJoin: isInner && allowsInnerJoin))
        }
        return sql
    }
}
