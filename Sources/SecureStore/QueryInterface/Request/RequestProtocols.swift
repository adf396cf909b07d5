import Foundation

// The protocols that query interface requests and associations share:
// an extension on `DerivableRequest<Book>` applies to `Book.all()` and to
// `Author.books` alike.

/// A request that decodes rows into a type.
public protocol TypedRequest<RowDecoder> {
    /// What the rows decode into.
    associatedtype RowDecoder
}

/// A request that can change what it selects.
///
/// ```swift
/// Player.select(Column("name"))
/// Player.all().annotated(with: (Column("score") * 2).forKey("double"))
/// ```
public protocol SelectionRequest {
    /// Replaces the selection with one computed when the request runs.
    func selectWhenConnected(_ selection: @escaping @Sendable (Database) throws -> [any SQLSelectable]) -> Self
    /// Adds to the selection, computed when the request runs.
    func annotatedWhenConnected(with selection: @escaping @Sendable (Database) throws -> [any SQLSelectable]) -> Self
}

extension SelectionRequest {
    /// Replaces the selection.
    public func select(_ selection: [any SQLSelectable]) -> Self {
        let selection = selection.map(\.sqlSelection)
        return selectWhenConnected { _ in selection }
    }

    /// Replaces the selection.
    public func select(_ selection: any SQLSelectable...) -> Self { select(selection) }

    /// Replaces the selection with raw SQL.
    public func select(sql: String, arguments: StatementArguments = StatementArguments()) -> Self {
        select(SQL(sql: sql, arguments: arguments))
    }

    /// Replaces the selection with an SQL literal.
    public func select(literal sqlLiteral: SQL) -> Self { select(sqlLiteral) }

    /// Adds to the selection.
    public func annotated(with selection: [any SQLSelectable]) -> Self {
        let selection = selection.map(\.sqlSelection)
        return annotatedWhenConnected { _ in selection }
    }

    /// Adds to the selection.
    public func annotated(with selection: any SQLSelectable...) -> Self { annotated(with: selection) }
}

extension SelectionRequest where Self: TypedRequest, Self.RowDecoder: TableRecord {
    /// Selects from the record's columns: `Player.select { $0.name }`.
    public func select(_ selection: (RowDecoder.DatabaseComponents) throws -> any SQLSelectable) rethrows -> Self {
        try select(selection(RowDecoder.databaseComponents))
    }

    /// Selects from the record's columns: `Player.select { [$0.id, $0.name] }`.
    public func select(_ selection: (RowDecoder.DatabaseComponents) throws -> [any SQLSelectable]) rethrows -> Self {
        try select(selection(RowDecoder.databaseComponents))
    }

    /// Adds to the selection from the record's columns.
    public func annotated(with selection: (RowDecoder.DatabaseComponents) throws -> any SQLSelectable) rethrows -> Self {
        try annotated(with: selection(RowDecoder.databaseComponents))
    }

    /// Adds to the selection from the record's columns.
    public func annotated(with selection: (RowDecoder.DatabaseComponents) throws -> [any SQLSelectable]) rethrows -> Self {
        try annotated(with: selection(RowDecoder.databaseComponents))
    }
}

/// A request that can be filtered.
///
/// ```swift
/// Player.filter(Column("score") > 1000)
/// Player.filter(sql: "score > :min", arguments: ["min": 1000])
/// ```
public protocol FilteredRequest {
    /// Adds a condition, computed when the request runs; conditions
    /// combine with AND.
    func filterWhenConnected(_ predicate: @escaping @Sendable (Database) throws -> any SQLExpressible) -> Self
}

extension FilteredRequest {
    /// Keeps the rows that satisfy `predicate`.
    public func filter(_ predicate: some SQLSpecificExpressible) -> Self {
        let predicate = predicate.sqlExpression
        return filterWhenConnected { _ in predicate }
    }

    /// Filters with raw SQL and its arguments (positional or named).
    public func filter(sql: String, arguments: StatementArguments = StatementArguments()) -> Self {
        filter(SQL(sql: sql, arguments: arguments))
    }

    /// Filters with an SQL literal.
    public func filter(literal sqlLiteral: SQL) -> Self { filter(sqlLiteral) }

    /// Keeps no row.
    public func none() -> Self { filterWhenConnected { _ in false } }

    /// The request itself.
    public func all() -> Self { self }
}

extension FilteredRequest where Self: TypedRequest, Self.RowDecoder: TableRecord {
    /// Filters on the record's columns: `Player.filter { $0.score > 1000 }`.
    public func filter(_ predicate: (RowDecoder.DatabaseComponents) throws -> any SQLSpecificExpressible) rethrows -> Self {
        let predicate = try predicate(RowDecoder.databaseComponents).sqlExpression
        return filterWhenConnected { _ in predicate }
    }
}

