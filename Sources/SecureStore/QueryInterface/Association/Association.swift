/// A link from one record type to another, through a foreign key:
/// ``BelongsToAssociation``, ``HasOneAssociation``, ``HasManyAssociation``
/// and the associations through others.
///
/// An association is also a request of its destination: it can be
/// filtered, ordered, aliased, and have associations of its own. An
/// extension of `DerivableRequest` applies to both:
///
/// ```swift
/// extension DerivableRequest<Book> {
///     func written(after year: Int) -> Self { filter(Column("year") > year) }
/// }
/// let recent = try Book.all().written(after: 2000).fetchAll(db)
/// let authors = try Author.including(all: Author.books.written(after: 2000)).fetchAll(db)
/// ```
public protocol Association: DerivableRequest, Sendable {
    /// The record type the association starts from.
    associatedtype OriginRowDecoder

    /// The untyped association.
    var _sqlAssociation: SQLAssociation { get set }

    /// The association under another key: the scope of its rows, the
    /// property its records decode into.
    func forKey(_ key: String) -> Self
}

extension Association {
    /// The association under the name of a coding key.
    public func forKey(_ codingKey: some CodingKey) -> Self { forKey(codingKey.stringValue) }

    /// The destination table.
    public var databaseTableName: String { _sqlAssociation.destination.relation.source.tableName }

    /// Changes the destination's relation.
    func mapDestination(_ update: (SQLRelation) -> SQLRelation) -> Self {
        var association = self
        association._sqlAssociation.destination.relation = update(association._sqlAssociation.destination.relation)
        return association
    }

    /// Includes (prefetches) a to-many association of the destination.
    public func _including(all association: SQLAssociation) -> Self {
        mapDestination { $0.appendingChild(for: association, kind: .all) }
    }

    /// Includes an optional association of the destination (LEFT JOIN).
    public func _including(optional association: SQLAssociation) -> Self {
        mapDestination { $0.appendingChild(for: association, kind: .oneOptional) }
    }

    /// Includes a required association of the destination (JOIN).
    public func _including(required association: SQLAssociation) -> Self {
        mapDestination { $0.appendingChild(for: association, kind: .oneRequired) }
    }

    /// Joins an optional association of the destination, without selecting it.
    public func _joining(optional association: SQLAssociation) -> Self {
        mapDestination { $0.appendingChild(for: association.selectingNothing(), kind: .oneOptional) }
    }

    /// Joins a required association of the destination, without selecting it.
    public func _joining(required association: SQLAssociation) -> Self {
        mapDestination { $0.appendingChild(for: association.selectingNothing(), kind: .oneRequired) }
    }

    /// The association, with its destination under `alias`.
    public func _aliased(_ alias: TableAliasBase) -> Self { mapDestination { $0.aliased(alias) } }

    /// Selects, once connected.
    public func selectWhenConnected(_ selection: @escaping @Sendable (Database) throws -> [any SQLSelectable]) -> Self {
        mapDestination { $0.selectWhenConnected { db in try selection(db).map(\.sqlSelection) } }
    }

    /// Adds to the selection, once connected.
    public func annotatedWhenConnected(with selection: @escaping @Sendable (Database) throws -> [any SQLSelectable]) -> Self {
        mapDestination { $0.annotatedWhenConnected { db in try selection(db).map(\.sqlSelection) } }
    }

    /// Filters, once connected.
    public func filterWhenConnected(_ predicate: @escaping @Sendable (Database) throws -> any SQLExpressible) -> Self {
        mapDestination { $0.filterWhenConnected { db in try predicate(db).sqlExpression } }
    }

    /// Orders, once connected.
    public func orderWhenConnected(_ orderings: @escaping @Sendable (Database) throws -> [any SQLOrderingTerm]) -> Self {
        mapDestination { $0.orderWhenConnected { db in try orderings(db).map(\.sqlOrdering) } }
    }

    /// The reverse order.
    public func reversed() -> Self { mapDestination { $0.reversed() } }

    /// No order.
    public func unordered() -> Self { mapDestination { $0.unordered() } }

    /// The order, completed by the primary key.
    public func withStableOrder() -> Self { mapDestination { $0.withStableOrder() } }

    /// Groups, once connected.
    public func groupWhenConnected(_ expressions: @escaping @Sendable (Database) throws -> [any SQLExpressible]) -> Self {
        mapDestination { $0.groupWhenConnected { db in try expressions(db).map(\.sqlExpression) } }
    }

    /// Filters groups, once connected.
    public func havingWhenConnected(_ predicate: @escaping @Sendable (Database) throws -> any SQLExpressible) -> Self {
        mapDestination { $0.havingWhenConnected { db in try predicate(db).sqlExpression } }
    }

    /// DISTINCT rows (for prefetched associations).
    public func distinct() -> Self { mapDestination { $0.with { $0.isDistinct = true } } }

    /// Embeds a common table expression.
    public func with<T>(_ cte: CommonTableExpression<T>) -> Self {
        mapDestination { $0.with { $0.ctes[cte.tableName] = cte.cte } }
    }
}

