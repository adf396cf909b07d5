/// A part of the database: tables, some of their columns, some of their
/// rows. A request's region is what it reads, as SQLite's authorizer
/// reports it; an observation is notified of the changes that touch it.
///
/// ```swift
/// let region = try Player.filter(key: 1).databaseRegion(db)   // player(*)[1]
/// ```
public struct DatabaseRegion: Sendable, Hashable, CustomStringConvertible {
    /// nil for the full database.
    private let tables: [CaseInsensitiveIdentifier: TableRegion]?

    private init(tables: [CaseInsensitiveIdentifier: TableRegion]?) { self.tables = tables }

    /// The empty region.
    public init() { self.init(tables: [:]) }

    /// Every table, every row: what a statement that reads outside of
    /// tables (a view of unknown tables, a function) is given.
    public static let fullDatabase = DatabaseRegion(tables: nil)

    /// A whole table.
    init(table: String) { self.init(tables: [CaseInsensitiveIdentifier(rawValue: table): TableRegion(columns: nil, rowIds: nil)]) }

    /// Some columns of a table.
    init(table: String, columns: Set<String>) {
        self.init(tables: [CaseInsensitiveIdentifier(rawValue: table):
            TableRegion(columns: Set(columns.map(CaseInsensitiveIdentifier.init(rawValue:))), rowIds: nil)])
    }

    /// Some rows of a table.
    init(table: String, rowIds: Set<Int64>) {
        self.init(tables: [CaseInsensitiveIdentifier(rawValue: table): TableRegion(columns: nil, rowIds: rowIds)])
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
        var result: [CaseInsensitiveIdentifier: TableRegion] = [:]
        for (table, region) in tables {
            guard let otherRegion = otherTables[table] else { continue }
            let shared = region.intersection(otherRegion)
            if !shared.isEmpty { result[table] = shared }
        }
        return DatabaseRegion(tables: result)
    }

    /// The region, with `table` restricted to some rows.
    func tableIntersection(_ table: String, rowIds: Set<Int64>) -> DatabaseRegion {
        guard var tables else { return DatabaseRegion(table: table, rowIds: rowIds) }
        let key = CaseInsensitiveIdentifier(rawValue: table)
        guard let region = tables[key] else { return self }
        let restricted = region.intersection(TableRegion(columns: nil, rowIds: rowIds))
        tables[key] = restricted.isEmpty ? nil : restricted
        return DatabaseRegion(tables: tables)
    }

    /// The tables of the region, as named; nil for the full database.
    var tableNames: Set<String>? { tables.map { Set($0.keys.map(\.rawValue)) } }

    /// The columns of a table in the region: nil for all of them, or when
    /// the table is not in it (check ``tableNames``).
    func columns(of table: String) -> Set<String>? {
        tables?[CaseInsensitiveIdentifier(rawValue: table)]?.columns.map { Set($0.map(\.rawValue)) }
    }

    /// The region without SQLite's own tables (`sqlite_master`...), which
    /// changes never report, with the table names of the schema (views
    /// left out): what an observer watches.
    func observableRegion(_ db: Database) throws -> DatabaseRegion {
        try canonicalRegion(db, keepingSchemaTables: false)
    }

