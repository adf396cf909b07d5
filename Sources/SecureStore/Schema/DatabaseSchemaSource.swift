/// Schema information that SQLite does not give, supplied by the app: the
/// primary key of a view, so that views can be fetched by key, observed by
/// row and dumped in a stable order like tables.
///
/// ```swift
/// struct ViewKeys: DatabaseSchemaSource {
///     func columnsForPrimaryKey(_ db: Database, inView view: DatabaseObjectID) throws -> [String]? {
///         view.name == "playerName" ? ["id"] : nil
///     }
/// }
/// var config = Configuration()
/// config.schemaSource = ViewKeys()
/// ```
///
/// ## Topics
///
/// ### Answering
///
/// - ``columnsForPrimaryKey(_:inView:)``
/// - ``then(_:)``
public protocol DatabaseSchemaSource: Sendable {
    /// The columns of the primary key of a view, or nil when this source
    /// does not know it (``Database/primaryKey(_:in:)`` then throws, as for
    /// any view).
    func columnsForPrimaryKey(_ db: Database, inView view: DatabaseObjectID) throws -> [String]?
}

extension DatabaseSchemaSource {
    /// Knows no primary key of any view.
    public func columnsForPrimaryKey(_ db: Database, inView view: DatabaseObjectID) throws -> [String]? { nil }

    /// This source, and `other` for what this one does not know: the first
    /// answer that is not nil wins (answers are never merged).
    public func then(_ other: some DatabaseSchemaSource) -> some DatabaseSchemaSource {
        ChainedSchemaSource(first: self, second: other)
    }
}

private struct ChainedSchemaSource<First: DatabaseSchemaSource, Second: DatabaseSchemaSource>: DatabaseSchemaSource {
    var first: First
    var second: Second

    func columnsForPrimaryKey(_ db: Database, inView view: DatabaseObjectID) throws -> [String]? {
        try first.columnsForPrimaryKey(db, inView: view) ?? second.columnsForPrimaryKey(db, inView: view)
    }
}

/// A schema of a connection: `main`, `temp`, or an attached database.
public struct DatabaseSchemaID: Hashable, Sendable {
    /// The schema's name in SQL: `main`, `temp`, or the attached name.
    public var name: String

    /// The main database.
    public static let main = DatabaseSchemaID(name: "main")
    /// The temporary database.
    public static let temp = DatabaseSchemaID(name: "temp")

    /// An attached database.
    public static func attached(_ name: String) -> DatabaseSchemaID { DatabaseSchemaID(name: name) }

    private init(name: String) { self.name = name }
}

/// A table or view of a schema.
public struct DatabaseObjectID: Hashable, Sendable {
    /// The object's name.
    public var name: String
    /// The schema that holds it.
    public var schemaID: DatabaseSchemaID

    /// The object `name` of schema `schemaID`.
    public init(name: String, schemaID: DatabaseSchemaID) {
        self.name = name
        self.schemaID = schemaID
    }
}
