/// A table, without a record type: requests of rows (or of a type you
/// choose), and associations.
///
/// ```swift
/// let playerTable = Table("player")
/// let rows = try playerTable.filter(Column("score") > 1000).fetchAll(db)   // [Row]
/// let count = try playerTable.fetchCount(db)
///
/// let players = Table<Player>("player")
/// let best = try players.order(Column("score").desc).fetchOne(db)         // Player?
/// ```
public struct Table<RowDecoder>: Sendable {
    /// The table's name.
    public var tableName: String

    /// A table whose rows decode into `RowDecoder`.
    public init(_ tableName: String) { self.tableName = tableName }

    var relationForAll: SQLRelation { .all(fromTable: tableName) }

    /// Every row.
    public func all() -> QueryInterfaceRequest<RowDecoder> { QueryInterfaceRequest(relation: relationForAll) }

    /// No row.
    public func none() -> QueryInterfaceRequest<RowDecoder> { all().none() }

    /// Selects.
    public func select(_ selection: any SQLSelectable...) -> QueryInterfaceRequest<RowDecoder> { all().select(selection) }
    /// Selects.
    public func select(_ selection: [any SQLSelectable]) -> QueryInterfaceRequest<RowDecoder> { all().select(selection) }
    /// Selects raw SQL.
    public func select(sql: String, arguments: StatementArguments = StatementArguments()) -> QueryInterfaceRequest<RowDecoder> {
        all().select(sql: sql, arguments: arguments)
    }
    /// Selects an SQL literal.
    public func select(literal sqlLiteral: SQL) -> QueryInterfaceRequest<RowDecoder> { all().select(literal: sqlLiteral) }
    /// Selects, and decodes rows into another type.
    public func select<T>(_ selection: any SQLSelectable..., as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        all().select(selection, as: type)
    }
    /// Selects, and decodes rows into another type.
    public func select<T>(_ selection: [any SQLSelectable], as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        all().select(selection, as: type)
    }
    /// Selects raw SQL, and decodes rows into another type.
    public func select<T>(sql: String, arguments: StatementArguments = StatementArguments(), as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        all().select(sql: sql, arguments: arguments, as: type)
    }
    /// Selects an SQL literal, and decodes rows into another type.
    public func select<T>(literal sqlLiteral: SQL, as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        all().select(literal: sqlLiteral, as: type)
    }
    /// Selects the primary key.
    public func selectPrimaryKey<PrimaryKey>(as type: PrimaryKey.Type = PrimaryKey.self) -> QueryInterfaceRequest<PrimaryKey> {
        all().selectPrimaryKey(as: type)
    }
    /// Adds to the selection.
    public func annotated(with selection: [any SQLSelectable]) -> QueryInterfaceRequest<RowDecoder> { all().annotated(with: selection) }
    /// Adds to the selection.
    public func annotated(with selection: any SQLSelectable...) -> QueryInterfaceRequest<RowDecoder> { all().annotated(with: selection) }
    /// Filters.
    public func filter(_ predicate: some SQLSpecificExpressible) -> QueryInterfaceRequest<RowDecoder> { all().filter(predicate) }
    /// The row with this primary key.
    public func filter(key: some DatabaseValueConvertible) -> QueryInterfaceRequest<RowDecoder> { all().filter(key: key) }
    /// The rows with these primary keys.
    public func filter<Keys: Collection>(keys: Keys) -> QueryInterfaceRequest<RowDecoder> where Keys.Element: DatabaseValueConvertible {
        all().filter(keys: keys)
    }
    /// The row with these column values.
    public func filter(key: [String: (any DatabaseValueConvertible)?]?) -> QueryInterfaceRequest<RowDecoder> { all().filter(key: key) }
    /// The rows with these column values.
    public func filter(keys: [[String: (any DatabaseValueConvertible)?]]) -> QueryInterfaceRequest<RowDecoder> { all().filter(keys: keys) }
    /// Filters with raw SQL.
    public func filter(sql: String, arguments: StatementArguments = StatementArguments()) -> QueryInterfaceRequest<RowDecoder> {
        all().filter(sql: sql, arguments: arguments)
    }
    /// Filters with an SQL literal.
    public func filter(literal sqlLiteral: SQL) -> QueryInterfaceRequest<RowDecoder> { all().filter(literal: sqlLiteral) }
    /// Orders.
    public func order(_ orderings: any SQLOrderingTerm...) -> QueryInterfaceRequest<RowDecoder> { all().order(orderings) }
    /// Orders.
    public func order(_ orderings: [any SQLOrderingTerm]) -> QueryInterfaceRequest<RowDecoder> { all().order(orderings) }
    /// Orders by primary key.
    public func orderByPrimaryKey() -> QueryInterfaceRequest<RowDecoder> { all().orderByPrimaryKey() }
    /// Orders with raw SQL.
    public func order(sql: String, arguments: StatementArguments = StatementArguments()) -> QueryInterfaceRequest<RowDecoder> {
        all().order(sql: sql, arguments: arguments)
    }
    /// Orders with an SQL literal.
    public func order(literal sqlLiteral: SQL) -> QueryInterfaceRequest<RowDecoder> { all().order(literal: sqlLiteral) }
    /// `LIMIT`.
    public func limit(_ limit: Int, offset: Int? = nil) -> QueryInterfaceRequest<RowDecoder> { all().limit(limit, offset: offset) }
    /// The table under an alias.
    public func aliased(_ alias: TableAlias<Void>) -> QueryInterfaceRequest<RowDecoder> { all().aliased(alias) }
    /// The table under an alias.
    public func aliased(_ alias: TableAlias<RowDecoder>) -> QueryInterfaceRequest<RowDecoder> { all().aliased(alias) }
    /// Embeds a common table expression.
    public func with<T>(_ cte: CommonTableExpression<T>) -> QueryInterfaceRequest<RowDecoder> { all().with(cte) }