/// A request of one table.
public protocol TableRequest {
    /// The table.
    var databaseTableName: String { get }
    /// The request, with its table under `alias`.
    func _aliased(_ alias: TableAliasBase) -> Self
}

extension TableRequest where Self: TypedRequest {
    /// The request, with its table under `alias`.
    public func aliased(_ alias: TableAlias<Void>) -> Self { _aliased(alias) }

    /// The request, with its table under `alias`.
    public func aliased(_ alias: TableAlias<RowDecoder>) -> Self { _aliased(alias) }
}

extension TableRequest where Self: FilteredRequest, Self: TypedRequest {
    /// The row with this primary key (none for nil).
    public func filter(key: some DatabaseValueConvertible) -> Self {
        if key.databaseValue.isNull { return none() }
        return filter(keys: [key])
    }

    /// The rows with these primary keys. Dates, UUIDs and Data of
    /// `EncodableRecord` types are encoded with the record's strategies.
    public func filter<Keys: Collection>(keys: Keys) -> Self where Keys.Element: DatabaseValueConvertible {
        let keys = keys.compactMap { PrimaryKeyValue($0) }
        if keys.isEmpty { return none() }
        let tableName = databaseTableName
        let recordType = RowDecoder.self as? any EncodableRecord.Type
        return filterWhenConnected { db in
            let column = try db.filteringPrimaryKeyColumn(tableName)
            let expressions = try keys.compactMap { key -> SQLExpression? in
                let value = try recordType.map { try key.encoded(by: $0, column: column) } ?? key.databaseValue
                return value.isNull ? nil : value.sqlExpression
            }
            return SQLCollection.array(expressions).contains(Column(column).sqlExpression)
        }
    }

    /// The row with these column values (a unique key); none for nil.
    public func filter(key: [String: (any DatabaseValueConvertible)?]?) -> Self {
        guard let key else { return none() }
        return filter(keys: [key])
    }

    /// The rows with these column values. Each key must name the columns of
    /// a unique key: otherwise the request throws when it runs.
    public func filter(keys: [[String: (any DatabaseValueConvertible)?]]) -> Self {
        if keys.isEmpty { return none() }
        let keys = keys.map { $0.mapValues { $0?.databaseValue ?? .null } }
        let tableName = databaseTableName
        return filterWhenConnected { db in
            try keys.map { key -> SQLExpression in
                guard let columns = try db.columnsForUniqueKey(key.keys, in: tableName) else {
                    throw DatabaseError(resultCode: .SQLITE_MISUSE,
                                        message: "table \(tableName) has no unique key on column(s) \(key.keys.sorted().joined(separator: ", "))")
                }
                // In the order of the unique key's columns.
                let order = columns.map { $0.lowercased() }
                let sorted = key.sorted { (order.firstIndex(of: $0.key.lowercased()) ?? .max) < (order.firstIndex(of: $1.key.lowercased()) ?? .max) }
                return sorted.map { Column($0.key) == $0.value }.joined(operator: .and)
            }.joined(operator: .or)
        }
    }
}

extension TableRequest where Self: FilteredRequest, Self: TypedRequest, RowDecoder: Identifiable, RowDecoder.ID: DatabaseValueConvertible {
    /// The record with this id.
    public func filter(id: RowDecoder.ID) -> Self { filter(key: id) }

    /// The records with these ids.
    public func filter(ids: some Collection<RowDecoder.ID>) -> Self { filter(keys: ids) }
}

extension TableRequest where Self: OrderedRequest {
    /// Orders by primary key.
    public func orderByPrimaryKey() -> Self {
        let tableName = databaseTableName
        return orderWhenConnected { db in try db.primaryKey(tableName).columns.map { Column($0) } }
    }
}

extension TableRequest where Self: AggregatingRequest {
    /// Groups by primary key: one group per row.
    public func groupByPrimaryKey() -> Self {
        let tableName = databaseTableName
        return groupWhenConnected { db in
            let primaryKey = try db.primaryKey(tableName)
            if let rowIDColumn = primaryKey.rowIDColumn { return [Column(rowIDColumn)] }
            if primaryKey.tableHasRowID { return [Column.rowID] }
            return primaryKey.columns.map { Column($0) }
        }
    }
}

/// A request that can be grouped.
public protocol AggregatingRequest {
    /// Groups, with expressions computed when the request runs.
    func groupWhenConnected(_ expressions: @escaping @Sendable (Database) throws -> [any SQLExpressible]) -> Self
    /// Filters groups, with a condition computed when the request runs.
    func havingWhenConnected(_ predicate: @escaping @Sendable (Database) throws -> any SQLExpressible) -> Self
}

