/// The untyped form of an association: a path of steps from an origin
/// table to a destination table. A direct association has one step; an
/// association through others (`hasMany(_:through:using:)`) has one step
/// per table on the way.
///
/// GRDB exposes it as `_SQLAssociation`, the name the request protocols'
/// `_including(all:)` family takes.
public struct SQLAssociation: Sendable, Refinable {
    private(set) var steps: [SQLAssociationStep]

    init(steps: [SQLAssociationStep]) {
        precondition(!steps.isEmpty, "an association has at least one step")
        self.steps = steps
    }

    /// The association of a foreign key: `belongsTo` when the origin holds
    /// the key, `hasOne` and `hasMany` when the destination does.
    static func foreignKey(to destination: SQLRelation, key: String?, using foreignKey: ForeignKey?,
                           originHoldsKey: Bool, cardinality: SQLAssociationCardinality) -> SQLAssociation {
        let table = destination.source.tableName
        let fixedKey = cardinality == .toMany ? key.map(SQLAssociationKey.fixedPlural) : key.map(SQLAssociationKey.fixedSingular)
        return SQLAssociation(
            key: fixedKey ?? .inflected(table),
            condition: .foreignKey(SQLForeignKeyCondition(destinationTable: table, foreignKey: foreignKey, originIsLeft: originHoldsKey)),
            relation: destination, cardinality: cardinality)
    }

    init(key: SQLAssociationKey, condition: SQLAssociationCondition, relation: SQLRelation,
         cardinality: SQLAssociationCardinality) {
        self.init(steps: [SQLAssociationStep(key: key, condition: condition, relation: relation, cardinality: cardinality)])
    }

    /// The last step: the table the association leads to.
    var destination: SQLAssociationStep {
        get { steps[steps.count - 1] }
        set { steps[steps.count - 1] = newValue }
    }

    /// The first step, from the origin.
    var pivot: SQLAssociationStep {
        get { steps[0] }
        set { steps[0] = newValue }
    }

    /// The keys of the steps: where a prefetched association's rows go.
    var keyPath: [String] { steps.map(\.keyName) }

    func forDestinationKey(_ key: SQLAssociationKey) -> SQLAssociation {
        with { $0.destination.key = key }
    }

    /// This association, reached through `other`.
    func through(_ other: SQLAssociation) -> SQLAssociation {
        SQLAssociation(steps: other.steps + steps)
    }

    /// The destination, joined back to the pivot through the intermediate
    /// steps (reversed): the request of `record.request(for:)` and of
    /// prefetching. The intermediate tables are joined, not selected, under
    /// `grdb_`-prefixed keys.
    func destinationRelation() -> SQLRelation {
        guard steps.count > 1 else { return destination.relation }
        let reversedSteps = zip(steps, steps.dropFirst()).map { step, next in
            SQLAssociationStep(
                key: step.key.with { $0.baseName = "grdb_" + $0.baseName },
                condition: next.condition.reversed(to: step.relation.source.tableName),
                relation: step.relation.selectOnly([]).removingPrefetchedAssociations(),
                cardinality: .toOne)
        }.reversed()
        return destination.relation.appendingChild(for: SQLAssociation(steps: Array(reversedSteps)), kind: .oneRequired)
    }
}

/// The name GRDB's request protocols use for ``SQLAssociation``.
public typealias _SQLAssociation = SQLAssociation

/// One step of an association.
struct SQLAssociationStep: Sendable, Refinable {
    var key: SQLAssociationKey
    var condition: SQLAssociationCondition
    var relation: SQLRelation
    var cardinality: SQLAssociationCardinality

    var keyName: String { key.name(singular: cardinality == .toOne) }
}

enum SQLAssociationCardinality: Sendable {
    case toOne, toMany
}

/// The key of an association: the scope of its joined rows, the property
/// its records decode into. Keys made from table names are inflected
/// (`book` for to-one, `books` for to-many); keys given with `forKey` are
/// used as given.
enum SQLAssociationKey: Sendable, Refinable {
    case inflected(String)
    case fixedSingular(String)
    case fixedPlural(String)
    case fixed(String)

    var baseName: String {
        get {
            switch self {
            case .inflected(let name), .fixedSingular(let name), .fixedPlural(let name), .fixed(let name): return name
            }
        }
        set {
            switch self {
            case .inflected: self = .inflected(newValue)
            case .fixedSingular: self = .fixedSingular(newValue)
            case .fixedPlural: self = .fixedPlural(newValue)
            case .fixed: self = .fixed(newValue)
            }
        }
    }

    func name(singular: Bool) -> String {
        switch self {
        case .inflected(let name): return singular ? name.singularized : name.pluralized
        case .fixedSingular(let name): return singular ? name : name.pluralized
        case .fixedPlural(let name): return singular ? name.singularized : name
        case .fixed(let name): return name
        }
    }
}