    /// Includes a to-many association.
    public func including<A: AssociationToMany>(all association: A) -> QueryInterfaceRequest<RowDecoder>
    where A.OriginRowDecoder == RowDecoder { all().including(all: association) }
    /// Includes an optional association.
    public func including<A: Association>(optional association: A) -> QueryInterfaceRequest<RowDecoder>
    where A.OriginRowDecoder == RowDecoder { all().including(optional: association) }
    /// Includes a required association.
    public func including<A: Association>(required association: A) -> QueryInterfaceRequest<RowDecoder>
    where A.OriginRowDecoder == RowDecoder { all().including(required: association) }
    /// Joins an optional association.
    public func joining<A: Association>(optional association: A) -> QueryInterfaceRequest<RowDecoder>
    where A.OriginRowDecoder == RowDecoder { all().joining(optional: association) }
    /// Joins a required association.
    public func joining<A: Association>(required association: A) -> QueryInterfaceRequest<RowDecoder>
    where A.OriginRowDecoder == RowDecoder { all().joining(required: association) }
    /// Annotates with association aggregates.
    public func annotated(with aggregates: AssociationAggregate<RowDecoder>...) -> QueryInterfaceRequest<RowDecoder> {
        all().annotated(with: aggregates)
    }
    /// Annotates with association aggregates.
    public func annotated(with aggregates: [AssociationAggregate<RowDecoder>]) -> QueryInterfaceRequest<RowDecoder> {
        all().annotated(with: aggregates)
    }
    /// Annotates with the columns of an optional association.
    public func annotated<A: Association>(withOptional association: A) -> QueryInterfaceRequest<RowDecoder>
    where A.OriginRowDecoder == RowDecoder { all().annotated(withOptional: association) }
    /// Annotates with the columns of a required association.
    public func annotated<A: Association>(withRequired association: A) -> QueryInterfaceRequest<RowDecoder>
    where A.OriginRowDecoder == RowDecoder { all().annotated(withRequired: association) }
    /// Filters on an association aggregate.
    public func having(_ predicate: AssociationAggregate<RowDecoder>) -> QueryInterfaceRequest<RowDecoder> { all().having(predicate) }