extension AggregatingRequest {
    /// `GROUP BY`.
    public func group(_ expressions: [any SQLExpressible]) -> Self {
        let expressions = expressions.map(\.sqlExpression)
        return groupWhenConnected { _ in expressions }
    }

    /// `GROUP BY`.
    public func group(_ expressions: any SQLExpressible...) -> Self { group(expressions) }

    /// `GROUP BY` with raw SQL.
    public func group(sql: String, arguments: StatementArguments = StatementArguments()) -> Self {
        group(SQL(sql: sql, arguments: arguments))
    }

    /// `GROUP BY` with an SQL literal.
    public func group(literal sqlLiteral: SQL) -> Self { group(sqlLiteral) }

    /// `HAVING`; several conditions combine with AND.
    public func having(_ predicate: some SQLExpressible) -> Self {
        let predicate = predicate.sqlExpression
        return havingWhenConnected { _ in predicate }
    }

    /// `HAVING` with raw SQL.
    public func having(sql: String, arguments: StatementArguments = StatementArguments()) -> Self {
        having(SQL(sql: sql, arguments: arguments))
    }

    /// `HAVING` with an SQL literal.
    public func having(literal sqlLiteral: SQL) -> Self { having(sqlLiteral) }
}

extension AggregatingRequest where Self: TypedRequest, Self.RowDecoder: TableRecord {
    /// Groups by the record's columns.
    public func group(_ expression: (RowDecoder.DatabaseComponents) throws -> any SQLExpressible) rethrows -> Self {
        try group(expression(RowDecoder.databaseComponents))
    }

    /// Groups by the record's columns.
    public func group(_ expressions: (RowDecoder.DatabaseComponents) throws -> [any SQLExpressible]) rethrows -> Self {
        try group(expressions(RowDecoder.databaseComponents))
    }

    /// Filters groups on the record's columns.
    public func having(_ predicate: (RowDecoder.DatabaseComponents) throws -> any SQLExpressible) rethrows -> Self {
        try having(predicate(RowDecoder.databaseComponents))
    }
}

/// A request that can be ordered.
///
/// ```swift
/// Player.order(Column("score").desc).reversed()
/// Player.order { [$0.score.desc, $0.name] }
/// ```
public protocol OrderedRequest {
    /// Replaces the ordering, computed when the request runs.
    func orderWhenConnected(_ orderings: @escaping @Sendable (Database) throws -> [any SQLOrderingTerm]) -> Self
    /// The reverse order (no order stays no order).
    func reversed() -> Self
    /// No order.
    func unordered() -> Self
    /// The order, completed by the primary key, so rows always come in the
    /// same order.
    func withStableOrder() -> Self
}

extension OrderedRequest {
    /// Replaces the ordering.
    public func order(_ orderings: any SQLOrderingTerm...) -> Self { order(orderings) }

    /// Replaces the ordering.
    public func order(_ orderings: [any SQLOrderingTerm]) -> Self {
        let orderings = orderings.map(\.sqlOrdering)
        return orderWhenConnected { _ in orderings }
    }

    /// Orders with raw SQL.
    public func order(sql: String, arguments: StatementArguments = StatementArguments()) -> Self {
        order(SQL(sql: sql, arguments: arguments))
    }

    /// Orders with an SQL literal.
    public func order(literal sqlLiteral: SQL) -> Self { order(sqlLiteral) }
}

extension OrderedRequest where Self: TypedRequest, Self.RowDecoder: TableRecord {
    /// Orders by the record's columns: `Player.order { $0.score.desc }`.
    public func order(_ ordering: (RowDecoder.DatabaseComponents) throws -> any SQLOrderingTerm) rethrows -> Self {
        try order(ordering(RowDecoder.databaseComponents))
    }

    /// Orders by the record's columns: `Player.order { [$0.score.desc, $0.name] }`.
    public func order(_ orderings: (RowDecoder.DatabaseComponents) throws -> [any SQLOrderingTerm]) rethrows -> Self {
        try order(orderings(RowDecoder.databaseComponents))
    }
}

/// A request that can include or join associations.
public protocol JoinableRequest<RowDecoder>: TypedRequest {
    /// Prefetches a to-many association.
    func _including(all association: SQLAssociation) -> Self
    /// Includes a to-one association, with LEFT JOIN.
    func _including(optional association: SQLAssociation) -> Self
    /// Includes a to-one association, with JOIN.
    func _including(required association: SQLAssociation) -> Self
    /// Joins an association with LEFT JOIN, selecting nothing from it.
    func _joining(optional association: SQLAssociation) -> Self
    /// Joins an association with JOIN, selecting nothing from it.
    func _joining(required association: SQLAssociation) -> Self
}

