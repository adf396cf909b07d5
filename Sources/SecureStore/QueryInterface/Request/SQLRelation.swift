internal import OrderedCollections

/// A value resolved once a database connection is at hand: selections and
/// filters that depend on the schema (primary keys, columns).
struct DatabasePromise<T>: Sendable {
    let resolve: @Sendable (Database) throws -> T

    init(_ resolve: @escaping @Sendable (Database) throws -> T) { self.resolve = resolve }

    init(value: T) where T: Sendable { resolve = { _ in value } }

    func map<U>(_ transform: @escaping @Sendable (T) throws -> U) -> DatabasePromise<U> {
        let resolve = self.resolve
        return DatabasePromise<U> { db in try transform(resolve(db)) }
    }
}

/// Copy-and-change for the query interface's value types.
protocol Refinable {}

extension Refinable {
    func with(_ update: (inout Self) throws -> Void) rethrows -> Self {
        var copy = self
        try update(&copy)
        return copy
    }
}

/// What a request is before it becomes SQL: a table (or common table
/// expression), its selection, filter, grouping, ordering and limit, and a
/// tree of children — the associations it joins or prefetches, each under
/// its association key.
///
/// The SQL is generated from the whole tree at once
/// (``SQLQueryGenerator``), which gives table aliases stable names and
/// joined rows their scopes.
struct SQLRelation: Sendable, Refinable {
    /// An association of the relation.
    struct Child: Sendable, Refinable {
        enum Kind: Sendable {
            /// `LEFT JOIN`.
            case oneOptional
            /// `JOIN`.
            case oneRequired
            /// Prefetched with one more query.
            case all
            /// A step on the way to a prefetched association.
            case bridge
        }

        var kind: Kind
        var condition: SQLAssociationCondition
        var relation: SQLRelation

        /// A joined to-one child can change the number of parent rows.
        var impactsParentCount: Bool { kind == .oneOptional || kind == .oneRequired }

        func association(forKey key: String) -> SQLAssociation {
            SQLAssociation(key: .fixed(key), condition: condition, relation: relation,
                           cardinality: kind == .oneOptional || kind == .oneRequired ? .toOne : .toMany)
        }
    }

    var source: SQLSource
    var selectionPromise: DatabasePromise<[SQLSelection]>
    var filterPromise: DatabasePromise<SQLExpression>?
    var ordering = Ordering()
    var ctes: OrderedDictionary<String, SQLCTE> = [:]
    var children: OrderedDictionary<String, Child> = [:]
    var isDistinct = false
    var groupPromise: DatabasePromise<[SQLExpression]>?
    var havingPromise: DatabasePromise<SQLExpression>?
    var limit: SQLLimit?
    /// A mistake in how the request was built (an ambiguous association
    /// key, a joined association with a LIMIT), thrown when the request
    /// runs: GRDB stops the program there, SecureStore throws.
    var buildError: DatabaseError?

    /// The first build error of the relation or of its children.
    var firstBuildError: DatabaseError? {
        buildError ?? children.values.lazy.compactMap(\.relation.firstBuildError).first
    }

    /// All rows of a table, with a selection resolved when the SQL is made.
    static func all(fromTable tableName: String,
                    selection: @escaping @Sendable (Database) throws -> [SQLSelection] = { _ in [.allColumns] }) -> SQLRelation {
        SQLRelation(source: SQLSource(tableName: tableName, alias: nil), selectionPromise: DatabasePromise(selection))
    }
}

// MARK: - Building

extension SQLRelation {
    func selectWhenConnected(_ selection: @escaping @Sendable (Database) throws -> [SQLSelection]) -> SQLRelation {
        with { $0.selectionPromise = DatabasePromise(selection) }
    }

    func select(_ selection: [SQLSelection]) -> SQLRelation {
        selectWhenConnected { _ in selection }
    }

    /// The selection, without DISTINCT, and with nothing selected from the
    /// joined associations: for counts, subqueries of keys.
    func selectOnly(_ selection: [SQLSelection]) -> SQLRelation {
        select(selection).with {
            $0.isDistinct = false
            $0.children = children.mapValues { child in child.with { $0.relation = $0.relation.selectOnly([]) } }
        }
    }

    func annotatedWhenConnected(with selection: @escaping @Sendable (Database) throws -> [SQLSelection]) -> SQLRelation {
        let old = selectionPromise
        return with { $0.selectionPromise = DatabasePromise { db in try old.resolve(db) + selection(db) } }
    }

