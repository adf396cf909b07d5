/// A request built with the query interface.
///
/// ```swift
/// let request = Player
///     .filter(Column("score") > 1000)
///     .order(Column("name").desc)
///     .limit(10)
/// let players = try request.fetchAll(db)
/// // SELECT * FROM "player" WHERE "score" > 1000 ORDER BY "name" DESC LIMIT 10
/// ```
///
/// ## Topics
///
/// ### Building
///
/// - ``DerivableRequest``
/// - ``limit(_:offset:)``
/// - ``distinct()``
/// - ``asRequest(of:)``
///
/// ### Fetching
///
/// - ``fetchCount(_:)``
/// - ``isEmpty(_:)``
///
/// ### Changing rows
///
/// - ``deleteAll(_:)``
/// - ``updateAll(_:onConflict:_:)-(_,_,ColumnAssignment...)``
public struct QueryInterfaceRequest<RowDecoder>: Refinable {
    var relation: SQLRelation

    init(relation: SQLRelation) { self.relation = relation }
}

extension QueryInterfaceRequest: FetchRequest {
    /// The request as a subquery.
    public var sqlSubquery: SQLSubquery { .relation(relation) }

    /// The number of rows the request fetches.
    public func fetchCount(_ db: Database) throws -> Int { try relation.fetchCount(db) }

    /// The statement that runs the request, the adapter of its joined
    /// associations, and the prefetching of its to-many associations.
    public func makePreparedRequest(_ db: Database, forSingleResult singleResult: Bool = false) throws -> PreparedRequest {
        var prepared = try SQLQueryGenerator(relation: relation, forSingleResult: singleResult).makePreparedRequest(db)
        let associations = relation.prefetchedAssociations
        if !associations.isEmpty {
            let relation = self.relation
            prepared.supplementaryFetch = { db, rows in
                try Prefetcher.prefetch(db, associations: associations, from: relation, into: rows)
            }
            // Observed even before a parent row is there to prefetch for
            // (but not for a request that provably fetches nothing).
            if !prepared.statement.databaseRegion.isEmpty {
                for association in associations {
                    prepared.statement.databaseRegion.formUnion(try Prefetcher.region(db, association: association, from: relation))
                }
            }
        }
        return prepared
    }
}

extension QueryInterfaceRequest: SelectionRequest {
    /// Replaces the selection, computed when the request runs.
    public func selectWhenConnected(_ selection: @escaping @Sendable (Database) throws -> [any SQLSelectable]) -> Self {
        with { $0.relation = $0.relation.selectWhenConnected { db in try selection(db).map(\.sqlSelection) } }
    }

    /// Adds to the selection, computed when the request runs.
    public func annotatedWhenConnected(with selection: @escaping @Sendable (Database) throws -> [any SQLSelectable]) -> Self {
        with { $0.relation = $0.relation.annotatedWhenConnected { db in try selection(db).map(\.sqlSelection) } }
    }

    /// Selects, and decodes rows into another type:
    /// `Player.select(max(Column("score")), as: Int.self)`.
    public func select<T>(_ selection: [any SQLSelectable], as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        select(selection).asRequest(of: T.self)
    }

    /// Selects, and decodes rows into another type.
    public func select<T>(_ selection: any SQLSelectable..., as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        select(selection, as: type)
    }

    /// Selects from the record's columns, and decodes into another type.
    public func select<T>(_ selection: (RowDecoder.DatabaseComponents) throws -> any SQLSelectable,
                          as type: T.Type = T.self) rethrows -> QueryInterfaceRequest<T> where RowDecoder: TableRecord {
        try select(selection(RowDecoder.databaseComponents)).asRequest(of: T.self)
    }

    /// Selects raw SQL, and decodes into another type.
    public func select<T>(sql: String, arguments: StatementArguments = StatementArguments(),
                          as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        select(SQL(sql: sql, arguments: arguments), as: type)
    }

    /// Selects an SQL literal, and decodes into another type.
    public func select<T>(literal sqlLiteral: SQL, as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        select(sqlLiteral, as: type)
    }

    /// Selects the primary key.
    public func selectPrimaryKey<PrimaryKey>(as type: PrimaryKey.Type = PrimaryKey.self) -> QueryInterfaceRequest<PrimaryKey> {
        let tableName = relation.source.tableName
        return selectWhenConnected { db in try db.primaryKey(tableName).columns.map { Column($0) } }.asRequest(of: PrimaryKey.self)
    }

    /// Selects the id of `Identifiable` records.
    public func selectID() -> QueryInterfaceRequest<RowDecoder.ID> where RowDecoder: Identifiable {
        let tableName = relation.source.tableName
        return selectWhenConnected { db in [Column(try db.filteringPrimaryKeyColumn(tableName))] }.asRequest(of: RowDecoder.ID.self)
    }
}