extension JoinableRequest {
    /// Fetches the associated records with one more query per association,
    /// into each record's property named after the association key.
    public func including<A: AssociationToMany>(all association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        _including(all: association._sqlAssociation)
    }

    /// Includes the associated record, or nil (LEFT JOIN).
    public func including<A: Association>(optional association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        _including(optional: association._sqlAssociation)
    }

    /// Includes the associated record; rows without one are left out (JOIN).
    public func including<A: Association>(required association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        _including(required: association._sqlAssociation)
    }

    /// Joins the association, without selecting it (LEFT JOIN).
    public func joining<A: Association>(optional association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        _joining(optional: association._sqlAssociation)
    }

    /// Joins the association, without selecting it (JOIN).
    public func joining<A: Association>(required association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        _joining(required: association._sqlAssociation)
    }
}

extension JoinableRequest where Self: SelectionRequest {
    /// Adds the columns of an optional association to the selection, as
    /// columns of this request (not in a scope).
    public func annotated<A: Association>(withOptional association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        let alias = TableAlias()
        let selection = association._sqlAssociation.destination.relation.selectionPromise
        return joining(optional: association.aliased(alias))
            .annotatedWhenConnected { db in try selection.resolve(db).map { $0.qualified(with: alias) } }
    }

    /// Adds the columns of a required association to the selection.
    public func annotated<A: Association>(withRequired association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        let alias = TableAlias()
        let selection = association._sqlAssociation.destination.relation.selectionPromise
        return joining(required: association.aliased(alias))
            .annotatedWhenConnected { db in try selection.resolve(db).map { $0.qualified(with: alias) } }
    }
}

/// The requests that can be derived from: query interface requests and
/// associations. Extend it to share request methods between both.
///
/// ```swift
/// extension DerivableRequest<Player> {
///     func best() -> Self { order(Column("score").desc) }
/// }
/// ```
public protocol DerivableRequest<RowDecoder>: AggregatingRequest, FilteredRequest, JoinableRequest, OrderedRequest,
    SelectionRequest, TableRequest {
    /// `SELECT DISTINCT`.
    func distinct() -> Self
    /// Embeds a common table expression.
    func with<T>(_ cte: CommonTableExpression<T>) -> Self
}

extension DerivableRequest {
    /// Adds association aggregates to the selection:
    /// `Author.annotated(with: Author.books.count)`.
    public func annotated(with aggregates: AssociationAggregate<RowDecoder>...) -> Self {
        annotated(with: aggregates)
    }

    /// Adds association aggregates to the selection.
    public func annotated(with aggregates: [AssociationAggregate<RowDecoder>]) -> Self {
        aggregates.reduce(self) { request, aggregate in
            var request = request
            let expression = aggregate.prepare(&request)
            return request.annotated(with: aggregate.key.map { expression.forKey($0) } ?? expression.sqlSelection)
        }
    }

    /// Filters on an association aggregate: `Author.having(Author.books.isEmpty)`.
    public func having(_ predicate: AssociationAggregate<RowDecoder>) -> Self {
        var request = self
        let expression = predicate.prepare(&request)
        return request.having(expression)
    }
}

/// A primary key value of `filter(keys:)`. Dates, UUIDs and Data are kept
/// as such, so that a record type's coding strategies can encode them.
enum PrimaryKeyValue: Sendable {
    case date(Date)
    case uuid(UUID)
    case data(Data)
    case value(DatabaseValue)

    /// nil for NULL keys, which match no row.
    init?(_ key: some DatabaseValueConvertible) {
        switch key {
        case let date as Date: self = .date(date)
        case let uuid as UUID: self = .uuid(uuid)
        case let data as Data: self = .data(data)
        default:
            let value = key.databaseValue
            if value.isNull { return nil }
            self = .value(value)
        }
    }

    var databaseValue: DatabaseValue {
        switch self {
        case .date(let date): return date.databaseValue
        case .uuid(let uuid): return uuid.databaseValue
        case .data(let data): return data.databaseValue
        case .value(let value): return value
        }
    }

    func encoded(by recordType: any EncodableRecord.Type, column: String) throws -> DatabaseValue {
        switch self {
        case .date(let date): return try recordType.encodedKey(date, column: column)
        case .uuid(let uuid): return try recordType.encodedKey(uuid, column: column)
        case .data(let data): return try recordType.encodedKey(data, column: column)
        case .value(let value): return value
        }
    }
}