    func filterWhenConnected(_ predicate: @escaping @Sendable (Database) throws -> SQLExpression) -> SQLRelation {
        guard let old = filterPromise else { return with { $0.filterPromise = DatabasePromise(predicate) } }
        return with { $0.filterPromise = DatabasePromise { db in try old.resolve(db) && predicate(db) } }
    }

    func filter(_ predicate: SQLExpression) -> SQLRelation { filterWhenConnected { _ in predicate } }

    func orderWhenConnected(_ orderings: @escaping @Sendable (Database) throws -> [SQLOrdering]) -> SQLRelation {
        with { $0.ordering = Ordering(orderings) }
    }

    func reversed() -> SQLRelation { with { $0.ordering = $0.ordering.reversed } }

    /// No ORDER BY, here and in the joined associations.
    func unordered() -> SQLRelation {
        with {
            $0.ordering = Ordering()
            $0.children = children.mapValues { child in child.with { $0.relation = $0.relation.unordered() } }
        }
    }

    /// The ordering, completed by the primary key (or every column of a
    /// view) so that rows always come in the same order.
    func withStableOrder() -> SQLRelation {
        let relation = self
        let tableName = source.tableName
        return with {
            $0.ordering = $0.ordering.appending(Ordering { db in
                // Tables, and views whose primary key a schema source gives.
                if let primaryKey = try? db.primaryKey(tableName) {
                    return primaryKey.columns.map { SQLExpression.column($0).sqlOrdering }
                }
                let count = try SQLQueryGenerator(relation: relation).columnCount(db)
                return (1...max(1, count)).map { SQL(sql: String($0)).sqlOrdering }
            })
            $0.children = children.mapValues { child in child.with { $0.relation = $0.relation.withStableOrder() } }
        }
    }

    func groupWhenConnected(_ expressions: @escaping @Sendable (Database) throws -> [SQLExpression]) -> SQLRelation {
        with { $0.groupPromise = DatabasePromise(expressions) }
    }

    func havingWhenConnected(_ predicate: @escaping @Sendable (Database) throws -> SQLExpression) -> SQLRelation {
        guard let old = havingPromise else { return with { $0.havingPromise = DatabasePromise(predicate) } }
        return with { $0.havingPromise = DatabasePromise { db in try old.resolve(db) && predicate(db) } }
    }

    func aliased(_ alias: TableAliasBase) -> SQLRelation {
        with { $0.source = $0.source.aliased(alias) }
    }
}

// MARK: - Children

extension SQLRelation {
    /// The to-many associations to prefetch, at any depth behind joined
    /// to-one associations, with the path that leads to them.
    var prefetchedAssociations: [SQLAssociation] {
        children.flatMap { key, child -> [SQLAssociation] in
            switch child.kind {
            case .all:
                return [child.association(forKey: key)]
            case .oneOptional, .oneRequired, .bridge:
                return child.relation.prefetchedAssociations.map { association in
                    let pivotKey = association.pivot.keyName
                    let bridge = child.with { $0.relation = $0.relation.removingChild(forKey: pivotKey) }
                    return association.through(bridge.association(forKey: key))
                }
            }
        }
    }

    /// The common table expressions of the relation and of its joined
    /// associations.
    var allCTEs: OrderedDictionary<String, SQLCTE> {
        children.values.reduce(into: ctes) { ctes, child in
            guard child.kind == .oneOptional || child.kind == .oneRequired else { return }
            ctes.merge(child.relation.allCTEs) { _, new in new }
        }
    }

    /// The relation with an association added as a child (and, for an
    /// association through others, the steps that lead to it).
    func appendingChild(for association: SQLAssociation, kind: Child.Kind) -> SQLRelation {
        let isSingular: Bool
        switch kind {
        case .oneOptional, .oneRequired: isSingular = true
        case .all: isSingular = false
        case .bridge: isSingular = association.destination.cardinality == .toOne
        }
        let key = association.destination.key.name(singular: isSingular)
        let child = Child(kind: kind, condition: association.destination.condition, relation: association.destination.relation)
        let initialSteps = association.steps.dropLast()
        if initialSteps.isEmpty { return appendingChild(child, forKey: key) }

        // Intermediate steps are joined (or bridged), not selected.
        var reduced = SQLAssociation(steps: Array(initialSteps))
        reduced.destination.relation = reduced.destination.relation.select([]).appendingChild(child, forKey: key)
        return appendingChild(for: reduced, kind: kind == .all ? .bridge : kind)
    }

