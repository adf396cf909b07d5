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
        guard let firstRow = rows.first else { return }
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
            let children: [Row]
            if let observer = db.prefetchObserver {
                // A dump prints the association's request and its own
                // prefetches; this fetch runs without the observer.
                db.prefetchObserver = nil
                defer { db.prefetchObserver = observer }
                try observer(makeRequest(false), association.keyPath)
                children = try makeRequest(true).fetchAll(db)
            } else {
                children = try makeRequest(true).fetchAll(db)
            }
            let parentIndexes = try indexes(of: leftColumns, in: firstRow)
            if parentIndexes.count == 1 {
                let groups = try group(consume children, byColumn: "grdb_" + pivotColumns[0], into: rows, parentColumn: parentIndexes[0])
                for (row, children) in zip(rows, groups) {
                    row.prefetchedRowsStorage.setRows(children, forKeyPath: association.keyPath)
                }
            } else {
                let groups = try group(children, byColumns: pivotColumns.map { "grdb_" + $0 })
                for row in rows {
                    let key = parentIndexes.map { row.databaseValue(atIndex: $0) }
                    row.prefetchedRowsStorage.setRows(groups[key] ?? [], forKeyPath: association.keyPath)
                }
            }
        }
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
        var keys = Set(rows.map { $0.databaseValue(atIndex: index) })
        keys.remove(.null)
        let sorted: [DatabaseValue]
        let integers = keys.compactMap { key -> Int64? in
            if case .int64(let integer) = key.storage { return integer }
            return nil
        }
        if integers.count == keys.count {
            // The common case, integer keys, sorted as integers.
            sorted = integers.sorted().map { DatabaseValue(storage: .int64($0)) }
        } else {
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
            guard let index = row.index(forColumn: column) else {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "column \(column) is not selected: it is needed to prefetch associated records")
            }
            return index
        }
    }

    /// The children of each parent, in the parents' order, for a key of
    /// one column.
    ///
    /// The children are moved out of their array rather than copied: with
    /// many children, each retain of a row that left the processor's caches
    /// costs a memory access, and this loop would pay it twice per child.
    private static func group(_ children: consuming [Row], byColumn column: String, into parents: [Row], parentColumn: Int) throws -> [[Row]] {
        var groups = [[Row]](repeating: [], count: parents.count)
        guard let first = children.first else { return groups }
        let childColumn = try indexes(of: [column], in: first)[0]
        var parentOfKey: [DatabaseValue: Int] = [:]
        parentOfKey.reserveCapacity(parents.count)
        var sharesKeys = false
        for position in parents.indices {
            // Several parents may share a key: the first one stands for all.
            let key = parents[position].databaseValue(atIndex: parentColumn)
            if parentOfKey[key] == nil { parentOfKey[key] = position } else { sharesKeys = true }
        }
        // Each moved-out child is replaced by one shared row, which the
        // array releases when it goes.
        let placeholder = first
        // Room for the average number of children, so that most groups
        // are allocated once.
        let average = (children.count + parents.count - 1) / Swift.max(parents.count, 1)
        children.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            for position in 0..<buffer.count {
                let child = (base + position).move()
                (base + position).initialize(to: placeholder)
                if let owner = parentOfKey[child.databaseValue(atIndex: childColumn)] {
                    if groups[owner].isEmpty { groups[owner].reserveCapacity(average) }
                    groups[owner].append(child)
                }
            }
        }
        // Parents that share a key get the same children.
        for position in parents.indices where sharesKeys {
            if let owner = parentOfKey[parents[position].databaseValue(atIndex: parentColumn)], owner != position {
                groups[position] = groups[owner]
            }
        }
        return groups
    }

    private static func group(_ rows: [Row], byColumns columns: [String]) throws -> [[DatabaseValue]: [Row]] {
        guard let first = rows.first else { return [:] }
        let indexes = try indexes(of: columns, in: first)
        return Dictionary(grouping: rows) { row in indexes.map { row.databaseValue(atIndex: $0) } }
    }
}

extension DatabaseValue {
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
