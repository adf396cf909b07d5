/// Fetches the to-many associations of `including(all:)`: one query per
/// association, after the parent rows, whatever their number.
///
/// For a foreign key of one column the children are filtered with the
/// parents' keys: `WHERE "authorId" IN (1, 2, 3)`, the same SQL as GRDB.
/// SQLite 3.15.2 takes at most 999 arguments per statement, so beyond 999
/// keys they are written in the SQL text as literals (the statement text
/// that SQLite shows is the same as with arguments). For a key of several
/// columns, the parent request itself becomes a common table expression:
/// `WITH grdb_base AS (SELECT a, b FROM parent) ... WHERE (a, b) IN grdb_base`.
///
/// Each child row carries its parent key in `grdb_<column>` columns, and
/// the rows are grouped into the parents' prefetched rows by that key.
enum Prefetcher {
    /// SQLite's SQLITE_MAX_VARIABLE_NUMBER in 3.15.2.
    static let maximumArgumentCount = 999

    static func prefetch(_ db: Database, associations: [SQLAssociation], from origin: SQLRelation, into rows: [Row]) throws {
        guard !rows.isEmpty else { return }
        for association in associations {
            guard case .foreignKey(let foreignKey) = association.pivot.condition else {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "cannot prefetch an association without a foreign key")
            }
            let mapping = try foreignKey.joinMapping(db, from: origin.source.tableName)
            let pivotColumns = mapping.map(\.right)
            let leftColumns = mapping.map(\.left)
            // The children, each with its parent key in grdb_ columns; a
            // dump prints them without those columns.
            let makeRequest: (_ withPivot: Bool) -> QueryInterfaceRequest<Row>
            if mapping.count > 1 {
                var base = origin.removingPrefetchedAssociations()
                if base.limit == nil { base = base.unordered() }
                base = base.selectOnly(leftColumns.map { SQLExpression.column($0).sqlSelection })
                let cte = CommonTableExpression<Row>(named: "grdb_base", request: SQLSubquery.relation(base))
                let pivot = SQLExpression.rowValue(pivotColumns.map(SQLExpression.column)) ?? .null
                makeRequest = { childRequest(association, filter: cte.contains(pivot), pivotColumns: $0 ? pivotColumns : []).with(cte) }
            } else {
                let filter = try keyFilter(db, column: pivotColumns[0], leftColumn: leftColumns[0], rows: rows)
                makeRequest = { childRequest(association, filter: filter, pivotColumns: $0 ? pivotColumns : []) }
            }
            if let observer = db.prefetchObserver {
                // A dump prints the association's request and its own
                // prefetches; this fetch runs without the observer.
                db.prefetchObserver = nil
                defer { db.prefetchObserver = observer }
                try observer(makeRequest(false), association.keyPath)
                try fetch(db, makeRequest(true), pivotColumns: pivotColumns, leftColumns: leftColumns, into: rows, forKeyPath: association.keyPath)
            } else {
                try fetch(db, makeRequest(true), pivotColumns: pivotColumns, leftColumns: leftColumns, into: rows, forKeyPath: association.keyPath)
            }
        }
    }

    /// Fetches the children and gives each parent its own, in fetch order.
    ///
    /// Plain rows (no scope of a joined association, no prefetch of their
    /// own) are kept side by side in one ``PrefetchedRowBuffer``; the others
    /// are rows of their own.
    private static func fetch(_ db: Database, _ request: QueryInterfaceRequest<Row>, pivotColumns: [String], leftColumns: [String],
                              into parents: [Row], forKeyPath keyPath: [String]) throws {
        let prepared = try request.makePreparedRequest(db, forSingleResult: false)
        let parentColumns = try indexes(of: leftColumns, in: parents[0])
        let pivotNames = pivotColumns.map { "grdb_" + $0 }
        if prepared.adapter == nil && prepared.supplementaryFetch == nil {
            let buffer = try PrefetchedRowBuffer(fetching: prepared.statement)
            let childColumns = try pivotNames.map { name in
                guard let index = buffer.names.firstIndex(where: { $0.isEqualIgnoringCase(name) }) else { throw missingColumn(name) }
                return index
            }
            let parentOfChild = parentPositions(parents: parents, parentColumns: parentColumns, childCount: buffer.rowCount,
                                                childColumns: childColumns) { buffer.values(at: $0)[$1] }
            let ranges = parentOfChild.sharedRanges(buffer.group(parentCount: parents.count, parentOfRow: parentOfChild.positions))
            for (parent, range) in zip(parents, ranges) {
                parent.prefetchedRowsStorage.setRows(.buffered(buffer, range), forKeyPath: keyPath)
            }
        } else {
            let children = try prepared.fetchAllRows(db)
            guard let first = children.first else {
                for parent in parents { parent.prefetchedRowsStorage.setRows(.rows([]), forKeyPath: keyPath) }
                return
            }
            let parentOfChild = try parentPositions(parents: parents, parentColumns: parentColumns, childCount: children.count,
                                                    childColumns: indexes(of: pivotNames, in: first)) { children[$0].databaseValue(atIndex: $1) }
            let (order, ranges) = PrefetchedRowBuffer.group(parentCount: parents.count, parentOfRow: parentOfChild.positions)
            for (parent, range) in zip(parents, parentOfChild.sharedRanges(ranges)) {
                parent.prefetchedRowsStorage.setRows(.rows(order[range].map { children[Int($0)] }), forKeyPath: keyPath)
            }
        }
    }

    /// The parent of each child, by key.
    private struct ParentPositions {
        /// The parent position of each child, -1 for none.
        var positions: [Int32]
        /// The parent that stands for each parent: itself, or the first
        /// parent with the same key. Nil when no two parents share a key.
        var owners: [Int]?

        /// `ranges` (the children of each owner), with each parent given
        /// the range of its owner.
        func sharedRanges(_ ranges: [Range<Int>]) -> [Range<Int>] {
            guard let owners else { return ranges }
            return owners.map { ranges[$0] }
        }
    }

    /// A parent key of one column is a value, of several columns an array
    /// of values.
    private static func parentPositions(
        parents: [Row], parentColumns: [Int], childCount: Int, childColumns: [Int],
        childValue: (_ child: Int, _ column: Int) -> DatabaseValue
    ) -> ParentPositions {
        if parentColumns.count == 1 {
            let (parentColumn, childColumn) = (parentColumns[0], childColumns[0])
            let keys = parents.map { $0.databaseValue(atIndex: parentColumn) }
            let integers = keys.compactMap(\.exactInt64)
            if integers.count == keys.count {
                // The common case, integer keys: in a table when they are
                // dense (ids), hashed as integers otherwise.
                if let index = DenseKeyIndex(keys: integers) {
                    return parentPositions(index, parentCount: parents.count, parentKey: { integers[$0] },
                                           childCount: childCount, childKey: { childValue($0, childColumn).exactInt64 })
                }
                return parentPositions(HashedKeyIndex<Int64>(), parentCount: parents.count, parentKey: { integers[$0] },
                                       childCount: childCount, childKey: { childValue($0, childColumn).exactInt64 })
            }
            return parentPositions(HashedKeyIndex<DatabaseValue>(), parentCount: parents.count, parentKey: { keys[$0] },
                                   childCount: childCount, childKey: { childValue($0, childColumn) })
        }
        return parentPositions(HashedKeyIndex<[DatabaseValue]>(), parentCount: parents.count,
                               parentKey: { parent in parentColumns.map { parents[parent].databaseValue(atIndex: $0) } },
                               childCount: childCount, childKey: { child in childColumns.map { childValue(child, $0) } })
    }

    private static func parentPositions<Index: ParentKeyIndex>(
        _ index: Index, parentCount: Int, parentKey: (Int) -> Index.Key, childCount: Int, childKey: (Int) -> Index.Key?
    ) -> ParentPositions {
        var index = index
        // Several parents may share a key: the first one stands for all.
        var owners = Array(0..<parentCount)
        var sharesKeys = false
        for parent in 0..<parentCount {
            if let owner = index.insert(parentKey(parent), parent: parent) { owners[parent] = owner; sharesKeys = true }
        }
        let positions = (0..<childCount).map { child in childKey(child).flatMap { index.parent(of: $0) }.map(Int32.init) ?? -1 }
        return ParentPositions(positions: positions, owners: sharesKeys ? owners : nil)
    }

    /// What prefetching `association` reads, whatever the parents' keys: its
    /// tables and columns, and those of its own prefetched associations.
    static func region(_ db: Database, association: SQLAssociation, from origin: SQLRelation) throws -> DatabaseRegion {
        guard case .foreignKey(let foreignKey) = association.pivot.condition else { return .fullDatabase }
        let pivotColumns = try foreignKey.joinMapping(db, from: origin.source.tableName).map(\.right)
        // A filter that restricts no row (NULL would make the region provably empty).
        return try childRequest(association, filter: .literal(SQL(sql: "1")), pivotColumns: pivotColumns).databaseRegion(db)
    }

    /// The children of `association`, filtered on their pivot, with the
    /// pivot columns added as `grdb_<column>`.
    private static func childRequest(_ association: SQLAssociation, filter: SQLExpression, pivotColumns: [String]) -> QueryInterfaceRequest<Row> {
        let pivotAlias = TableAlias()
        let relation = association
            .with { $0.pivot.relation = $0.pivot.relation.aliased(pivotAlias).filter(filter) }
            .destinationRelation()
        guard !pivotColumns.isEmpty else { return QueryInterfaceRequest(relation: relation) }
        return QueryInterfaceRequest(relation: relation
            .annotatedWhenConnected { _ in pivotColumns.map { pivotAlias[$0].forKey("grdb_" + $0) } })
    }

    /// `column IN (keys)` over the parents' distinct non-NULL keys, sorted;
    /// `=` for one key, false for none. Beyond 999 keys, the keys are SQL
    /// literals.
    private static func keyFilter(_ db: Database, column: String, leftColumn: String, rows: [Row]) throws -> SQLExpression {
        guard let index = rows.first?.index(forColumn: leftColumn) else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "column \(leftColumn) is not selected: it is needed to prefetch associated records")
        }
        let values = rows.map { $0.databaseValue(atIndex: index) }
        let sorted: [DatabaseValue]
        let integers = values.compactMap { value -> Int64? in
            if case .int64(let integer) = value.storage { return integer }
            return nil
        }
        if integers.count == values.count {
            // The common case, integer keys, sorted and made distinct as
            // integers.
            var distinct: [DatabaseValue] = []
            distinct.reserveCapacity(integers.count)
            var previous: Int64?
            for key in integers.sorted() where key != previous {
                distinct.append(DatabaseValue(storage: .int64(key)))
                previous = key
            }
            sorted = distinct
        } else {
            var keys = Set(values)
            keys.remove(.null)
            sorted = keys.sorted(by: DatabaseValue.sortsBefore)
        }
        if sorted.count > maximumArgumentCount {
            // One literal for the whole list: the same SQL text as one
            // literal per key, without ten thousand expressions to build,
            // qualify and write.
            let context = SQLGenerationContext(db, inlinesValues: true)
            let list = try sorted.map { try context.placeholder(for: $0) }.joined(separator: ", ")
            return .in(Column(column).sqlExpression, .array([.literal(SQL(sql: list))]))
        }
        return SQLCollection.array(sorted.map(\.sqlExpression)).contains(Column(column).sqlExpression)
    }

    private static func indexes(of columns: [String], in row: Row) throws -> [Int] {
        try columns.map { column in
            guard let index = row.index(forColumn: column) else { throw missingColumn(column) }
            return index
        }
    }

    private static func missingColumn(_ column: String) -> DatabaseError {
        DatabaseError(resultCode: .SQLITE_MISUSE, message: "column \(column) is not selected: it is needed to prefetch associated records")
    }

}