/// How an association joins its destination to its origin: through a
/// foreign key (inferred from the schema, or given), or an expression.
enum SQLAssociationCondition: Sendable {
    case foreignKey(SQLForeignKeyCondition)
    case expression(@Sendable (_ left: TableAliasBase, _ right: TableAliasBase) -> SQLExpression?)

    /// No condition: a join on every row (CTE associations).
    static let none = SQLAssociationCondition.expression { _, _ in nil }

    func reversed(to destinationTable: String) -> SQLAssociationCondition {
        switch self {
        case .foreignKey(let condition): return .foreignKey(condition.reversed(to: destinationTable))
        case .expression(let condition): return .expression { condition($1, $0) }
        }
    }

    func joinExpression(_ db: Database, leftAlias: TableAliasBase, rightAlias: TableAliasBase) throws -> SQLExpression? {
        switch self {
        case .expression(let condition):
            return condition(leftAlias, rightAlias)
        case .foreignKey(let condition):
            return try condition.joinMapping(db, from: leftAlias.tableName)
                .map { rightAlias[$0.right] == leftAlias[$0.left] }
                .joined(operator: .and)
        }
    }

    func merged(with other: SQLAssociationCondition) -> SQLAssociationCondition? {
        switch (self, other) {
        case let (.foreignKey(lhs), .foreignKey(rhs)): return lhs == rhs ? self : nil
        case (.expression, .expression): return other
        default: return nil
        }
    }
}

/// A foreign key, seen from one side of an association.
struct SQLForeignKeyCondition: Equatable, Sendable {
    var destinationTable: String
    var foreignKey: ForeignKey?
    /// True when the foreign key goes from the left table of the join
    /// (belongsTo), false when it goes from the right one (hasMany).
    var originIsLeft: Bool

    func reversed(to destinationTable: String) -> SQLForeignKeyCondition {
        SQLForeignKeyCondition(destinationTable: destinationTable, foreignKey: foreignKey, originIsLeft: !originIsLeft)
    }

    /// Pairs of (left column, right column).
    func joinMapping(_ db: Database, from originTable: String) throws -> [(left: String, right: String)] {
        let (from, to) = originIsLeft ? (originTable, destinationTable) : (destinationTable, originTable)
        let mapping = try ForeignKey.mapping(db, from: from, to: to, foreignKey: foreignKey)
        return originIsLeft ? mapping.map { ($0.origin, $0.destination) } : mapping.map { ($0.destination, $0.origin) }
    }
}

/// The columns of a foreign key, for associations whose key SQLite's schema
/// does not say (no FOREIGN KEY clause, or several to the same table).
///
/// ```swift
/// static let author = belongsTo(Author.self, using: ForeignKey(["authorId"]))
/// static let translator = belongsTo(Person.self, key: "translator",
///                                   using: ForeignKey(["translatorId"], to: ["id"]))
/// ```
public struct ForeignKey: Equatable, Sendable {
    var originColumns: [String]
    var destinationColumns: [String]?

    /// The columns of the origin table, and those of the destination they
    /// refer to (its primary key when nil).
    public init(_ originColumns: [String], to destinationColumns: [String]? = nil) {
        self.originColumns = originColumns
        self.destinationColumns = destinationColumns
    }

    /// The columns of the origin table, and those of the destination.
    public init(_ originColumns: [any ColumnExpression], to destinationColumns: [any ColumnExpression]? = nil) {
        self.init(originColumns.map(\.name), to: destinationColumns?.map(\.name))
    }

    /// The (origin, destination) column pairs from `from` to `to`: given,
    /// or the one foreign key of the schema that fits.
    static func mapping(_ db: Database, from origin: String, to destination: String,
                        foreignKey: ForeignKey?) throws -> [(origin: String, destination: String)] {
        let given = foreignKey?.originColumns
        if let given, let destinationColumns = foreignKey?.destinationColumns {
            guard given.count == destinationColumns.count else {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the foreign key from \(origin) to \(destination) has \(given.count) origin column(s) and \(destinationColumns.count) destination column(s)")
            }
            return Array(zip(given, destinationColumns))
        }
        if try db.tableExists(origin) {
            let candidates = try db.foreignKeys(on: origin).filter { key in
                guard key.destinationTable.lowercased() == destination.lowercased() else { return false }
                if let given { return Set(given.map { $0.lowercased() }) == Set(key.mapping.map { $0.origin.lowercased() }) }
                return true
            }
            if candidates.count > 1 {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "ambiguous foreign key from \(origin) to \(destination): give an explicit ForeignKey in the association")
            }
            if let key = candidates.first {
                return key.mapping.map { ($0.origin, $0.destination) }
            }
        }
        if let given {
            let destinationKey = try db.primaryKey(destination).columns
            if given.count == destinationKey.count { return Array(zip(given, destinationKey)) }
        }
        throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "could not infer the foreign key from \(origin) to \(destination): declare it in the schema, or give an explicit ForeignKey in the association")
    }
}
