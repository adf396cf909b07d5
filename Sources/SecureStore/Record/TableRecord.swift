import Foundation

/// A type tied to a database table.
///
/// ```swift
/// struct Player: TableRecord {
///     enum Columns {
///         static let name = Column("name")
///         static let score = Column("score")
///     }
/// }
/// let count = try Player.fetchCount(db)                  // table "player"
/// let best = try Player.order { $0.score.desc }.fetchAll(db)
/// ```
///
/// ## Topics
///
/// ### The table
///
/// - ``databaseTableName``
/// - ``databaseSelection``
/// - ``Columns``
/// - ``databaseComponents``
///
/// ### Requests
///
/// - ``all()``
/// - ``belongsTo(_:key:using:)-(Destination.Type,_,_)``
///
/// ### Changing rows
///
/// - ``deleteAll(_:)``
/// - ``updateAll(_:onConflict:_:)-(_,_,ColumnAssignment...)``
public protocol TableRecord: SendableMetatype {
    /// The record's columns, for the closures of `filter`, `order`,
    /// `select`...: `Player.order { $0.score.desc }`.
    associatedtype Columns = Never

    /// What those closures receive: `Columns.Type` by default.
    associatedtype DatabaseComponents = Columns.Type

    /// The table's name. By default the type name, with its leading capital
    /// lowercased (`Player` → `player`, `HTTPRequest` → `httpRequest`).
    static var databaseTableName: String { get }

    /// The columns a request selects by default: all of them.
    static var databaseSelection: [any SQLSelectable] { get }

    /// The value given to the closures of `filter`, `order`, `select`...
    static var databaseComponents: DatabaseComponents { get }
}

extension TableRecord where DatabaseComponents == Columns.Type {
    /// The `Columns` type.
    public static var databaseComponents: DatabaseComponents { Columns.self }
}

extension TableRecord {
    /// The type name with its leading capitals lowercased.
    public static var databaseTableName: String { DefaultTableNames.shared.name(for: Self.self) }

    /// Every column: `[.allColumns]`.
    public static var databaseSelection: [any SQLSelectable] { [AllColumns()] }

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

    /// The relation of all rows, selecting ``databaseSelection``.
    static var relationForAll: SQLRelation {
        SQLRelation.all(fromTable: databaseTableName) { _ in databaseSelection.map(\.sqlSelection) }
    }

    /// Every row of the table.
    public static func all() -> QueryInterfaceRequest<Self> { QueryInterfaceRequest(relation: relationForAll) }

    /// No row.
    public static func none() -> QueryInterfaceRequest<Self> { all().none() }

    /// The number of columns ``databaseSelection`` selects.
    public static func numberOfSelectedColumns(_ db: Database) throws -> Int {
        let alias = TableAlias(tableName: databaseTableName)
        return try databaseSelection.map { $0.sqlSelection.qualified(with: alias) }.columnCount(SQLGenerationContext(db))
    }

    // MARK: Requests

