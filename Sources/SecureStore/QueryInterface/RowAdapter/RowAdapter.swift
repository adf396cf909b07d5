/// A view of a row with other columns: a slice, renamed columns, and
/// named scopes (the rows of joined associations).
///
/// ```swift
/// // SELECT player.*, team.* FROM player JOIN team ON ...
/// let adapter = ScopeAdapter([
///     "player": RangeRowAdapter(0..<playerWidth),
///     "team": SuffixRowAdapter(fromIndex: playerWidth),
/// ])
/// let row = try Row.fetchOne(db, sql: sql, adapter: adapter)!
/// let team: Team = row["team"]                // decoded from the "team" scope
/// row.scopes["team"]                          // the team's columns
/// ```
///
/// ## Topics
///
/// ### Related Types
///
/// - ``ColumnMapping``
/// - ``SuffixRowAdapter``
/// - ``RangeRowAdapter``
/// - ``ScopeAdapter``
/// - ``EmptyRowAdapter``
/// - ``RenameColumnAdapter``
/// - ``splittingRowAdapters(columnCounts:)``
public protocol RowAdapter: Sendable {
    /// The columns of the adapted row, and its scopes, for rows laid out as
    /// `layout` says.
    func layoutedAdapter(from layout: RowLayout) throws -> LayoutedRowAdapter
}

/// The columns of a row an adapter applies to: base indexes and names.
public struct RowLayout: Sendable {
    /// (index in the base row, name) of each column.
    let columns: [(index: Int, name: String)]

    init(columns: [(index: Int, name: String)]) { self.columns = columns }

    init(names: [String]) { columns = names.enumerated().map { ($0.offset, $0.element) } }

    /// The position in this layout of the leftmost column with this name,
    /// ignoring case.
    func position(ofColumn name: String) -> Int? {
        // The leftmost column of that name in any case, as a row's own
        // lookup does (not an exact match further right).
        columns.firstIndex { $0.name.isEqualIgnoringCase(name) }
    }
}

/// An adapter applied to a layout: the columns of the adapted row, and the
/// adapters of its scopes.
public struct LayoutedRowAdapter: Sendable {
    /// The adapted row's columns, as positions in the base row.
    let mapping: RowLayout
    let scopes: [String: LayoutedRowAdapter]

    init(mapping: RowLayout, scopes: [String: LayoutedRowAdapter] = [:]) {
        self.mapping = mapping
        self.scopes = scopes
    }
}

extension RowAdapter {
    /// The adapter, with scopes added.
    public func addingScopes(_ scopes: [String: any RowAdapter]) -> any RowAdapter {
        scopes.isEmpty ? self : ScopeAdapter(base: self, scopes: scopes)
    }
}

/// No column at all.
public struct EmptyRowAdapter: RowAdapter {
    /// An adapter with no column.
    public init() {}

    /// No column.
    public func layoutedAdapter(from layout: RowLayout) throws -> LayoutedRowAdapter {
        LayoutedRowAdapter(mapping: RowLayout(columns: []))
    }
}

/// Columns renamed: `ColumnMapping(["id": "playerId"])` shows the base
/// column `playerId` as `id`.
public struct ColumnMapping: RowAdapter {
    let mapping: [String: String]

    /// A mapping from new names to base column names.
    public init(_ mapping: [String: String]) { self.mapping = mapping }

    /// The mapped columns, in the order of the base row. A missing base
    /// column is an error.
    public func layoutedAdapter(from layout: RowLayout) throws -> LayoutedRowAdapter {
        let columns = try mapping.map { name, baseName -> (index: Int, name: String) in
            guard let position = layout.position(ofColumn: baseName) else {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "Mapping references missing column \(baseName). Valid column names are: \(layout.columns.map(\.name).joined(separator: ", ")).")
            }
            return (layout.columns[position].index, name)
        }.sorted { $0.index < $1.index }
        return LayoutedRowAdapter(mapping: RowLayout(columns: columns))
    }
}