extension QueryInterfaceRequest: FilteredRequest {
    /// Adds a condition, computed when the request runs.
    public func filterWhenConnected(_ predicate: @escaping @Sendable (Database) throws -> any SQLExpressible) -> Self {
        with { $0.relation = $0.relation.filterWhenConnected { db in try predicate(db).sqlExpression } }
    }
}

extension QueryInterfaceRequest: OrderedRequest {
    /// Replaces the ordering, computed when the request runs.
    public func orderWhenConnected(_ orderings: @escaping @Sendable (Database) throws -> [any SQLOrderingTerm]) -> Self {
        with { $0.relation = $0.relation.orderWhenConnected { db in try orderings(db).map(\.sqlOrdering) } }
    }

    /// The reverse order.
    public func reversed() -> Self { with { $0.relation = $0.relation.reversed() } }

    /// No order.
    public func unordered() -> Self { with { $0.relation = $0.relation.unordered() } }

    /// The order, completed by the primary key.
    public func withStableOrder() -> Self { with { $0.relation = $0.relation.withStableOrder() } }
}

extension QueryInterfaceRequest: AggregatingRequest {
    /// Groups, with expressions computed when the request runs.
    public func groupWhenConnected(_ expressions: @escaping @Sendable (Database) throws -> [any SQLExpressible]) -> Self {
        with { $0.relation = $0.relation.groupWhenConnected { db in try expressions(db).map(\.sqlExpression) } }
    }

    /// Filters groups, with a condition computed when the request runs.
    public func havingWhenConnected(_ predicate: @escaping @Sendable (Database) throws -> any SQLExpressible) -> Self {
        with { $0.relation = $0.relation.havingWhenConnected { db in try predicate(db).sqlExpression } }
    }
}

extension QueryInterfaceRequest: JoinableRequest {
    /// Prefetches a to-many association.
    public func _including(all association: SQLAssociation) -> Self {
        with { $0.relation = $0.relation.appendingChild(for: association, kind: .all) }
    }

    /// Includes a to-one association (LEFT JOIN).
    public func _including(optional association: SQLAssociation) -> Self {
        with { $0.relation = $0.relation.appendingChild(for: association, kind: .oneOptional) }
    }

    /// Includes a to-one association (JOIN).
    public func _including(required association: SQLAssociation) -> Self {
        with { $0.relation = $0.relation.appendingChild(for: association, kind: .oneRequired) }
    }

    /// Joins an association without selecting it (LEFT JOIN).
    public func _joining(optional association: SQLAssociation) -> Self {
        with { $0.relation = $0.relation.appendingChild(for: association.selectingNothing(), kind: .oneOptional) }
    }

    /// Joins an association without selecting it (JOIN).
    public func _joining(required association: SQLAssociation) -> Self {
        with { $0.relation = $0.relation.appendingChild(for: association.selectingNothing(), kind: .oneRequired) }
    }
}

extension QueryInterfaceRequest: TableRequest {
    /// The table.
    public var databaseTableName: String { relation.source.tableName }

    /// The request, with its table under `alias`.
    public func _aliased(_ alias: TableAliasBase) -> Self { with { $0.relation = $0.relation.aliased(alias) } }
}

extension QueryInterfaceRequest: DerivableRequest {
    /// `SELECT DISTINCT`.
    public func distinct() -> Self { with { $0.relation.isDistinct = true } }

    /// `LIMIT limit OFFSET offset`.
    public func limit(_ limit: Int, offset: Int? = nil) -> Self {
        with { $0.relation.limit = SQLLimit(limit: limit, offset: offset) }
    }

    /// Embeds a common table expression: `WITH name AS (...) SELECT ...`.
    public func with<T>(_ cte: CommonTableExpression<T>) -> Self {
        with { $0.relation.ctes[cte.tableName] = cte.cte }
    }
}

extension QueryInterfaceRequest {
    /// The same request, decoding rows into another type.
    public func asRequest<T>(of type: T.Type) -> QueryInterfaceRequest<T> {
        QueryInterfaceRequest<T>(relation: relation)
    }

    /// True when the request fetches no row: `SELECT EXISTS (...)`.
    public func isEmpty(_ db: Database) throws -> Bool {
        try !(SQLRequest<Bool>("SELECT \(exists())").fetchOne(db) ?? false)
    }