    /// The region with the table names of the schema (views and missing
    /// tables left out). With `keepingSchemaTables`, `sqlite_master` stays,
    /// and `sqlite_temp_master` while the temporary schema has objects: a
    /// change can be announced for them (``Database/notifyChanges(in:)``).
    func canonicalRegion(_ db: Database, keepingSchemaTables: Bool) throws -> DatabaseRegion {
        guard let tables else { return self }
        var result: [CaseInsensitiveIdentifier: TableRegion] = [:]
        for (table, region) in tables {
            let name: String?
            switch table.rawValue.lowercased() {
            case "sqlite_master" where keepingSchemaTables:
                name = "sqlite_master"
            case "sqlite_temp_master" where keepingSchemaTables:
                let hasTemporarySchema = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM sqlite_temp_master)") ?? false
                name = hasTemporarySchema ? "sqlite_temp_master" : nil
            case _ where Database.isSQLiteInternalTable(table.rawValue):
                name = nil
            default:
                name = try db.canonicalTableName(table.rawValue)
            }
            guard let name else { continue }
            let key = CaseInsensitiveIdentifier(rawValue: name)
            result[key] = result[key].map { $0.union(region) } ?? region
        }
        return DatabaseRegion(tables: result)
    }

    /// True if changes of this kind can modify the region.
    public func isModified(byEventsOfKind eventKind: DatabaseEventKind) -> Bool {
        !intersection(eventKind.modifiedRegion).isEmpty
    }

    /// True if this change can modify the region. A change of a table
    /// that is not in the region counts (virtual tables change their
    /// shadow tables without saying so).
    public func isModified(by event: DatabaseEvent) -> Bool {
        guard let tables, let region = tables[CaseInsensitiveIdentifier(rawValue: event.tableName)] else { return true }
        return region.rowIds?.contains(event.rowID) ?? true
    }

    /// The kinds of changes that can modify the region, for
    /// `TransactionObserver.observes(eventsOfKind:)`.
    func impactfulEventKinds(_ db: Database) throws -> [DatabaseEventKind] {
        let tableNames: [String]
        if let tables {
            tableNames = tables.keys.map(\.rawValue)
        } else {
            // The tables of every schema: main, temporary and attached.
            tableNames = try db.schemaNames().flatMap { schema in
                try String.fetchAll(db, sql: "SELECT name FROM \(db.masterTable(schema)) WHERE type = 'table'")
            }.filter { !Database.isSQLiteInternalTable($0) }
        }
        return try tableNames.flatMap { table -> [DatabaseEventKind] in
            let columns = try self.columns(of: table) ?? Self.schemaTableColumns[table.lowercased()]
                ?? Set(db.columns(in: table).map(\.name))
            return [.delete(tableName: table), .insert(tableName: table), .update(tableName: table, columnNames: columns)]
        }
    }

    /// The columns of SQLite's schema tables, which the schema does not list.
    private static let schemaTableColumns: [String: Set<String>] = {
        let columns: Set<String> = ["type", "name", "tbl_name", "rootpage", "sql"]
        return ["sqlite_master": columns, "sqlite_temp_master": columns]
    }()

    /// `player(name,score)[1,2],team(*)`, tables sorted.
    public var description: String {
        guard let tables else { return "full database" }
        if tables.isEmpty { return "empty" }
        return tables.sorted { $0.key.rawValue < $1.key.rawValue }.map { table, region in
            var text = table.rawValue + "(" + (region.columns.map { $0.map(\.rawValue).sorted().joined(separator: ",") } ?? "*") + ")"
            if let rowIds = region.rowIds { text += "[" + rowIds.sorted().map(String.init).joined(separator: ",") + "]" }
            return text
        }.joined(separator: ",")
    }
}

/// The part of one table in a region.
private struct TableRegion: Hashable, Sendable {
    /// nil for every column.
    var columns: Set<CaseInsensitiveIdentifier>?
    /// nil for every row.
    var rowIds: Set<Int64>?

    var isEmpty: Bool { columns?.isEmpty == true || rowIds?.isEmpty == true }

    func union(_ other: TableRegion) -> TableRegion {
        TableRegion(columns: columns.flatMap { mine in other.columns.map { mine.union($0) } },
                    rowIds: rowIds.flatMap { mine in other.rowIds.map { mine.union($0) } })
    }

    func intersection(_ other: TableRegion) -> TableRegion {
        func both<T>(_ lhs: Set<T>?, _ rhs: Set<T>?) -> Set<T>? {
            guard let lhs else { return rhs }
            guard let rhs else { return lhs }
            return lhs.intersection(rhs)
        }
        return TableRegion(columns: both(columns, other.columns), rowIds: both(rowIds, other.rowIds))
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
