internal import OrderedCollections

// The scopes of a row (the joined associations of its request) and its
// prefetched rows (the to-many associations fetched with it).

extension Row {
    /// The row seen through an adapter.
    func adapted(with adapter: (any RowAdapter)?, layout: RowLayout) throws -> Row {
        guard let adapter else { return self }
        return Row(base: self, adapter: try adapter.layoutedAdapter(from: layout))
    }

    /// The named scopes of the row: `row.scopes["author"]`.
    public var scopes: ScopesView {
        guard case let .adapted(base, adapter) = storage else { return ScopesView() }
        return ScopesView(base: base, scopes: adapter.scopes, prefetched: prefetchedRowsStorage)
    }

    /// The scopes of the row and, breadth first, of its scopes:
    /// `row.scopesTree["country"]` finds the country of a book's author.
    public var scopesTree: ScopesTreeView { ScopesTreeView(scopes: scopes) }

    /// The row without its scopes and prefetched rows, with the same columns.
    public var unscoped: Row {
        switch storage {
        case let .adapted(base, adapter): return Row(base: base, adapter: LayoutedRowAdapter(mapping: adapter.mapping))
        case .values, .statement: return prefetchedRowsStorage.isEmpty ? self : copyWithoutPrefetches()
        }
    }

    private func copyWithoutPrefetches() -> Row {
        let copy = Row(names: columnNames, values: databaseValues)
        return copy
    }

    /// The row the adapters applied to, with all its columns.
    public var unadapted: Row {
        if case .adapted(let base, _) = storage { return base.unadapted }
        return self
    }

    /// The rows of prefetched to-many associations, by key.
    public var prefetchedRows: PrefetchedRowsView { prefetchedRowsStorage }

    // MARK: Records of scopes and prefetched rows

    /// The record of a scope; an error when there is no such scope, or it
    /// holds only NULLs.
    public func decode<Record: FetchableRecord>(_ type: Record.Type = Record.self, forKey scope: String) throws -> Record {
        guard let scoped = scopesTree[scope] else {
            let names = scopesTree.names.sorted()
            throw RowDecodingError(description: "scope not found: \(String(reflecting: scope))"
                + (names.isEmpty ? "" : " - available scopes: \(names)"))
        }
        guard scoped.containsNonNullValue else {
            throw RowDecodingError(description: "could not decode \(Record.self): scope \(String(reflecting: scope)) only contains null values")
        }
        return try Record(row: scoped)
    }

    /// The record of a scope, or nil when there is no such scope or it holds
    /// only NULLs (an optional association that matched no row).
    public func decodeIfPresent<Record: FetchableRecord>(_ type: Record.Type = Record.self, forKey scope: String) throws -> Record? {
        guard let scoped = scopesTree[scope], scoped.containsNonNullValue else { return nil }
        return try Record(row: scoped)
    }

    /// The records of a prefetched association.
    public func decode<Collection: RangeReplaceableCollection>(_ type: Collection.Type = Collection.self, forKey key: String) throws -> Collection
    where Collection.Element: FetchableRecord {
        guard let rows = prefetchedRows.rows(forKey: key) else { throw missingPrefetchKey(key) }
        var collection = Collection()
        collection.reserveCapacity(rows.count)
        try rows.forEach { collection.append(try Collection.Element(row: $0)) }
        return collection
    }

    /// The records of a prefetched association, as a set.
    public func decode<Record: FetchableRecord & Hashable>(_ type: Set<Record>.Type = Set<Record>.self, forKey key: String) throws -> Set<Record> {
        guard let rows = prefetchedRows.rows(forKey: key) else { throw missingPrefetchKey(key) }
        var records = Set<Record>(minimumCapacity: rows.count)
        try rows.forEach { records.insert(try Record(row: $0)) }
        return records
    }

