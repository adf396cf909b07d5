/// A value computed over the records of a to-many association, for
/// `annotated(with:)` and `having(_:)`: the association is joined (LEFT
/// JOIN), the request grouped by primary key, and the aggregate selected.
///
/// ```swift
/// let authors = try Author.annotated(with: Author.books.count).fetchAll(db)   // "bookCount"
/// let lonely = try Author.having(Author.books.isEmpty).fetchAll(db)
/// let prolific = try Author.having(Author.books.count >= 10).fetchAll(db)
/// ```
public struct AssociationAggregate<RowDecoder>: Sendable, Refinable {
    /// An aggregate of one association, before it is joined.
    struct Base: Sendable {
        var association: SQLAssociation
        var expression: SQLExpression
    }

    let bases: [Base]
    /// Combines the aggregates of `bases`, qualified, into one expression.
    let combine: @Sendable ([SQLExpression]) -> SQLExpression
    /// The name of the selected column in `annotated(with:)`.
    var key: String?

    /// Joins the associations into `request` and returns the expression.
    func prepare<Request: DerivableRequest>(_ request: inout Request) -> SQLExpression {
        var expressions: [SQLExpression] = []
        for base in bases {
            let alias = TableAlias()
            var association = base.association
            association.destination.relation = association.destination.relation.aliased(alias)
            request = request._joining(optional: association).groupByPrimaryKey()
            expressions.append(base.expression.qualified(with: alias))
        }
        return combine(expressions)
    }

    /// The aggregate, selected under another name.
    public func forKey(_ key: String) -> Self { with { $0.key = key } }

    /// The aggregate, selected under the name of a coding key.
    public func forKey(_ key: some CodingKey) -> Self { forKey(key.stringValue) }

    func map(_ transform: @escaping @Sendable (SQLExpression) -> SQLExpression) -> Self {
        let combine = self.combine
        return AssociationAggregate(bases: bases, combine: { transform(combine($0)) }, key: nil)
    }

    static func combined(_ lhs: Self, _ rhs: Self, _ operation: @escaping @Sendable (SQLExpression, SQLExpression) -> SQLExpression) -> Self {
        let split = lhs.bases.count
        let (lhsCombine, rhsCombine) = (lhs.combine, rhs.combine)
        return AssociationAggregate(bases: lhs.bases + rhs.bases, combine: { expressions in
            operation(lhsCombine(Array(expressions[..<split])), rhsCombine(Array(expressions[split...])))
        }, key: nil)
    }
}

extension AssociationToMany {
    private func aggregate(_ expression: SQLExpression, key: String?) -> AssociationAggregate<OriginRowDecoder> {
        AssociationAggregate(bases: [.init(association: _sqlAssociation, expression: expression)], combine: { $0[0] }, key: key)
    }

    /// The singular association key: `book` for `Author.books`.
    private var singularKey: String { _sqlAssociation.destination.key.name(singular: true) }

    /// A name made of a prefix, the key and a column (`maxBookYear`).
    private func aggregateKey(_ expression: some SQLSpecificExpressible, _ make: (String, String) -> String) -> String? {
        guard let column = expression as? any ColumnExpression else { return nil }
        return make(singularKey, column.name)
    }

    /// The number of associated records: `COUNT(DISTINCT book.id)`, as `bookCount`.
    public var count: AssociationAggregate<OriginRowDecoder> {
        aggregate(.countDistinct(.fastPrimaryKey), key: "\(singularKey)Count")
    }

    /// True when there is no associated record, as `hasNoBook`.
    public var isEmpty: AssociationAggregate<OriginRowDecoder> {
        aggregate(.isEmpty(.countDistinct(.fastPrimaryKey)), key: "hasNo\(singularKey.uppercasingFirstCharacter)")
    }

    /// The average of a value of the associated records (`averageBookPrice`).
    public func average(_ expression: some SQLSpecificExpressible) -> AssociationAggregate<OriginRowDecoder> {
        aggregate(.function("AVG", [expression.sqlExpression]),
                  key: aggregateKey(expression) { "average\($0.uppercasingFirstCharacter)\($1.uppercasingFirstCharacter)" })
    }