    private func appendingChild(_ child: Child, forKey key: String) -> SQLRelation {
        var relation = self
        if let problem = child.joinProblem {
            relation.buildError = relation.buildError ?? DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "the association \"\(key)\" \(problem) and cannot be joined (GRDB does not implement it either)")
        }
        if let existing = relation.children.removeValue(forKey: key) {
            guard let merged = existing.merged(with: child) else {
                relation.buildError = relation.buildError ?? DatabaseError(
                    resultCode: .SQLITE_MISUSE,
                    message: "the association key \"\(key)\" is ambiguous: use forKey(_:) to tell the associations apart")
                return relation
            }
            relation.children[key] = merged
        } else {
            relation.children[key] = child
        }
        return relation
    }

    func removingChild(forKey key: String) -> SQLRelation {
        with { $0.children.removeValue(forKey: key) }
    }

    func removingPrefetchedAssociations() -> SQLRelation {
        with {
            $0.children = $0.children.compactMapValues { child in
                switch child.kind {
                case .all, .bridge: return nil
                case .oneOptional, .oneRequired:
                    return child.with { $0.relation = $0.relation.removingPrefetchedAssociations() }
                }
            }
        }
    }
}

extension SQLRelation.Child {
    /// Why a joined association cannot be joined: DISTINCT, GROUP BY or
    /// LIMIT.
    var joinProblem: String? {
        guard kind != .all else { return nil }
        if relation.isDistinct { return "selects DISTINCT rows" }
        if relation.groupPromise != nil || relation.havingPromise != nil { return "has a GROUP BY clause" }
        if relation.limit != nil { return "has a LIMIT clause" }
        return nil
    }
}

// MARK: - Counting

extension SQLRelation {
    /// `SELECT COUNT(*)`, written the cheapest way that counts the same rows
    /// as the request.
    func fetchCount(_ db: Database) throws -> Int {
        if groupPromise != nil || limit != nil || !ctes.isEmpty || children.values.contains(where: \.impactsParentCount) {
            return try fetchTrivialCount(db)
        }
        let selection = try selectionPromise.resolve(db)
        if selection.count == 1 {
            guard let count = selection[0].count(distinct: isDistinct) else { return try fetchTrivialCount(db) }
            var countRelation = unordered()
            countRelation.isDistinct = false
            switch count {
            case .all: countRelation = countRelation.select([.expression(.countAll)])
            case .distinct(let expression): countRelation = countRelation.select([.expression(.countDistinct(expression))])
            }
            return try QueryInterfaceRequest<Int>(relation: countRelation).fetchOne(db) ?? 0
        }
        if isDistinct || selection.contains(where: \.requiresTrivialCount) { return try fetchTrivialCount(db) }
        return try QueryInterfaceRequest<Int>(relation: unordered().select([.expression(.countAll)])).fetchOne(db) ?? 0
    }

    private func fetchTrivialCount(_ db: Database) throws -> Int {
        let request: SQLRequest<Int> = "SELECT COUNT(*) FROM (\(SQLSubquery.relation(unordered())))"
        return try request.fetchOne(db) ?? 0
    }
}

/// `LIMIT n OFFSET m`.
struct SQLLimit: Sendable {
    let limit: Int
    let offset: Int?

    var sql: String { offset.map { "\(limit) OFFSET \($0)" } ?? "\(limit)" }
}

/// The table of a relation, and its alias if the user gave one.
struct SQLSource: Sendable {
    var tableName: String
    var alias: TableAliasBase?

    func aliased(_ newAlias: TableAliasBase) -> SQLSource {
        if let alias {
            newAlias.becomeProxy(of: alias)
            return self
        }
        newAlias.setTableName(tableName)
        return SQLSource(tableName: tableName, alias: newAlias)
    }

    func merged(with other: SQLSource) -> SQLSource? {
        guard tableName == other.tableName else { return nil }
        switch (alias, other.alias) {
        case (nil, nil): return self
        case let (alias?, nil), let (nil, alias?): return SQLSource(tableName: tableName, alias: alias)
        case let (alias?, otherAlias?):
            return alias.merged(with: otherAlias).map { SQLSource(tableName: tableName, alias: $0) }
        }
    }
}

// MARK: - Ordering

