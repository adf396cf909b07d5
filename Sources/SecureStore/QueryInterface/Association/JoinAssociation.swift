/// An association on a condition of your own, without foreign keys: to a
/// common table expression, a table, or a record type.
///
/// ```swift
/// let bestScore = CommonTableExpression(named: "bestScore", request: Player.select(max(Column("score"))))
/// let association = Player.association(to: bestScore) { player, bestScore in
///     player[Column("score")] == bestScore[Column("score")]
/// }
/// let bestPlayers = try Player.with(bestScore).joining(required: association).fetchAll(db)
/// ```
///
/// ## Topics
///
/// ### Building
///
/// - ``TableRecord/association(to:on:)-(CommonTableExpression<Destination>,_)``
/// - ``CommonTableExpression/association(to:on:)-(CommonTableExpression<Destination>,_)``
/// - ``Table/association(to:on:)-(CommonTableExpression<Destination>,_)``
public struct JoinAssociation<Origin, Destination>: AssociationToOne {
    /// The record type the association starts from.
    public typealias OriginRowDecoder = Origin
    /// The associated rows' type.
    public typealias RowDecoder = Destination

    /// The condition between the two tables, as in `on` closures.
    public typealias Condition = @Sendable (_ left: TableAlias<Origin>, _ right: TableAlias<Destination>) -> any SQLExpressible

    /// The untyped association.
    public var _sqlAssociation: SQLAssociation

    init(to relation: SQLRelation, condition: SQLAssociationCondition) {
        _sqlAssociation = SQLAssociation(key: .inflected(relation.source.tableName), condition: condition,
                                         relation: relation, cardinality: .toOne)
    }

    /// Joins on `condition`, or on every row when it is nil.
    init(to relation: SQLRelation, on condition: Condition?) {
        guard let condition else {
            self.init(to: relation, condition: .none)
            return
        }
        self.init(to: relation, condition: .expression { left, right in
            condition(TableAlias(root: left), TableAlias(root: right)).sqlExpression
        })
    }
}

extension TableRecord {
    /// An association to a common table expression, on a condition.
    public static func association<Destination>(
        to cte: CommonTableExpression<Destination>, on condition: @escaping JoinAssociation<Self, Destination>.Condition
    ) -> JoinAssociation<Self, Destination> {
        JoinAssociation(to: cte.relationForAll, on: condition)
    }

    /// An association to a common table expression, on every row.
    public static func association<Destination>(to cte: CommonTableExpression<Destination>) -> JoinAssociation<Self, Destination> {
        JoinAssociation(to: cte.relationForAll, on: nil)
    }

    /// An association to another record type, on a condition.
    public static func association<Destination: TableRecord>(
        to destination: Destination.Type, on condition: @escaping JoinAssociation<Self, Destination>.Condition
    ) -> JoinAssociation<Self, Destination> {
        JoinAssociation(to: Destination.relationForAll, on: condition)
    }

    /// An association to another record type, on every row.
    public static func association<Destination: TableRecord>(to destination: Destination.Type) -> JoinAssociation<Self, Destination> {
        JoinAssociation(to: Destination.relationForAll, on: nil)
    }
}

extension CommonTableExpression {
    /// An association to another common table expression, on a condition.
    public func association<Destination>(
        to cte: CommonTableExpression<Destination>, on condition: @escaping JoinAssociation<RowDecoder, Destination>.Condition
    ) -> JoinAssociation<RowDecoder, Destination> {
        JoinAssociation(to: cte.relationForAll, on: condition)
    }

    /// An association to another common table expression, on every row.
    public func association<Destination>(to cte: CommonTableExpression<Destination>) -> JoinAssociation<RowDecoder, Destination> {
        JoinAssociation(to: cte.relationForAll, on: nil)
    }

    /// An association to a record type, on a condition.
    public func association<Destination: TableRecord>(
        to destination: Destination.Type, on condition: @escaping JoinAssociation<RowDecoder, Destination>.Condition
    ) -> JoinAssociation<RowDecoder, Destination> {
        JoinAssociation(to: Destination.relationForAll, on: condition)
    }

    /// An association to a record type, on every row.
    public func association<Destination: TableRecord>(to destination: Destination.Type) -> JoinAssociation<RowDecoder, Destination> {
        JoinAssociation(to: Destination.relationForAll, on: nil)
    }

    /// An association to a table, on a condition.
    public func association<Destination>(
        to destination: Table<Destination>, on condition: @escaping JoinAssociation<RowDecoder, Destination>.Condition
    ) -> JoinAssociation<RowDecoder, Destination> {
        JoinAssociation(to: destination.relationForAll, on: condition)
    }

    /// An association to a table, on every row.
    public func association<Destination>(to destination: Table<Destination>) -> JoinAssociation<RowDecoder, Destination> {
        JoinAssociation(to: destination.relationForAll, on: nil)
    }
}

extension Table {
    /// An association to a common table expression, on a condition.
    public func association<Destination>(
        to cte: CommonTableExpression<Destination>, on condition: @escaping JoinAssociation<RowDecoder, Destination>.Condition
    ) -> JoinAssociation<RowDecoder, Destination> {
        JoinAssociation(to: cte.relationForAll, on: condition)
    }

    /// An association to a common table expression, on every row.
    public func association<Destination>(to cte: CommonTableExpression<Destination>) -> JoinAssociation<RowDecoder, Destination> {
        JoinAssociation(to: cte.relationForAll, on: nil)
    }
}