    /// The largest value (`maxBookYear`).
    public func max(_ expression: some SQLSpecificExpressible) -> AssociationAggregate<OriginRowDecoder> {
        aggregate(.function("MAX", [expression.sqlExpression]),
                  key: aggregateKey(expression) { "max\($0.uppercasingFirstCharacter)\($1.uppercasingFirstCharacter)" })
    }

    /// The smallest value (`minBookYear`).
    public func min(_ expression: some SQLSpecificExpressible) -> AssociationAggregate<OriginRowDecoder> {
        aggregate(.function("MIN", [expression.sqlExpression]),
                  key: aggregateKey(expression) { "min\($0.uppercasingFirstCharacter)\($1.uppercasingFirstCharacter)" })
    }

    /// The sum (`bookPriceSum`).
    public func sum(_ expression: some SQLSpecificExpressible) -> AssociationAggregate<OriginRowDecoder> {
        aggregate(.function("SUM", [expression.sqlExpression]),
                  key: aggregateKey(expression) { "\($0)\($1.uppercasingFirstCharacter)Sum" })
    }

    /// The total, 0.0 for no record (`bookPriceSum`).
    public func total(_ expression: some SQLSpecificExpressible) -> AssociationAggregate<OriginRowDecoder> {
        aggregate(.function("TOTAL", [expression.sqlExpression]),
                  key: aggregateKey(expression) { "\($0)\($1.uppercasingFirstCharacter)Sum" })
    }
}

extension AssociationToMany where RowDecoder: TableRecord {
    /// The average of one of the associated record's columns.
    public func average(_ expression: (RowDecoder.DatabaseComponents) throws -> some SQLSpecificExpressible) rethrows
    -> AssociationAggregate<OriginRowDecoder> { try average(expression(RowDecoder.databaseComponents)) }

    /// The largest of one of the associated record's columns.
    public func max(_ expression: (RowDecoder.DatabaseComponents) throws -> some SQLSpecificExpressible) rethrows
    -> AssociationAggregate<OriginRowDecoder> { try max(expression(RowDecoder.databaseComponents)) }

    /// The smallest of one of the associated record's columns.
    public func min(_ expression: (RowDecoder.DatabaseComponents) throws -> some SQLSpecificExpressible) rethrows
    -> AssociationAggregate<OriginRowDecoder> { try min(expression(RowDecoder.databaseComponents)) }

    /// The sum of one of the associated record's columns.
    public func sum(_ expression: (RowDecoder.DatabaseComponents) throws -> some SQLSpecificExpressible) rethrows
    -> AssociationAggregate<OriginRowDecoder> { try sum(expression(RowDecoder.databaseComponents)) }

    /// The total of one of the associated record's columns.
    public func total(_ expression: (RowDecoder.DatabaseComponents) throws -> some SQLSpecificExpressible) rethrows
    -> AssociationAggregate<OriginRowDecoder> { try total(expression(RowDecoder.databaseComponents)) }
}

// Operators on aggregates build expressions for `annotated(with:)` and
// conditions for `having(_:)`: `Team.having(Team.players.count + 1 > 3)`.
extension AssociationAggregate {
    /// The aggregate combined with a value: the value is converted to an
    /// expression first, so that the closure captures only Sendable values.
    private func map(_ value: (any SQLExpressible)?, _ operation: @escaping @Sendable (SQLExpression, SQLExpression) -> SQLExpression) -> Self {
        let rhs = value?.sqlExpression ?? .null
        return map { operation($0, rhs) }
    }

    /// A value combined with the aggregate.
    private static func map(_ value: (any SQLExpressible)?, _ aggregate: Self,
                            _ operation: @escaping @Sendable (SQLExpression, SQLExpression) -> SQLExpression) -> Self {
        let lhs = value?.sqlExpression ?? .null
        return aggregate.map { operation(lhs, $0) }
    }