    /// The conflict resolution of updates: the record type's, when the
    /// request decodes a persistable record, else `.abort`.
    var defaultConflictResolutionForUpdate: Database.ConflictResolution {
        (RowDecoder.self as? any MutablePersistableRecord.Type)?.persistenceConflictPolicy.conflictResolutionForUpdate ?? .abort
    }

    /// Deletes the rows of the request; returns how many.
    @discardableResult
    public func deleteAll(_ db: Database) throws -> Int {
        let statement = try SQLQueryGenerator(relation: relation).makeDeleteStatement(db)
        return try db.changedRowCount(ofTable: relation.source.tableName) { try statement.execute() }
    }

    /// Updates the rows of the request; returns how many.
    ///
    /// ```swift
    /// try Player.filter(Column("team") == "red").updateAll(db, Column("score").set(to: 0))
    /// ```
    @discardableResult
    public func updateAll(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
                          _ assignments: [ColumnAssignment]) throws -> Int {
        guard let statement = try SQLQueryGenerator(relation: relation)
            .makeUpdateStatement(db, conflictResolution: conflictResolution ?? defaultConflictResolutionForUpdate,
                                 assignments: assignments) else { return 0 }
        return try db.changedRowCount(ofTable: relation.source.tableName) { try statement.execute() }
    }

    /// Updates the rows of the request; returns how many.
    @discardableResult
    public func updateAll(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
                          _ assignments: ColumnAssignment...) throws -> Int {
        try updateAll(db, onConflict: conflictResolution, assignments)
    }

    /// Updates the rows with an assignment of the record's columns.
    @discardableResult
    public func updateAll(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
                          assignment: (RowDecoder.DatabaseComponents) throws -> ColumnAssignment) throws -> Int
    where RowDecoder: TableRecord {
        try updateAll(db, onConflict: conflictResolution, [assignment(RowDecoder.databaseComponents)])
    }

    /// Updates the rows with assignments of the record's columns.
    @discardableResult
    public func updateAll(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
                          assignments: (RowDecoder.DatabaseComponents) throws -> [ColumnAssignment]) throws -> Int
    where RowDecoder: TableRecord {
        try updateAll(db, onConflict: conflictResolution, assignments(RowDecoder.databaseComponents))
    }
}

/// `Column("score").set(to: 0)`, for `updateAll`.
public struct ColumnAssignment: Sendable {
    var column: String
    /// Nil for ``ColumnExpression/noOverwrite``: nothing to assign.
    var value: SQLExpression?

    /// `"column" = value`, or nil when there is nothing to assign.
    func sql(_ context: SQLGenerationContext) throws -> String? {
        guard let value else { return nil }
        return column.quotedDatabaseIdentifier + " = " + (try value.sql(context))
    }
}

extension ColumnExpression {
    /// An assignment for `updateAll`: `Column("score").set(to: Column("score") + 1)`.
    public func set(to value: (any SQLExpressible)?) -> ColumnAssignment {
        ColumnAssignment(column: name, value: value?.sqlExpression ?? .null)
    }

    /// An assignment that leaves the column as it is: in the `doUpdate` of
    /// an upsert, keeps the stored value instead of the inserted one.
    public var noOverwrite: ColumnAssignment {
        ColumnAssignment(column: name, value: nil)
    }

    /// `score = score + value`.
    public static func += (column: Self, value: some SQLExpressible) -> ColumnAssignment {
        column.set(to: column + value)
    }

    /// `score = score - value`.
    public static func -= (column: Self, value: some SQLExpressible) -> ColumnAssignment {
        column.set(to: column - value)
    }

    /// `score = score * value`.
    public static func *= (column: Self, value: some SQLExpressible) -> ColumnAssignment {
        column.set(to: column * value)
    }

    /// `score = score / value`.
    public static func /= (column: Self, value: some SQLExpressible) -> ColumnAssignment {
        column.set(to: column / value)
    }

    /// `flags = flags & value`.
    public static func &= (column: Self, value: some SQLExpressible) -> ColumnAssignment {
        column.set(to: column & value)
    }

    /// `flags = flags | value`.
    public static func |= (column: Self, value: some SQLExpressible) -> ColumnAssignment {
        column.set(to: column | value)
    }

    /// `flags = flags << value`.
    public static func <<= (column: Self, value: some SQLExpressible) -> ColumnAssignment {
        column.set(to: column << value)
    }

    /// `flags = flags >> value`.
    public static func >>= (column: Self, value: some SQLExpressible) -> ColumnAssignment {
        column.set(to: column >> value)
    }
}

extension QueryInterfaceRequest where RowDecoder: TableRecord {
    /// The columns of the record type, for closures:
    /// `Player.all().order { $0.score.desc }`.
    public typealias DatabaseComponents = RowDecoder.DatabaseComponents
}