    private func missingPrefetchKey(_ key: String) -> RowDecodingError {
        let keys = prefetchedRows.keys.sorted()
        return RowDecodingError(description: "key for prefetched rows not found: \(String(reflecting: key))"
            + (keys.isEmpty ? "" : " - available keys: \(keys)"))
    }

    /// The record of a scope: `let author: Author = row["author"]`.
    /// A missing scope stops the program, as GRDB's subscripts do; use
    /// ``decode(_:forKey:)->Collection`` to get an error.
    public subscript<Record: FetchableRecord>(_ scope: String) -> Record {
        Row.valueOrTrap { try decode(Record.self, forKey: scope) }
    }

    /// The record of a scope, or nil.
    public subscript<Record: FetchableRecord>(_ scope: String) -> Record? {
        Row.valueOrTrap { try decodeIfPresent(Record.self, forKey: scope) }
    }

    /// The records of a prefetched association: `let books: [Book] = row["books"]`.
    public subscript<Records: RangeReplaceableCollection>(_ key: String) -> Records where Records.Element: FetchableRecord {
        Row.valueOrTrap { try decode(Records.self, forKey: key) }
    }

    /// The records of a prefetched association, as a set.
    public subscript<Record: FetchableRecord & Hashable>(_ key: String) -> Set<Record> {
        Row.valueOrTrap { try decode(Set<Record>.self, forKey: key) }
    }

    // MARK: Columns

    /// The value of a column, as Int64, Double, String or Data; nil for
    /// NULL or a missing column.
    public subscript(_ column: some ColumnExpression) -> (any DatabaseValueConvertible)? { self[column.name] }

    /// The value of a column, converted.
    public subscript<Value: DatabaseValueConvertible>(_ column: some ColumnExpression) -> Value { self[column.name] }

    /// The value of a column, converted through the fast path.
    public subscript<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ column: some ColumnExpression) -> Value {
        self[column.name]
    }

    /// The value of a column; an error names the column and the type.
    public func decode<Value: DatabaseValueConvertible>(_ type: Value.Type = Value.self,
                                                        forColumn column: some ColumnExpression) throws -> Value {
        try decode(Value.self, forColumn: column.name)
    }

    /// The value of a column, through the fast path; an error names the
    /// column and the type.
    public func decode<Value: DatabaseValueConvertible & StatementColumnConvertible>(
        _ type: Value.Type = Value.self, forColumn column: some ColumnExpression
    ) throws -> Value {
        try decode(Value.self, forColumn: column.name)
    }

    /// The first non-NULL value of the columns, or nil.
    public func coalesce<T: DatabaseValueConvertible>(_ columns: some Collection<String>) -> T? {
        for column in columns {
            if let index = index(forColumn: column), !databaseValue(atIndex: index).isNull {
                return try? decode(T.self, atIndex: index)
            }
        }
        return nil
    }

    /// The first non-NULL value of the columns, or nil.
    public func coalesce<T: DatabaseValueConvertible>(_ columns: some Collection<any ColumnExpression>) -> T? {
        coalesce(columns.map(\.name))
    }

    /// The row's layout, for adapters.
    var layout: RowLayout { RowLayout(names: columnNames) }
}

extension Row {
    /// The scopes of a row: a collection of (name, row) pairs.
    public struct ScopesView: Collection {
        private let base: Row
        private let scopes: [String: LayoutedRowAdapter]
        private let prefetched: PrefetchedRowsView

        init() {
            self.init(base: Row(), scopes: [:], prefetched: PrefetchedRowsView())
        }

        init(base: Row, scopes: [String: LayoutedRowAdapter], prefetched: PrefetchedRowsView) {
            self.base = base
            self.scopes = scopes
            self.prefetched = prefetched
        }

        /// The names of the scopes.
        public var names: Dictionary<String, LayoutedRowAdapter>.Keys { scopes.keys }

        /// A position among the scopes.
        public typealias Index = Dictionary<String, LayoutedRowAdapter>.Index

