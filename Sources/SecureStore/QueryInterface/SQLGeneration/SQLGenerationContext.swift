import Foundation
internal import OrderedCollections

/// What SQL generation needs while it writes one statement: the database
/// (for primary keys and columns), the arguments collected so far, and the
/// names given to the table aliases in scope.
///
/// Aliases get their names only here, once the whole request is known:
/// a table joined twice becomes `"player1"` and `"player2"`, one that is
/// alone keeps its table name and needs no alias at all. A subquery gets a
/// child context, which sees the aliases of the queries around it.
final class SQLGenerationContext {
    let db: Database
    private let sink: ArgumentSink
    private let parent: SQLGenerationContext?
    private let names: [TableAliasBase: String]
    private let ownAliases: Set<TableAliasBase>
    private let ctes: [String: SQLCTE]

    /// Values are bound as `?` (or written as SQL literals with
    /// `inlinesValues`, for the schema, where SQLite takes no arguments).
    init(_ db: Database, inlinesValues: Bool = false, aliases: [TableAliasBase] = [],
         ctes: OrderedDictionary<String, SQLCTE> = [:]) {
        self.db = db
        self.sink = ArgumentSink(inlinesValues: inlinesValues)
        self.parent = nil
        self.names = aliases.resolvedNames
        self.ownAliases = Set(aliases)
        self.ctes = Dictionary(ctes.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
    }

    private init(parent: SQLGenerationContext, aliases: [TableAliasBase], ctes: OrderedDictionary<String, SQLCTE>) {
        self.db = parent.db
        self.sink = parent.sink
        self.parent = parent
        self.names = aliases.resolvedNames
        self.ownAliases = Set(aliases)
        self.ctes = Dictionary(ctes.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
    }

    /// The context of a subquery: its own aliases, the arguments shared.
    func subqueryContext(aliases: [TableAliasBase] = [], ctes: OrderedDictionary<String, SQLCTE> = [:]) -> SQLGenerationContext {
        SQLGenerationContext(parent: self, aliases: aliases, ctes: ctes)
    }

    /// The arguments collected so far.
    var arguments: StatementArguments { sink.arguments }

    /// Adds arguments; false when values must be inlined instead.
    func append(arguments: StatementArguments) -> Bool { sink.append(arguments) }

    /// `?` for a value (the value becomes an argument), `NULL` for NULL, or
    /// the value as an SQL literal when values are inlined.
    func placeholder(for value: DatabaseValue) throws -> String {
        if value.isNull { return "NULL" }
        if sink.append(StatementArguments(values: [value])) { return "?" }
        // SQLite quotes an integer as its decimal digits; other values as
        // SQLite itself writes them.
        if case .int64(let integer) = value.storage { return String(integer) }
        return try String.fetchOne(db, sql: "SELECT QUOTE(?)", arguments: [value]) ?? "NULL"
    }

    /// The qualifier of a column of `alias`: nil when the statement has
    /// one table and the alias has no name of its own.
    func qualifier(for alias: TableAliasBase) -> String? {
        if alias.hasUserName { return alias.identityName }
        if !ownAliases.contains(alias) || ownAliases.count > 1 { return resolvedName(for: alias) }
        return nil
    }

    /// The name of an alias in the statement.
    func resolvedName(for alias: TableAliasBase) -> String {
        if let name = names[alias] { return name }
        return parent?.resolvedName(for: alias) ?? alias.identityName
    }

    /// The alias written after a table name, when it differs from it.
    func aliasName(for alias: TableAliasBase) -> String? {
        let name = resolvedName(for: alias)
        return name == alias.tableName ? nil : name
    }

    /// The number of columns of a table or common table expression.
    func columnCount(in table: String, excluding excluded: Set<String> = []) throws -> Int {
        if let cte = ctes[table.lowercased()] { return try cte.columnCount(db) }
        if let parent { return try parent.columnCount(in: table, excluding: excluded) }
        return try db.columns(in: table).filter { !excluded.contains($0.name.lowercased()) }.count
    }

    /// The column names of a table.
    func columnNames(in table: String) throws -> [String] {
        if let cte = ctes[table.lowercased()] { return try cte.columnNames(db) }
        if let parent { return try parent.columnNames(in: table) }
        return try db.columns(in: table).map(\.name)
    }
}

/// The arguments of one statement, shared by its subqueries.
private final class ArgumentSink {
    private(set) var arguments = StatementArguments()
    let inlinesValues: Bool

    init(inlinesValues: Bool) { self.inlinesValues = inlinesValues }

    func append(_ more: StatementArguments) -> Bool {
        if more.isEmpty { return true }
        if inlinesValues { return false }
        arguments.append(contentsOf: more)
        return true
    }
}

extension [TableAliasBase] {
    /// Names for aliases whose names clash (ignoring case): `player1`,
    /// `player2`... An alias with a name given by the user keeps it.
    fileprivate var resolvedNames: [TableAliasBase: String] {
        let groups = Dictionary(grouping: self) { $0.identityName.lowercased() }
        var taken = Set(groups.filter { $0.value.count == 1 }.keys)
        var names: [TableAliasBase: String] = [:]
        // Groups in the order their first alias appears: names are stable.
        let clashing = groups.values.filter { $0.count > 1 }
            .sorted { lhs, rhs in (firstIndex(of: lhs[0]) ?? 0) < (firstIndex(of: rhs[0]) ?? 0) }
        for group in clashing {
            var counter = 1
            for alias in group where !alias.hasUserName {
                let radical = alias.identityName.digitlessRadical
                var name: String
                repeat {
                    name = "\(radical)\(counter)"
                    counter += 1
                } while taken.contains(name.lowercased())
                taken.insert(name.lowercased())
                names[alias] = name
            }
        }
        return names
    }
}
