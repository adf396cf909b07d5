import Foundation

/// A type tied to a database table.
///
/// ```swift
/// struct Player: TableRecord { }               // table "player"
/// struct BrandRGDB: TableRecord { }            // table "brandRGDB"
/// let count = try Player.fetchCount(db)
/// ```
public protocol TableRecord {
    /// The table's name. By default the type name, with its leading capital
    /// lowercased (`Player` → `player`, `HTTPRequest` → `httpRequest`).
    static var databaseTableName: String { get }

    /// The columns a request selects by default: all of them.
    static var databaseSelection: [any SQLSelectable] { get }
}

extension TableRecord {
    public static var databaseTableName: String { DefaultTableNames.shared.name(for: Self.self) }

    public static var databaseSelection: [any SQLSelectable] { [SQLSelection.allColumns] }

    /// `Player` → `player`; a run of capitals keeps its last one when
    /// lowercase letters follow (`HTTPRequest` → `httpRequest`); a name in
    /// capitals only is lowercased (`TOEFL` → `toefl`).
    static func defaultTableName(for typeName: String) -> String {
        // Generic types ("Box<Int>") and nested names keep their base name.
        let base = String(typeName.prefix { $0 != "<" && $0 != "(" }.split(separator: ".").last ?? "")
        let capitals = base.prefix { $0.isUppercase }
        switch capitals.count {
        case 0: return base
        case base.count: return base.lowercased()
        case 1: return capitals.lowercased() + base.dropFirst()
        default: return capitals.dropLast().lowercased() + base.dropFirst(capitals.count - 1)
        }
    }

    /// Every row of the table.
    public static func all() -> QueryInterfaceRequest<Self> {
        QueryInterfaceRequest(tableName: databaseTableName, selection: databaseSelection.map(\.sqlSelection))
    }

    /// No row.
    public static func none() -> QueryInterfaceRequest<Self> { all().none() }

    public static func filter(_ predicate: some SQLExpressible) -> QueryInterfaceRequest<Self> { all().filter(predicate) }
    public static func filter(sql: String, arguments: StatementArguments = StatementArguments()) -> QueryInterfaceRequest<Self> {
        all().filter(sql: sql, arguments: arguments)
    }
    public static func order(_ orderings: any SQLOrderingTerm...) -> QueryInterfaceRequest<Self> { all().order(orderings) }
    public static func select(_ selection: any SQLSelectable...) -> QueryInterfaceRequest<Self> { all().select(selection) }
    public static func select<T>(_ selection: any SQLSelectable..., as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        all().select(selection).asRequest(of: T.self)
    }
    public static func limit(_ limit: Int, offset: Int? = nil) -> QueryInterfaceRequest<Self> { all().limit(limit, offset: offset) }
    public static func group(_ expressions: any SQLExpressible...) -> QueryInterfaceRequest<Self> {
        var request = all()
        request.groupings = expressions.map(\.sqlExpression)
        return request
    }

    /// The number of rows in the table.
    public static func fetchCount(_ db: Database) throws -> Int { try all().fetchCount(db) }

    /// Deletes every row; returns how many.
    @discardableResult
    public static func deleteAll(_ db: Database) throws -> Int { try all().deleteAll(db) }

    /// Updates every row; returns how many.
    @discardableResult
    public static func updateAll(_ db: Database, _ assignments: ColumnAssignment...) throws -> Int {
        try all().updateAll(db, assignments)
    }

    // MARK: Keys

    /// Rows whose primary key is one of `keys` (single-column primary keys).
    public static func filter<Key: DatabaseValueConvertible>(keys: some Collection<Key>) -> QueryInterfaceRequest<Self> {
        var request = all()
        request.keyFilters.append(.primaryKey(keys.map(\.databaseValue)))
        return request
    }

    /// The row whose primary key is `key`.
    public static func filter(key: some DatabaseValueConvertible) -> QueryInterfaceRequest<Self> { filter(keys: [key]) }

    /// The row with these column values: `filter(key: ["email": "a@b.c"])`.
    public static func filter(key: [String: (any DatabaseValueConvertible)?]) -> QueryInterfaceRequest<Self> {
        all().filter(key.map { Column($0.key) == DatabaseValue(value: $0.value) }.reduce(SQLExpression.alwaysTrue) { partial, next in
            partial.node.isAlwaysTrue ? next : partial && next
        })
    }

    /// True if a row has this primary key.
    public static func exists(_ db: Database, key: some DatabaseValueConvertible) throws -> Bool {
        try filter(key: key).fetchCount(db) > 0
    }

    /// Deletes the row with this primary key; returns whether there was one.
    @discardableResult
    public static func deleteOne(_ db: Database, key: some DatabaseValueConvertible) throws -> Bool {
        try filter(key: key).deleteAll(db) > 0
    }

    /// Deletes the rows with these primary keys; returns how many.
    @discardableResult
    public static func deleteAll<Key: DatabaseValueConvertible>(_ db: Database, keys: some Collection<Key>) throws -> Int {
        try filter(keys: keys).deleteAll(db)
    }
}

extension TableRecord where Self: Identifiable, ID: DatabaseValueConvertible {
    public static func filter(id: ID) -> QueryInterfaceRequest<Self> { filter(key: id) }
    public static func filter(ids: some Collection<ID>) -> QueryInterfaceRequest<Self> { filter(keys: ids) }
    public static func exists(_ db: Database, id: ID) throws -> Bool { try exists(db, key: id) }
    @discardableResult
    public static func deleteOne(_ db: Database, id: ID) throws -> Bool { try deleteOne(db, key: id) }
}

/// Default table names by type: describing a type is slow, and records ask
/// for their table name on every insert.
final class DefaultTableNames: @unchecked Sendable {
    static let shared = DefaultTableNames()
    // Guarded by `lock`.
    private var names: [ObjectIdentifier: String] = [:]
    private let lock = NSLock()

    func name<T: TableRecord>(for type: T.Type) -> String {
        let key = ObjectIdentifier(type)
        lock.lock()
        defer { lock.unlock() }
        if let name = names[key] { return name }
        let name = T.defaultTableName(for: "\(type)")
        names[key] = name
        return name
    }
}