extension SQLAssociation {
    /// The association with nothing selected from its destination.
    func selectingNothing() -> SQLAssociation {
        with { $0.destination.relation = $0.destination.relation.select([]) }
    }
}

/// An association to one record: belongsTo, hasOne, hasOne through.
public protocol AssociationToOne: Association {}

extension AssociationToOne {
    /// The association under another key.
    public func forKey(_ key: String) -> Self {
        var association = self
        association._sqlAssociation = association._sqlAssociation.forDestinationKey(.fixedSingular(key))
        return association
    }
}

/// An association to many records: hasMany, hasMany through.
public protocol AssociationToMany: Association {}

extension AssociationToMany {
    /// The association under another key.
    public func forKey(_ key: String) -> Self {
        var association = self
        association._sqlAssociation = association._sqlAssociation.forDestinationKey(.fixedPlural(key))
        return association
    }
}

/// The association from a record to the one its foreign key points to.
///
/// ```swift
/// struct Book: TableRecord {
///     static let author = belongsTo(Author.self)   // book.authorId → author.id
/// }
/// let books = try Book.including(required: Book.author).fetchAll(db)
/// ```
public struct BelongsToAssociation<Origin, Destination>: AssociationToOne {
    /// The record type the association starts from.
    public typealias OriginRowDecoder = Origin
    /// The associated record type.
    public typealias RowDecoder = Destination

    /// The untyped association.
    public var _sqlAssociation: SQLAssociation

    init(to destination: SQLRelation, key: String?, using foreignKey: ForeignKey?) {
        _sqlAssociation = .foreignKey(to: destination, key: key, using: foreignKey, originHoldsKey: true, cardinality: .toOne)
    }
}

/// The association from a record to the one whose foreign key points to it.
///
/// ```swift
/// struct Country: TableRecord {
///     static let profile = hasOne(CountryProfile.self)   // countryProfile.countryCode → country.code
/// }
/// ```
public struct HasOneAssociation<Origin, Destination>: AssociationToOne {
    /// The record type the association starts from.
    public typealias OriginRowDecoder = Origin
    /// The associated record type.
    public typealias RowDecoder = Destination

    /// The untyped association.
    public var _sqlAssociation: SQLAssociation

    init(to destination: SQLRelation, key: String?, using foreignKey: ForeignKey?) {
        _sqlAssociation = .foreignKey(to: destination, key: key, using: foreignKey, originHoldsKey: false, cardinality: .toOne)
    }
}

/// The association from a record to the records whose foreign key points to
/// it.
///
/// ```swift
/// struct Author: TableRecord {
///     static let books = hasMany(Book.self)   // book.authorId → author.id
/// }
/// let authors = try Author.including(all: Author.books).fetchAll(db)   // two queries
/// ```
public struct HasManyAssociation<Origin, Destination>: AssociationToMany {
    /// The record type the association starts from.
    public typealias OriginRowDecoder = Origin
    /// The associated record type.
    public typealias RowDecoder = Destination

    /// The untyped association.
    public var _sqlAssociation: SQLAssociation

    init(to destination: SQLRelation, key: String?, using foreignKey: ForeignKey?) {
        _sqlAssociation = .foreignKey(to: destination, key: key, using: foreignKey, originHoldsKey: false, cardinality: .toMany)
    }
}

/// An association to many records, through another association.
///
/// ```swift
/// struct Country: TableRecord {
///     static let passports = hasMany(Passport.self)
///     static let citizens = hasMany(Citizen.self, through: passports, using: Passport.citizen)
/// }
/// ```
public struct HasManyThroughAssociation<Origin, Destination>: AssociationToMany {
    /// The record type the association starts from.
    public typealias OriginRowDecoder = Origin
    /// The associated record type.
    public typealias RowDecoder = Destination

    /// The untyped association.
    public var _sqlAssociation: SQLAssociation

    init<Pivot: Association, Target: Association>(through pivot: Pivot, using target: Target)
    where Pivot.OriginRowDecoder == Origin, Pivot.RowDecoder == Target.OriginRowDecoder, Target.RowDecoder == Destination {
        _sqlAssociation = target._sqlAssociation.through(pivot._sqlAssociation)
    }
}

/// An association to one record, through another to-one association.
///
/// ```swift
/// struct Book: TableRecord {
///     static let library = belongsTo(Library.self)
///     static let returnAddress = hasOne(Address.self, through: library, using: Library.address)
/// }
/// ```
public struct HasOneThroughAssociation<Origin, Destination>: AssociationToOne {
    /// The record type the association starts from.
    public typealias OriginRowDecoder = Origin
    /// The associated record type.
    public typealias RowDecoder = Destination

    /// The untyped association.
    public var _sqlAssociation: SQLAssociation

    init<Pivot: AssociationToOne, Target: AssociationToOne>(through pivot: Pivot, using target: Target)
    where Pivot.OriginRowDecoder == Origin, Pivot.RowDecoder == Target.OriginRowDecoder, Target.RowDecoder == Destination {
        _sqlAssociation = target._sqlAssociation.through(pivot._sqlAssociation)
    }
}