/// The parent of each key, for grouping prefetched rows.
private protocol ParentKeyIndex {
    associatedtype Key
    /// Records `parent` for `key`, unless the key has a parent already:
    /// then returns that parent.
    mutating func insert(_ key: Key, parent: Int) -> Int?
    func parent(of key: Key) -> Int?
}

private struct HashedKeyIndex<Key: Hashable>: ParentKeyIndex {
    private var parents: [Key: Int] = [:]

    mutating func insert(_ key: Key, parent: Int) -> Int? {
        if let owner = parents[key] { return owner }
        parents[key] = parent
        return nil
    }

    func parent(of key: Key) -> Int? { parents[key] }
}

/// Integer keys that fill most of their range (row ids): a table indexed
/// by key, without hashing.
private struct DenseKeyIndex: ParentKeyIndex {
    private let low: Int64
    private let high: Int64
    private var parents: [Int32]

    /// Nil when the keys spread over more than four times their number.
    init?(keys: [Int64]) {
        guard let low = keys.min(), let high = keys.max() else { return nil }
        let (span, overflow) = high.subtractingReportingOverflow(low)
        guard !overflow, span < 4 * Swift.max(Int64(keys.count), 16) else { return nil }
        (self.low, self.high) = (low, high)
        parents = Array(repeating: -1, count: Int(span) + 1)
    }