extension SQLRelation {
    /// An ORDER BY clause that can be reversed, and appended to (to make
    /// an order stable), before it is resolved.
    struct Ordering: Sendable {
        private indirect enum Element: Sendable {
            case terms(DatabasePromise<[SQLOrdering]>)
            case ordering(Ordering)

            func resolve(_ db: Database, reversed: Bool) throws -> [SQLOrdering] {
                switch self {
                case .terms(let terms):
                    let orderings = try terms.resolve(db)
                    return reversed ? try orderings.map { try $0.reversed } : orderings
                case .ordering(let ordering):
                    return try ordering.resolve(db, reversed: reversed != ordering.isReversed)
                }
            }

            func qualified(with alias: TableAliasBase) -> Element {
                switch self {
                case .terms(let terms): return .terms(terms.map { $0.map { $0.qualified(with: alias) } })
                case .ordering(let ordering): return .ordering(ordering.qualified(with: alias))
                }
            }
        }

        private var elements: [Element] = []
        private(set) var isReversed = false

        init() {}

        init(_ orderings: @escaping @Sendable (Database) throws -> [SQLOrdering]) {
            elements = [.terms(DatabasePromise(orderings))]
        }

        var isEmpty: Bool { elements.isEmpty }

        var reversed: Ordering {
            var ordering = self
            ordering.isReversed.toggle()
            return ordering
        }

        func appending(_ other: Ordering) -> Ordering {
            var ordering = self
            ordering.elements.append(.ordering(other))
            return ordering
        }

        func qualified(with alias: TableAliasBase) -> Ordering {
            var ordering = self
            ordering.elements = elements.map { $0.qualified(with: alias) }
            return ordering
        }

        func resolve(_ db: Database) throws -> [SQLOrdering] {
            try resolve(db, reversed: isReversed)
        }

        private func resolve(_ db: Database, reversed: Bool) throws -> [SQLOrdering] {
            try elements.flatMap { try $0.resolve(db, reversed: reversed) }
        }
    }
}

// MARK: - Merging

// A request and one of its associations may name the same association
// twice (`including(required: a).including(optional: a.filter(...))`):
// both merge into one child when they are compatible.

extension SQLRelation {
    func merged(with other: SQLRelation) -> SQLRelation? {
        guard let mergedSource = source.merged(with: other.source) else { return nil }
        var mergedChildren: OrderedDictionary<String, Child> = [:]
        for (key, child) in children {
            if let otherChild = other.children[key] {
                guard let merged = child.merged(with: otherChild) else { return nil }
                mergedChildren[key] = merged
            } else {
                mergedChildren[key] = child
            }
        }
        for (key, child) in other.children where mergedChildren[key] == nil { mergedChildren[key] = child }

        let (lhs, rhs) = (self, other)
        return SQLRelation(
            source: mergedSource,
            selectionPromise: DatabasePromise { db in
                let otherSelection = try rhs.selectionPromise.resolve(db)
                return otherSelection.isEmpty ? try lhs.selectionPromise.resolve(db) : otherSelection
            },
            filterPromise: Self.conjunction(filterPromise, other.filterPromise),
            ordering: other.ordering.isEmpty ? ordering : other.ordering,
            ctes: ctes.merging(other.ctes) { _, new in new },
            children: mergedChildren,
            isDistinct: isDistinct || other.isDistinct,
            groupPromise: other.groupPromise ?? groupPromise,
            havingPromise: Self.conjunction(havingPromise, other.havingPromise),
            limit: other.limit ?? limit)
    }

    private static func conjunction(_ lhs: DatabasePromise<SQLExpression>?,
                                    _ rhs: DatabasePromise<SQLExpression>?) -> DatabasePromise<SQLExpression>? {
        guard let lhs else { return rhs }
        guard let rhs else { return lhs }
        return DatabasePromise { db in try lhs.resolve(db) && rhs.resolve(db) }
    }
}

extension SQLRelation.Child {
    func merged(with other: SQLRelation.Child) -> SQLRelation.Child? {
        guard let condition = condition.merged(with: other.condition),
              let relation = relation.merged(with: other.relation),
              let kind = kind.merged(with: other.kind) else { return nil }
        return SQLRelation.Child(kind: kind, condition: condition, relation: relation)
    }
}

extension SQLRelation.Child.Kind {
    /// A required join wins over an optional one; a join and a prefetch
    /// do not merge.
    func merged(with other: SQLRelation.Child.Kind) -> SQLRelation.Child.Kind? {
        switch (self, other) {
        case (.oneRequired, .oneRequired), (.oneRequired, .oneOptional), (.oneOptional, .oneRequired): return .oneRequired
        case (.oneOptional, .oneOptional): return .oneOptional
        case (.all, .all): return .all
        case (.bridge, .bridge): return .bridge
        default: return nil
        }
    }
}
