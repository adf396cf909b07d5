/// A part of the database: tables, some of their columns, some of their
/// rows. A request's region is what it reads, as SQLite's authorizer
/// reports it; an observation is notified of the changes that touch it.
///
/// ```swift
/// let region = try Player.filter(key: 1).databaseRegion(db)   // player(*)[1]
/// ```
public struct DatabaseRegion: Sendable, Hashable, CustomStringConvertible {
    /// nil for the full database.
    private let tables: [String: TableRegion]?

    private init(tables: [String: TableRegion]?) { self.tables = tables }

    /// The empty region.
    public init() { self.init(tables: [:]) }

    /// Every table, every row: what a statement that reads outside of
    /// tables (a view of unknown tables, a function) is given.
    public static let fullDatabase = DatabaseRegion(tables: nil)

    /// A whole table.
    init(table: String) { self.init(tables: [table.lowercased(): TableRegion(name: table, columns: nil, rowIDs: nil)]) }

    /// Some columns of a table.
    init(table: String, columns: Set<String>) {
        self.init(tables: [table.lowercased(): TableRegion(name: table, columns: Set(columns.map { $0.lowercased() }), rowIDs: nil)])
    }

    /// Some rows of a table.
    init(table: String, rowIDs: Set<Int64>) {
        self.init(tables: [table.lowercased(): TableRegion(name: table, columns: nil, rowIDs: rowIDs)])
    }

    /// True for the empty region.
    public var isEmpty: Bool { tables?.isEmpty ?? false }

    /// True for the full database.
    public var isFullDatabase: Bool { tables == nil }

    /// Both regions.
    public func union(_ other: DatabaseRegion) -> DatabaseRegion {
        guard let tables, let otherTables = other.tables else { return .fullDatabase }
        return DatabaseRegion(tables: tables.merging(otherTables) { $0.union($1) })
    }

    /// Adds a region.
    public mutating func formUnion(_ other: DatabaseRegion) { self = union(other) }

    /// What both regions share.
    func intersection(_ other: DatabaseRegion) -> DatabaseRegion {
        guard let tables else { return other }
        guard let otherTables = other.tables else { return self }
        var result: [String: TableRegion] = [:]
        for (key, region) in tables {
            guard let otherRegion = otherTables[key] else { continue }
            let shared = region.intersection(otherRegion)
            if !shared.isEmpty { result[key] = shared }
        }
        return DatabaseRegion(tables: result)
    }

    /// The region, with `table` restricted to some rows.
    func tableIntersection(_ table: String, rowIDs: Set<Int64>) -> DatabaseRegion {
        guard var tables else { return DatabaseRegion(table: table, rowIDs: rowIDs) }
        let key = table.lowercased()
        guard let region = tables[key] else { return self }
        let restricted = region.intersection(TableRegion(name: table, columns: nil, rowIDs: rowIDs))
        tables[key] = restricted.isEmpty ? nil : restricted
        return DatabaseRegion(tables: tables)
    }

    /// The tables of the region, by name; nil for the full database.
    var tableNames: Set<String>? { tables.map { Set($0.values.map(\.name)) } }

    /// The columns of a table in the region: nil for all of them, or when
    /// the table is not in it (check ``tableNames``).
    func columns(of table: String) -> Set<String>? { tables?[table.lowercased()]?.columns }

    /// True if a change of `table`, of one of `columns` (nil: any column),
    /// can touch the region.
    func intersects(table: String, columns: Set<String>?) -> Bool {
        guard let tables else { return true }
        guard let region = tables[table.lowercased()] else { return false }
        guard let regionColumns = region.columns, let columns else { return true }
        return !regionColumns.isDisjoint(with: columns.map { $0.lowercased() })
    }

    /// True if a change of one row can touch the region.
    func contains(table: String, rowID: Int64) -> Bool {
        guard let tables else { return true }
        guard let region = tables[table.lowercased()] else { return false }
        return region.rowIDs?.contains(rowID) ?? true
    }

    /// The region without SQLite's own tables (`sqlite_master`...).
    var ignoringInternalTables: DatabaseRegion {
        guard let tables else { return self }
        return DatabaseRegion(tables: tables.filter { !$0.key.hasPrefix("sqlite_") })
    }

    /// `player(name,score)[1,2],team(*)`, tables sorted.
    public var description: String {
        guard let tables else { return "full database" }
        if tables.isEmpty { return "empty" }
        return tables.values.sorted { $0.name < $1.name }.map { region in
            var text = region.name + "(" + (region.columns.map { $0.sorted().joined(separator: ",") } ?? "*") + ")"
            if let rowIDs = region.rowIDs { text += "[" + rowIDs.sorted().map(String.init).joined(separator: ",") + "]" }
            return text
        }.joined(separator: ",")
    }

    /// Regions are equal when they cover the same tables, columns and rows.
    public static func == (lhs: DatabaseRegion, rhs: DatabaseRegion) -> Bool { lhs.tables == rhs.tables }

    /// Hashes the tables.
    public func hash(into hasher: inout Hasher) { hasher.combine(tables) }
}

/// The part of one table in a region.
private struct TableRegion: Hashable, Sendable {
    /// The table's name, as first seen.
    let name: String
    /// Lowercased column names; nil for every column.
    var columns: Set<String>?
    /// nil for every row.
    var rowIDs: Set<Int64>?

    var isEmpty: Bool { columns?.isEmpty == true || rowIDs?.isEmpty == true }

    static func == (lhs: TableRegion, rhs: TableRegion) -> Bool { lhs.columns == rhs.columns && lhs.rowIDs == rhs.rowIDs }

    func hash(into hasher: inout Hasher) {
        hasher.combine(columns)
        hasher.combine(rowIDs)
    }

    func union(_ other: TableRegion) -> TableRegion {
        TableRegion(name: name,
                    columns: columns.flatMap { mine in other.columns.map { mine.union($0) } },
                    rowIDs: rowIDs.flatMap { mine in other.rowIDs.map { mine.union($0) } })
    }

    func intersection(_ other: TableRegion) -> TableRegion {
        func both<T>(_ lhs: Set<T>?, _ rhs: Set<T>?) -> Set<T>? {
            guard let lhs else { return rhs }
            guard let rhs else { return lhs }
            return lhs.intersection(rhs)
        }
        return TableRegion(name: name, columns: both(columns, other.columns), rowIDs: both(rowIDs, other.rowIDs))
    }
}

/// A type that tells the region of the database it reads: requests,
/// tables, regions themselves.
public protocol DatabaseRegionConvertible: Sendable {
    /// The region.
    func databaseRegion(_ db: Database) throws -> DatabaseRegion
}

extension DatabaseRegion: DatabaseRegionConvertible {
    /// The region itself.
    public func databaseRegion(_ db: Database) throws -> DatabaseRegion { self }
}

extension DatabaseRegionConvertible where Self == DatabaseRegion {
    /// The full database.
    public static var fullDatabase: Self { DatabaseRegion.fullDatabase }
}

/// A type-erased region, or a region computed by a function.
public struct AnyDatabaseRegionConvertible: DatabaseRegionConvertible {
    private let region: @Sendable (Database) throws -> DatabaseRegion

    /// A region computed by a function.
    public init(_ region: @escaping @Sendable (Database) throws -> DatabaseRegion) { self.region = region }

    /// Erases a region's type.
    public init(_ region: some DatabaseRegionConvertible) { self.region = { try region.databaseRegion($0) } }

    /// The region.
    public func databaseRegion(_ db: Database) throws -> DatabaseRegion { try region(db) }
}