    mutating func insert(_ key: Int64, parent: Int) -> Int? {
        let slot = Int(key - low)
        if parents[slot] >= 0 { return Int(parents[slot]) }
        parents[slot] = Int32(parent)
        return nil
    }

    func parent(of key: Int64) -> Int? {
        // Compared before subtracting: a key far from the others would
        // overflow.
        guard key >= low, key <= high else { return nil }
        let parent = parents[Int(key - low)]
        return parent >= 0 ? Int(parent) : nil
    }
}

extension DatabaseValue {
    /// The integer equal to this value (`==` compares integers and reals
    /// by value), or nil.
    var exactInt64: Int64? {
        switch storage {
        case .int64(let value): return value
        case .double(let value):
            guard let integer = Int64(exactly: value), Double(exactly: integer) == value else { return nil }
            return integer
        default: return nil
        }
    }

    /// SQLite's order: NULL, numbers, text, blobs.
    static func sortsBefore(_ lhs: DatabaseValue, _ rhs: DatabaseValue) -> Bool {
        func rank(_ value: DatabaseValue) -> Int {
            switch value.storage {
            case .null: return 0
            case .int64, .double: return 1
            case .string: return 2
            case .blob: return 3
            }
        }
        switch (lhs.storage, rhs.storage) {
        case let (.int64(a), .int64(b)): return a < b
        case let (.double(a), .double(b)): return a < b
        case let (.int64(a), .double(b)): return Double(a) < b
        case let (.double(a), .int64(b)): return a < Double(b)
        case let (.string(a), .string(b)): return a.utf8.lexicographicallyPrecedes(b.utf8)
        case let (.blob(a), .blob(b)): return a.lexicographicallyPrecedes(b)
        default: return rank(lhs) < rank(rhs)
        }
    }
}