    /// Selects these columns or expressions.
    public static func select(_ selection: any SQLSelectable...) -> QueryInterfaceRequest<Self> { all().select(selection) }
    /// Selects these columns or expressions.
    public static func select(_ selection: [any SQLSelectable]) -> QueryInterfaceRequest<Self> { all().select(selection) }
    /// Selects from the record's columns.
    public static func select(_ selection: (DatabaseComponents) throws -> any SQLSelectable) rethrows -> QueryInterfaceRequest<Self> {
        try all().select(selection(databaseComponents))
    }
    /// Selects from the record's columns.
    public static func select(_ selection: (DatabaseComponents) throws -> [any SQLSelectable]) rethrows -> QueryInterfaceRequest<Self> {
        try all().select(selection(databaseComponents))
    }
    /// Selects raw SQL.
    public static func select(sql: String, arguments: StatementArguments = StatementArguments()) -> QueryInterfaceRequest<Self> {
        all().select(sql: sql, arguments: arguments)
    }
    /// Selects an SQL literal.
    public static func select(literal sqlLiteral: SQL) -> QueryInterfaceRequest<Self> { all().select(literal: sqlLiteral) }
    /// Selects, and decodes rows into another type.
    public static func select<T>(_ selection: any SQLSelectable..., as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        all().select(selection, as: type)
    }
    /// Selects, and decodes rows into another type.
    public static func select<T>(_ selection: [any SQLSelectable], as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        all().select(selection, as: type)
    }
    /// Selects from the record's columns, and decodes into another type.
    public static func select<T>(_ selection: (DatabaseComponents) throws -> any SQLSelectable,
                                 as type: T.Type = T.self) rethrows -> QueryInterfaceRequest<T> {
        try all().select(selection(databaseComponents), as: type)
    }
    /// Selects raw SQL, and decodes into another type.
    public static func select<T>(sql: String, arguments: StatementArguments = StatementArguments(),
                                 as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        all().select(sql: sql, arguments: arguments, as: type)
    }
    /// Selects an SQL literal, and decodes into another type.
    public static func select<T>(literal sqlLiteral: SQL, as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        all().select(literal: sqlLiteral, as: type)
    }
    /// Selects the primary key.
    public static func selectPrimaryKey<PrimaryKey>(as type: PrimaryKey.Type = PrimaryKey.self) -> QueryInterfaceRequest<PrimaryKey> {
        all().selectPrimaryKey(as: type)
    }
    /// Adds to the selection.
    public static func annotated(with selection: [any SQLSelectable]) -> QueryInterfaceRequest<Self> { all().annotated(with: selection) }
    /// Adds to the selection.
    public static func annotated(with selection: any SQLSelectable...) -> QueryInterfaceRequest<Self> { all().annotated(with: selection) }
    /// Adds to the selection from the record's columns.
    public static func annotated(with selection: (DatabaseComponents) throws -> any SQLSelectable) rethrows -> QueryInterfaceRequest<Self> {
        try all().annotated(with: selection(databaseComponents))
    }
    /// Adds to the selection from the record's columns.
    public static func annotated(with selection: (DatabaseComponents) throws -> [any SQLSelectable]) rethrows -> QueryInterfaceRequest<Self> {
        try all().annotated(with: selection(databaseComponents))
    }
    /// Keeps the rows that satisfy `predicate`.
    public static func filter(_ predicate: some SQLSpecificExpressible) -> QueryInterfaceRequest<Self> { all().filter(predicate) }
    /// Filters on the record's columns.
    public static func filter(_ predicate: (DatabaseComponents) throws -> any SQLSpecificExpressible) rethrows -> QueryInterfaceRequest<Self> {
        let predicate = try predicate(databaseComponents).sqlExpression
        return all().filter(predicate)
    }
    /// The row with this primary key.
    public static func filter(key: some DatabaseValueConvertible) -> QueryInterfaceRequest<Self> { all().filter(key: key) }
    /// The rows with these primary keys.
    public static func filter<Keys: Collection>(keys: Keys) -> QueryInterfaceRequest<Self> where Keys.Element: DatabaseValueConvertible {
        all().filter(keys: keys)
    }
    /// The row with these column values.
    public static func filter(key: [String: (any DatabaseValueConvertible)?]?) -> QueryInterfaceRequest<Self> { all().filter(key: key) }
    /// The rows with these column values.
    public static func filter(keys: [[String: (any DatabaseValueConvertible)?]]) -> QueryInterfaceRequest<Self> { all().filter(keys: keys) }
    /// Filters with raw SQL.
    public static func filter(sql: String, arguments: StatementArguments = StatementArguments()) -> QueryInterfaceRequest<Self> {
        all().filter(sql: sql, arguments: arguments)
    }
    /// Filters with an SQL literal.
    public static func filter(literal sqlLiteral: SQL) -> QueryInterfaceRequest<Self> { all().filter(literal: sqlLiteral) }
    /// Orders the rows.
    public static func order(_ orderings: any SQLOrderingTerm...) -> QueryInterfaceRequest<Self> { all().order(orderings) }
    /// Orders the rows.
    public static func order(_ orderings: [any SQLOrderingTerm]) -> QueryInterfaceRequest<Self> { all().order(orderings) }
    /// Orders by the record's columns: `Player.order { $0.score.desc }`.
    public static func order(_ ordering: (DatabaseComponents) throws -> any SQLOrderingTerm) rethrows -> QueryInterfaceRequest<Self> {
        try all().order(ordering(databaseComponents))
    }
    /// Orders by the record's columns: `Player.order { [$0.score.desc, $0.name] }`.
    public static func order(_ orderings: (DatabaseComponents) throws -> [any SQLOrderingTerm]) rethrows -> QueryInterfaceRequest<Self> {
        try all().order(orderings(databaseComponents))
    }
    /// Orders by primary key.
    public static func orderByPrimaryKey() -> QueryInterfaceRequest<Self> { all().orderByPrimaryKey() }
    /// Orders with raw SQL.
    public static func order(sql: String, arguments: StatementArguments = StatementArguments()) -> QueryInterfaceRequest<Self> {
        all().order(sql: sql, arguments: arguments)
    }
    /// Orders with an SQL literal.
    public static func order(literal sqlLiteral: SQL) -> QueryInterfaceRequest<Self> { all().order(literal: sqlLiteral) }
    /// `LIMIT limit OFFSET offset`.
    public static func limit(_ limit: Int, offset: Int? = nil) -> QueryInterfaceRequest<Self> { all().limit(limit, offset: offset) }
    /// `GROUP BY`.
    public static func group(_ expressions: any SQLExpressible...) -> QueryInterfaceRequest<Self> { all().group(expressions) }
    /// The table under an alias.
    public static func aliased(_ alias: TableAlias<Void>) -> QueryInterfaceRequest<Self> { all().aliased(alias) }
    /// The table under an alias.
    public static func aliased(_ alias: TableAlias<Self>) -> QueryInterfaceRequest<Self> { all().aliased(alias) }
    /// Embeds a common table expression.
    public static func with<T>(_ cte: CommonTableExpression<T>) -> QueryInterfaceRequest<Self> { all().with(cte) }

