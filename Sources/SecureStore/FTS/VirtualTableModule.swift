/// A SQLite virtual table module, such as ``FTS4``: what
/// ``Database/create(virtualTable:options:using:_:)`` writes after
/// `USING`, and what it does once the table exists.
///
/// ## Topics
///
/// ### Describing the table
///
/// - ``moduleName``
/// - ``makeTableDefinition(configuration:)``
/// - ``moduleArguments(for:in:)``
/// - ``database(_:didCreate:using:)``
public protocol VirtualTableModule {
    /// What the closure of `create(virtualTable:)` configures.
    associatedtype TableDefinition

    /// The module's name in SQL: `fts4`.
    var moduleName: String { get }

    /// A new, empty definition for the closure to fill.
    func makeTableDefinition(configuration: VirtualTableConfiguration) -> TableDefinition

    /// The arguments between the parentheses after the module name.
    func moduleArguments(for definition: TableDefinition, in db: Database) throws -> [String]

    /// Runs after `CREATE VIRTUAL TABLE`, in the same transaction: the
    /// triggers of a synchronized full-text table, for example.
    func database(_ db: Database, didCreate tableName: String, using definition: TableDefinition) throws
}

/// How a virtual table is being created, for its module.
public struct VirtualTableConfiguration: Sendable {
    /// True with ``VirtualTableOptions/ifNotExists``.
    public var ifNotExists: Bool
    /// True with ``VirtualTableOptions/temporary``.
    public var temporary: Bool = false
}

/// Options of ``Database/create(virtualTable:options:using:_:)``.
public struct VirtualTableOptions: OptionSet, Sendable {
    /// The options' bits.
    public let rawValue: Int

    /// Options from their bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `IF NOT EXISTS`: no error when the table exists.
    public static let ifNotExists = VirtualTableOptions(rawValue: 1 << 0)
    /// A temporary table, in the `temp` schema.
    public static let temporary = VirtualTableOptions(rawValue: 1 << 1)
}

extension Database {
    /// Creates a virtual table: `CREATE VIRTUAL TABLE name USING module(...)`.
    ///
    /// ```swift
    /// try db.create(virtualTable: "book_ft", using: FTS4()) { t in
    ///     t.synchronize(withTable: "book")
    ///     t.column("title")
    /// }
    /// ```
    ///
    /// - parameters:
    ///   - name: the table's name.
    ///   - options: `IF NOT EXISTS`, temporary.
    ///   - module: the module, such as ``FTS4``.
    ///   - body: configures the module's table definition.
    public func create<Module: VirtualTableModule>(
        virtualTable name: String, options: VirtualTableOptions = [], using module: Module,
        _ body: ((Module.TableDefinition) throws -> Void)? = nil
    ) throws {
        let configuration = VirtualTableConfiguration(ifNotExists: options.contains(.ifNotExists),
                                                      temporary: options.contains(.temporary))
        let definition = module.makeTableDefinition(configuration: configuration)
        try body?(definition)
        var sql = "CREATE VIRTUAL TABLE "
        if options.contains(.ifNotExists) { sql += "IF NOT EXISTS " }
        if options.contains(.temporary) { sql += "temp." }
        sql += name.quotedDatabaseIdentifier + " USING " + module.moduleName
        let arguments = try module.moduleArguments(for: definition, in: self)
        if !arguments.isEmpty { sql += "(" + arguments.joined(separator: ", ") + ")" }
        try inSavepoint {
            try execute(sql: sql)
            try module.database(self, didCreate: name, using: definition)
            return .commit
        }
    }

    /// Creates a virtual table, `IF NOT EXISTS` when `ifNotExists` is true
    /// (the form of earlier GRDB releases).
    public func create<Module: VirtualTableModule>(
        virtualTable name: String, ifNotExists: Bool, using module: Module,
        _ body: ((Module.TableDefinition) throws -> Void)? = nil
    ) throws {
        try create(virtualTable: name, options: ifNotExists ? .ifNotExists : [], using: module, body)
    }
}