        /// The first position.
        public var startIndex: Index { scopes.startIndex }

        /// The position after the last.
        public var endIndex: Index { scopes.endIndex }

        /// The next position.
        public func index(after index: Index) -> Index { scopes.index(after: index) }

        /// The scope at a position, with its own prefetched rows.
        public subscript(position: Index) -> (name: String, row: Row) {
            let (name, adapter) = scopes[position]
            let row = Row(base: base, adapter: adapter)
            if let nested = prefetched.prefetches[name] {
                row.prefetchedRowsStorage = PrefetchedRowsView(prefetches: nested.prefetches)
            }
            return (name, row)
        }

        /// The scope with this name.
        public subscript(_ name: String) -> Row? {
            scopes.index(forKey: name).map { self[$0].row }
        }
    }

    /// The scopes of a row and of its scopes, searched breadth first.
    public struct ScopesTreeView {
        let scopes: ScopesView

        /// Every scope name, at any depth.
        public var names: Set<String> {
            scopes.reduce(into: []) { names, scope in
                names.insert(scope.name)
                names.formUnion(scope.row.scopesTree.names)
            }
        }

        /// The scope with this name, the shallowest first.
        public subscript(_ name: String) -> Row? {
            var queue = Array(scopes)
            while !queue.isEmpty {
                let scope = queue.removeFirst()
                if scope.name == name { return scope.row }
                queue += scope.row.scopes
            }
            return nil
        }
    }

    /// The rows of prefetched associations, by key, at any depth.
    public struct PrefetchedRowsView: Equatable, Sendable {
        struct Prefetch: Equatable, @unchecked Sendable {
            /// Nil for the intermediate steps of an association through others.
            var rows: PrefetchedRows?
            var prefetches: OrderedDictionary<String, Prefetch>
        }

        var prefetches: OrderedDictionary<String, Prefetch> = [:]

        init() {}

        init(prefetches: OrderedDictionary<String, Prefetch>) { self.prefetches = prefetches }

        /// True when nothing was prefetched.
        public var isEmpty: Bool { prefetches.isEmpty }

        /// The keys that have rows, at any depth.
        public var keys: Set<String> {
            var result: Set<String> = []
            var queue = Array(prefetches)
            while !queue.isEmpty {
                let (key, prefetch) = queue.removeFirst()
                if prefetch.rows != nil { result.insert(key) }
                queue += prefetch.prefetches
            }
            return result
        }

        /// The rows of a key, the shallowest first.
        public subscript(_ key: String) -> [Row]? {
            rows(forKey: key)?.array
        }

        /// The rows of a key, the shallowest first, without making a row of
        /// its own for each.
        func rows(forKey key: String) -> PrefetchedRows? {
            // The common case first, without building the queue.
            if let rows = prefetches[key]?.rows { return rows }
            if prefetches.values.allSatisfy({ $0.prefetches.isEmpty }) { return nil }
            var queue = Array(prefetches)
            while !queue.isEmpty {
                let (prefetchKey, prefetch) = queue.removeFirst()
                if prefetchKey == key, let rows = prefetch.rows { return rows }
                queue += prefetch.prefetches
            }
            return nil
        }

        mutating func setRows(_ rows: PrefetchedRows, forKeyPath keyPath: [String]) {
            Self.setRows(rows, forKeyPath: keyPath[...], in: &prefetches)
        }

        private static func setRows(_ rows: PrefetchedRows, forKeyPath keyPath: ArraySlice<String>,
                                    in prefetches: inout OrderedDictionary<String, Prefetch>) {
            guard let key = keyPath.first else { return }
            var prefetch = prefetches[key] ?? Prefetch(rows: nil, prefetches: [:])
            if keyPath.count == 1 {
                prefetch.rows = rows
            } else {
                setRows(rows, forKeyPath: keyPath.dropFirst(), in: &prefetch.prefetches)
            }
            prefetches[key] = prefetch
        }
    }
}