    /// `belongsTo` from this table.
    public func belongsTo<Destination: TableRecord>(_ destination: Destination.Type, key: String? = nil,
                                                    using foreignKey: ForeignKey? = nil) -> BelongsToAssociation<RowDecoder, Destination> {
        BelongsToAssociation(to: Destination.relationForAll, key: key, using: foreignKey)
    }
    /// `hasMany` from this table.
    public func hasMany<Destination: TableRecord>(_ destination: Destination.Type, key: String? = nil,
                                                  using foreignKey: ForeignKey? = nil) -> HasManyAssociation<RowDecoder, Destination> {
        HasManyAssociation(to: Destination.relationForAll, key: key, using: foreignKey)
    }
    /// `hasOne` from this table.
    public func hasOne<Destination: TableRecord>(_ destination: Destination.Type, key: String? = nil,
                                                 using foreignKey: ForeignKey? = nil) -> HasOneAssociation<RowDecoder, Destination> {
        HasOneAssociation(to: Destination.relationForAll, key: key, using: foreignKey)
    }
    /// `belongsTo` another table.
    public func belongsTo<Destination>(_ destination: Table<Destination>, key: String? = nil,
                                       using foreignKey: ForeignKey? = nil) -> BelongsToAssociation<RowDecoder, Destination> {
        BelongsToAssociation(to: destination.relationForAll, key: key, using: foreignKey)
    }
    /// `hasMany` another table.
    public func hasMany<Destination>(_ destination: Table<Destination>, key: String? = nil,
                                     using foreignKey: ForeignKey? = nil) -> HasManyAssociation<RowDecoder, Destination> {
        HasManyAssociation(to: destination.relationForAll, key: key, using: foreignKey)
    }
    /// `hasOne` another table.
    public func hasOne<Destination>(_ destination: Table<Destination>, key: String? = nil,
                                    using foreignKey: ForeignKey? = nil) -> HasOneAssociation<RowDecoder, Destination> {
        HasOneAssociation(to: destination.relationForAll, key: key, using: foreignKey)
    }
    /// `hasMany` through another association.
    public func hasMany<Pivot: Association, Target: Association>(
        _ destination: Target.RowDecoder.Type, through pivot: Pivot, using target: Target, key: String? = nil
    ) -> HasManyThroughAssociation<RowDecoder, Target.RowDecoder>
    where Pivot.OriginRowDecoder == RowDecoder, Pivot.RowDecoder == Target.OriginRowDecoder {
        let association = HasManyThroughAssociation(through: pivot, using: target)
        return key.map { association.forKey($0) } ?? association
    }
    /// `hasOne` through another association.
    public func hasOne<Pivot: AssociationToOne, Target: AssociationToOne>(
        _ destination: Target.RowDecoder.Type, through pivot: Pivot, using target: Target, key: String? = nil
    ) -> HasOneThroughAssociation<RowDecoder, Target.RowDecoder>
    where Pivot.OriginRowDecoder == RowDecoder, Pivot.RowDecoder == Target.OriginRowDecoder {
        let association = HasOneThroughAssociation(through: pivot, using: target)
        return key.map { association.forKey($0) } ?? association
    }
}

extension Table where RowDecoder == Row {
    /// A table of rows.
    public init(_ tableName: String) { self.tableName = tableName }
}

extension Table where RowDecoder: Identifiable, RowDecoder.ID: DatabaseValueConvertible {
    /// The row with this id.
    public func filter(id: RowDecoder.ID) -> QueryInterfaceRequest<RowDecoder> { all().filter(id: id) }
    /// The rows with these ids.
    public func filter(ids: some Collection<RowDecoder.ID>) -> QueryInterfaceRequest<RowDecoder> { all().filter(ids: ids) }
    /// Selects the ids.
    public func selectID() -> QueryInterfaceRequest<RowDecoder.ID> { all().selectID() }
}

extension Table where RowDecoder: TableRecord {
    /// The columns of the record type, for closures:
    /// `Table<Player>("player").updateAll(db) { $0.score.set(to: 0) }`.
    public typealias DatabaseComponents = RowDecoder.DatabaseComponents
}

extension Table: DatabaseRegionConvertible {
    /// The whole table.
    public func databaseRegion(_ db: Database) throws -> DatabaseRegion { DatabaseRegion(table: tableName) }
}