    // MARK: Counting and changing rows

    /// The number of rows in the table.
    public static func fetchCount(_ db: Database) throws -> Int { try all().fetchCount(db) }

    /// Deletes every row; returns how many.
    @discardableResult
    public static func deleteAll(_ db: Database) throws -> Int { try all().deleteAll(db) }

    /// Updates every row; returns how many.
    @discardableResult
    public static func updateAll(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
                                 _ assignments: ColumnAssignment...) throws -> Int {
        try all().updateAll(db, onConflict: conflictResolution, assignments)
    }

    /// Updates every row; returns how many.
    @discardableResult
    public static func updateAll(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
                                 _ assignments: [ColumnAssignment]) throws -> Int {
        try all().updateAll(db, onConflict: conflictResolution, assignments)
    }

    /// Updates every row with an assignment of the record's columns:
    /// `Player.updateAll(db) { $0.score.set(to: 0) }`.
    @discardableResult
    public static func updateAll(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
                                 assignment: (DatabaseComponents) throws -> ColumnAssignment) throws -> Int {
        try updateAll(db, onConflict: conflictResolution, [assignment(databaseComponents)])
    }

    /// Updates every row with assignments of the record's columns.
    @discardableResult
    public static func updateAll(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
                                 assignments: (DatabaseComponents) throws -> [ColumnAssignment]) throws -> Int {
        try updateAll(db, onConflict: conflictResolution, assignments(databaseComponents))
    }

    /// True if a row has this primary key.
    public static func exists(_ db: Database, key: some DatabaseValueConvertible) throws -> Bool {
        try all().exists(db, key: key)
    }

    /// True if a row has these unique key values.
    public static func exists(_ db: Database, key: [String: (any DatabaseValueConvertible)?]) throws -> Bool {
        try all().exists(db, key: key)
    }

    /// Deletes the row with this primary key; returns whether there was one.
    @discardableResult
    public static func deleteOne(_ db: Database, key: some DatabaseValueConvertible) throws -> Bool {
        try all().deleteOne(db, key: key)
    }

    /// Deletes the rows with these primary keys; returns how many.
    @discardableResult
    public static func deleteAll(_ db: Database, keys: some Collection<some DatabaseValueConvertible>) throws -> Int {
        try all().deleteAll(db, keys: keys)
    }

    /// Deletes the row with these unique key values; returns whether there
    /// was one.
    @discardableResult
    public static func deleteOne(_ db: Database, key: [String: (any DatabaseValueConvertible)?]) throws -> Bool {
        try all().deleteOne(db, key: key)
    }

    /// Deletes the rows with these unique key values; returns how many.
    @discardableResult
    public static func deleteAll(_ db: Database, keys: [[String: (any DatabaseValueConvertible)?]]) throws -> Int {
        try all().deleteAll(db, keys: keys)
    }
}

extension TableRecord where Self: Identifiable, ID: DatabaseValueConvertible {
    /// The record with this id.
    public static func filter(id: ID) -> QueryInterfaceRequest<Self> { all().filter(id: id) }
    /// The records with these ids.
    public static func filter(ids: some Collection<ID>) -> QueryInterfaceRequest<Self> { all().filter(ids: ids) }
    /// Selects the ids.
    public static func selectID() -> QueryInterfaceRequest<ID> { all().selectID() }
    /// True if a record has this id.
    public static func exists(_ db: Database, id: ID) throws -> Bool { try exists(db, key: id) }
    /// Deletes the record with this id; returns whether there was one.
    @discardableResult
    public static func deleteOne(_ db: Database, id: ID) throws -> Bool { try deleteOne(db, key: id) }
    /// Deletes the records with these ids; returns how many.
    @discardableResult
    public static func deleteAll(_ db: Database, ids: some Collection<ID>) throws -> Int { try deleteAll(db, keys: ids) }
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