    /// `NOT`.
    public static prefix func ! (aggregate: Self) -> Self { aggregate.map { !$0 } }
    /// Negative value.
    public static prefix func - (aggregate: Self) -> Self { aggregate.map { -$0 } }
    /// `AND`.
    public static func && (lhs: Self, rhs: Self) -> Self { combined(lhs, rhs) { $0 && $1 } }
    /// `AND`.
    public static func && (lhs: Self, rhs: some SQLExpressible) -> Self { lhs.map(rhs) { $0 && $1 } }
    /// `AND`.
    public static func && (lhs: some SQLExpressible, rhs: Self) -> Self { map(lhs, rhs) { $0 && $1 } }
    /// `OR`.
    public static func || (lhs: Self, rhs: Self) -> Self { combined(lhs, rhs) { $0 || $1 } }
    /// `OR`.
    public static func || (lhs: Self, rhs: some SQLExpressible) -> Self { lhs.map(rhs) { $0 || $1 } }
    /// `OR`.
    public static func || (lhs: some SQLExpressible, rhs: Self) -> Self { map(lhs, rhs) { $0 || $1 } }
    /// `=`.
    public static func == (lhs: Self, rhs: Self) -> Self { combined(lhs, rhs) { $0 == $1 } }
    /// `=`.
    public static func == (lhs: Self, rhs: (any SQLExpressible)?) -> Self { lhs.map(rhs) { $0 == $1 } }
    /// `=`.
    public static func == (lhs: (any SQLExpressible)?, rhs: Self) -> Self { map(lhs, rhs) { $0 == $1 } }
    /// `=` a boolean.
    public static func == (lhs: Self, rhs: Bool) -> Self { lhs.map { $0 == rhs } }
    /// `=` a boolean.
    public static func == (lhs: Bool, rhs: Self) -> Self { rhs.map { lhs == $0 } }
    /// `<>`.
    public static func != (lhs: Self, rhs: Self) -> Self { combined(lhs, rhs) { $0 != $1 } }
    /// `<>`.
    public static func != (lhs: Self, rhs: (any SQLExpressible)?) -> Self { lhs.map(rhs) { $0 != $1 } }
    /// `<>`.
    public static func != (lhs: (any SQLExpressible)?, rhs: Self) -> Self { map(lhs, rhs) { $0 != $1 } }
    /// `<>` a boolean.
    public static func != (lhs: Self, rhs: Bool) -> Self { lhs.map { $0 != rhs } }
    /// `<>` a boolean.
    public static func != (lhs: Bool, rhs: Self) -> Self { rhs.map { lhs != $0 } }
    /// `IS`.
    public static func === (lhs: Self, rhs: Self) -> Self { combined(lhs, rhs) { $0 === $1 } }
    /// `IS`.
    public static func === (lhs: Self, rhs: (any SQLExpressible)?) -> Self { lhs.map(rhs) { $0 === $1 } }
    /// `IS`.
    public static func === (lhs: (any SQLExpressible)?, rhs: Self) -> Self { map(lhs, rhs) { $0 === $1 } }
    /// `IS NOT`.
    public static func !== (lhs: Self, rhs: Self) -> Self { combined(lhs, rhs) { $0 !== $1 } }
    /// `IS NOT`.
    public static func !== (lhs: Self, rhs: (any SQLExpressible)?) -> Self { lhs.map(rhs) { $0 !== $1 } }
    /// `IS NOT`.
    public static func !== (lhs: (any SQLExpressible)?, rhs: Self) -> Self { map(lhs, rhs) { $0 !== $1 } }
    /// `<`.
    public static func < (lhs: Self, rhs: Self) -> Self { combined(lhs, rhs) { $0 < $1 } }
    /// `<`.
    public static func < (lhs: Self, rhs: some SQLExpressible) -> Self { lhs.map(rhs) { $0 < $1 } }
    /// `<`.
    public static func < (lhs: some SQLExpressible, rhs: Self) -> Self { map(lhs, rhs) { $0 < $1 } }
    /// `<=`.
    public static func <= (lhs: Self, rhs: Self) -> Self { combined(lhs, rhs) { $0 <= $1 } }
    /// `<=`.
    public static func <= (lhs: Self, rhs: some SQLExpressible) -> Self { lhs.map(rhs) { $0 <= $1 } }
    /// `<=`.
    public static func <= (lhs: some SQLExpressible, rhs: Self) -> Self { map(lhs, rhs) { $0 <= $1 } }
    /// `>`.
    public static func > (lhs: Self, rhs: Self) -> Self { combined(lhs, rhs) { $0 > $1 } }
    /// `>`.
    public static func > (lhs: Self, rhs: some SQLExpressible) -> Self { lhs.map(rhs) { $0 > $1 } }
    /// `>`.
    public static func > (lhs: some SQLExpressible, rhs: Self) -> Self { map(lhs, rhs) { $0 > $1 } }
    /// `>=`.
    public static func >= (lhs: Self, rhs: Self) -> Self { combined(lhs, rhs) { $0 >= $1 } }
    /// `>=`.
    public static func >= (lhs: Self, rhs: some SQLExpressible) -> Self { lhs.map(rhs) { $0 >= $1 } }
    /// `>=`.
    public static func >= (lhs: some SQLExpressible, rhs: Self) -> Self { map(lhs, rhs) { $0 >= $1 } }
    /// `+`.
    public static func + (lhs: Self, rhs: Self) -> Self { combined(lhs, rhs) { $0 + $1 } }
    /// `+`.
    public static func + (lhs: Self, rhs: some SQLExpressible) -> Self { lhs.map(rhs) { $0 + $1 } }
    /// `+`.
    public static func + (lhs: some SQLExpressible, rhs: Self) -> Self { map(lhs, rhs) { $0 + $1 } }
    /// `-`.
    public static func - (lhs: Self, rhs: Self) -> Self { combined(lhs, rhs) { $0 - $1 } }
    /// `-`.
    public static func - (lhs: Self, rhs: some SQLExpressible) -> Self { lhs.map(rhs) { $0 - $1 } }
    /// `-`.
    public static func - (lhs: some SQLExpressible, rhs: Self) -> Self { map(lhs, rhs) { $0 - $1 } }
    /// `*`.
    public static func * (lhs: Self, rhs: Self) -> Self { combined(lhs, rhs) { $0 * $1 } }
    /// `*`.
    public static func * (lhs: Self, rhs: some SQLExpressible) -> Self { lhs.map(rhs) { $0 * $1 } }
    /// `*`.
    public static func * (lhs: some SQLExpressible, rhs: Self) -> Self { map(lhs, rhs) { $0 * $1 } }
    /// `/`.
    public static func / (lhs: Self, rhs: Self) -> Self { combined(lhs, rhs) { $0 / $1 } }
    /// `/`.
    public static func / (lhs: Self, rhs: some SQLExpressible) -> Self { lhs.map(rhs) { $0 / $1 } }
    /// `/`.
    public static func / (lhs: some SQLExpressible, rhs: Self) -> Self { map(lhs, rhs) { $0 / $1 } }
    /// `IFNULL(aggregate, value)`, under the aggregate's key.
    public static func ?? (lhs: Self, rhs: some SQLExpressible) -> Self {
        lhs.map(rhs) { $0 ?? $1 }.with { $0.key = lhs.key }
    }
}

/// `ABS(aggregate)`.
public func abs<RowDecoder>(_ aggregate: AssociationAggregate<RowDecoder>) -> AssociationAggregate<RowDecoder> {
    aggregate.map { abs($0) }
}

/// `CAST(aggregate AS storageClass)`, under the aggregate's key.
public func cast<RowDecoder>(_ aggregate: AssociationAggregate<RowDecoder>, as storageClass: Database.StorageClass)
-> AssociationAggregate<RowDecoder> {
    aggregate.map { cast($0, as: storageClass) }.with { $0.key = aggregate.key }
}

/// `LENGTH(aggregate)`.
public func length<RowDecoder>(_ aggregate: AssociationAggregate<RowDecoder>) -> AssociationAggregate<RowDecoder> {
    aggregate.map { length($0) }
}

extension String {
    /// `book` → `Book`.
    var uppercasingFirstCharacter: String { prefix(1).uppercased() + dropFirst() }
}
