// The associations of record types, and the static forms of including
// and joining them.

extension TableRecord {
    /// The record whose primary key this record's foreign key holds.
    ///
    /// ```swift
    /// extension Book { static let author = belongsTo(Author.self) }
    /// ```
    public static func belongsTo<Destination: TableRecord>(
        _ destination: Destination.Type, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> BelongsToAssociation<Self, Destination> {
        BelongsToAssociation(to: Destination.relationForAll, key: key, using: foreignKey)
    }

    /// The records whose foreign key holds this record's primary key.
    ///
    /// ```swift
    /// extension Author { static let books = hasMany(Book.self) }
    /// ```
    public static func hasMany<Destination: TableRecord>(
        _ destination: Destination.Type, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> HasManyAssociation<Self, Destination> {
        HasManyAssociation(to: Destination.relationForAll, key: key, using: foreignKey)
    }

    /// The record whose foreign key holds this record's primary key.
    public static func hasOne<Destination: TableRecord>(
        _ destination: Destination.Type, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> HasOneAssociation<Self, Destination> {
        HasOneAssociation(to: Destination.relationForAll, key: key, using: foreignKey)
    }

    /// `belongsTo` a table without a record type.
    public static func belongsTo<Destination>(
        _ destination: Table<Destination>, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> BelongsToAssociation<Self, Destination> {
        BelongsToAssociation(to: destination.relationForAll, key: key, using: foreignKey)
    }

    /// `hasMany` a table without a record type.
    public static func hasMany<Destination>(
        _ destination: Table<Destination>, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> HasManyAssociation<Self, Destination> {
        HasManyAssociation(to: destination.relationForAll, key: key, using: foreignKey)
    }

    /// `hasOne` a table without a record type.
    public static func hasOne<Destination>(
        _ destination: Table<Destination>, key: String? = nil, using foreignKey: ForeignKey? = nil
    ) -> HasOneAssociation<Self, Destination> {
        HasOneAssociation(to: destination.relationForAll, key: key, using: foreignKey)
    }

    /// The records reached through another association.
    ///
    /// ```swift
    /// extension Country {
    ///     static let passports = hasMany(Passport.self)
    ///     static let citizens = hasMany(Citizen.self, through: passports, using: Passport.citizen)
    /// }
    /// ```
    public static func hasMany<Pivot: Association, Target: Association>(
        _ destination: Target.RowDecoder.Type, through pivot: Pivot, using target: Target, key: String? = nil
    ) -> HasManyThroughAssociation<Self, Target.RowDecoder>
    where Pivot.OriginRowDecoder == Self, Pivot.RowDecoder == Target.OriginRowDecoder {
        let association = HasManyThroughAssociation(through: pivot, using: target)
        return key.map { association.forKey($0) } ?? association
    }

    /// The record reached through another to-one association.
    public static func hasOne<Pivot: AssociationToOne, Target: AssociationToOne>(
        _ destination: Target.RowDecoder.Type, through pivot: Pivot, using target: Target, key: String? = nil
    ) -> HasOneThroughAssociation<Self, Target.RowDecoder>
    where Pivot.OriginRowDecoder == Self, Pivot.RowDecoder == Target.OriginRowDecoder {
        let association = HasOneThroughAssociation(through: pivot, using: target)
        return key.map { association.forKey($0) } ?? association
    }

    /// All records, each with its associated records (one more query).
    public static func including<A: AssociationToMany>(all association: A) -> QueryInterfaceRequest<Self>
    where A.OriginRowDecoder == Self { all().including(all: association) }

    /// All records, each with its associated record or nil (LEFT JOIN).
    public static func including<A: Association>(optional association: A) -> QueryInterfaceRequest<Self>
    where A.OriginRowDecoder == Self { all().including(optional: association) }

    /// The records that have an associated record, with it (JOIN).
    public static func including<A: Association>(required association: A) -> QueryInterfaceRequest<Self>
    where A.OriginRowDecoder == Self { all().including(required: association) }

    /// All records, joined to the association (LEFT JOIN), selecting nothing from it.
    public static func joining<A: Association>(optional association: A) -> QueryInterfaceRequest<Self>
    where A.OriginRowDecoder == Self { all().joining(optional: association) }

    /// The records that have an associated record (JOIN), selecting nothing from it.
    public static func joining<A: Association>(required association: A) -> QueryInterfaceRequest<Self>
    where A.OriginRowDecoder == Self { all().joining(required: association) }

    /// All records, with the columns of an optional association added.
    public static func annotated<A: Association>(withOptional association: A) -> QueryInterfaceRequest<Self>
    where A.OriginRowDecoder == Self { all().annotated(withOptional: association) }

    /// The records with the columns of a required association added.
    public static func annotated<A: Association>(withRequired association: A) -> QueryInterfaceRequest<Self>
    where A.OriginRowDecoder == Self { all().annotated(withRequired: association) }

    /// All records, annotated with association aggregates.
    public static func annotated(with aggregates: AssociationAggregate<Self>...) -> QueryInterfaceRequest<Self> {
        all().annotated(with: aggregates)
    }

    /// All records, annotated with association aggregates.
    public static func annotated(with aggregates: [AssociationAggregate<Self>]) -> QueryInterfaceRequest<Self> {
        all().annotated(with: aggregates)
    }

    /// The records whose association aggregate satisfies a condition.
    public static func having(_ predicate: AssociationAggregate<Self>) -> QueryInterfaceRequest<Self> {
        all().having(predicate)
    }
}

extension TableRecord where Self: EncodableRecord {
    /// The records associated with this one: `author.request(for: Author.books)`.
    public func request<A: Association>(for association: A) -> QueryInterfaceRequest<A.RowDecoder> where A.OriginRowDecoder == Self {
        let container = Result { try PersistenceContainer(self) }
        var sqlAssociation = association._sqlAssociation
        switch sqlAssociation.pivot.condition {
        case .expression:
            let relation = sqlAssociation.destinationRelation().with {
                $0.buildError = DatabaseError(resultCode: .SQLITE_MISUSE,
                                              message: "request(for:) needs an association through a foreign key")
            }
            return QueryInterfaceRequest(relation: relation)
        case .foreignKey(let foreignKey):
            sqlAssociation.pivot.relation = sqlAssociation.pivot.relation.filterWhenConnected { db in
                let mapping = try foreignKey.joinMapping(db, from: Self.databaseTableName)
                let values = try container.get()
                // A NULL foreign key matches nothing.
                let pairs = mapping.map { ($0.right, values.databaseValue($0.left) ?? .null) }
                if pairs.contains(where: { $0.1.isNull }) { return false.sqlExpression }
                return pairs.map { Column($0.0) == $0.1 }.joined(operator: .and)
            }
            return QueryInterfaceRequest(relation: sqlAssociation.destinationRelation())
        }
    }
}