/// The columns from an index to the end.
public struct SuffixRowAdapter: RowAdapter {
    let index: Int

    /// The columns from `index` on.
    public init(fromIndex index: Int) {
        precondition(index >= 0, "negative column index")
        self.index = index
    }

    /// The columns from the index on.
    public func layoutedAdapter(from layout: RowLayout) throws -> LayoutedRowAdapter {
        LayoutedRowAdapter(mapping: RowLayout(columns: Array(layout.columns.dropFirst(index))))
    }
}

/// The columns in a range of indexes.
public struct RangeRowAdapter: RowAdapter {
    let range: Range<Int>

    /// The columns in `range`.
    public init(_ range: Range<Int>) {
        precondition(range.lowerBound >= 0, "negative column index")
        self.range = range
    }

    /// The columns in `range`.
    public init(_ range: ClosedRange<Int>) {
        self.init(range.lowerBound..<(range.upperBound + 1))
    }

    /// The columns in the range (clamped to the row).
    public func layoutedAdapter(from layout: RowLayout) throws -> LayoutedRowAdapter {
        let upper = Swift.min(range.upperBound, layout.columns.count)
        let lower = Swift.min(range.lowerBound, upper)
        return LayoutedRowAdapter(mapping: RowLayout(columns: Array(layout.columns[lower..<upper])))
    }
}

/// Named scopes over a row: each scope is a view of the row by another
/// adapter. The row itself is `base` (all columns by default).
public struct ScopeAdapter: RowAdapter {
    let base: any RowAdapter
    let scopes: [String: any RowAdapter]

    /// Scopes over every column.
    public init(_ scopes: [String: any RowAdapter]) {
        self.init(base: SuffixRowAdapter(fromIndex: 0), scopes: scopes)
    }

    /// Scopes over the columns of `base`.
    public init(base: some RowAdapter, scopes: [String: any RowAdapter]) {
        self.base = base
        self.scopes = scopes
    }

    /// The base columns, and each scope applied to the same layout.
    public func layoutedAdapter(from layout: RowLayout) throws -> LayoutedRowAdapter {
        let baseAdapter = try base.layoutedAdapter(from: layout)
        var scopes = baseAdapter.scopes
        for (name, adapter) in self.scopes { scopes[name] = try adapter.layoutedAdapter(from: layout) }
        return LayoutedRowAdapter(mapping: baseAdapter.mapping, scopes: scopes)
    }
}

/// Every column, renamed by a function.
public struct RenameColumnAdapter: RowAdapter {
    let transform: @Sendable (String) -> String

    /// Renames each column with `transform`.
    public init(_ transform: @escaping @Sendable (String) -> String) { self.transform = transform }

    /// The renamed columns.
    public func layoutedAdapter(from layout: RowLayout) throws -> LayoutedRowAdapter {
        LayoutedRowAdapter(mapping: RowLayout(columns: layout.columns.map { ($0.index, transform($0.name)) }))
    }
}

/// One adapter after another: the second applies to the columns of the
/// first.
struct ChainedAdapter: RowAdapter {
    let first: any RowAdapter
    let second: any RowAdapter

    func layoutedAdapter(from layout: RowLayout) throws -> LayoutedRowAdapter {
        try second.layoutedAdapter(from: first.layoutedAdapter(from: layout).mapping)
    }
}

/// Adapters that split a row into consecutive slices of these widths,
/// then the rest:
/// `splittingRowAdapters(columnCounts: [2, 3])` gives `0..<2`, `2..<5`, `5...`.
public func splittingRowAdapters(columnCounts: [Int]) -> [any RowAdapter] {
    var bounds = [0]
    for count in columnCounts { bounds.append(bounds[bounds.count - 1] + count) }
    let ranges: [any RowAdapter] = zip(bounds, bounds.dropFirst()).map { RangeRowAdapter($0..<$1) }
    return ranges + [SuffixRowAdapter(fromIndex: bounds[bounds.count - 1])]
}
