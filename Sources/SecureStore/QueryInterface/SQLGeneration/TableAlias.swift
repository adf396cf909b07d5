/// The base class of ``TableAlias``: a name for one occurrence of a table
/// in a request, so that columns of joined tables can be told apart.
///
/// An alias may have a name given by the user (`TableAlias(name: "p")`),
/// or get one when the SQL is generated. Two aliases can merge when a
/// request and an association turn out to refer to the same table: the
/// first then becomes a proxy of the second.
///
/// `@unchecked Sendable`: an alias is set up (table name, merges) while a
/// request is built, on one thread; it is only read afterwards.
public class TableAliasBase: @unchecked Sendable {
    private enum State {
        case undefined(userName: String?)
        case table(tableName: String, userName: String?)
        case proxy(TableAliasBase)
    }

    private var state: State

    init(name: String? = nil) { state = .undefined(userName: name) }

    init(tableName: String, userName: String? = nil) { state = .table(tableName: tableName, userName: userName) }

    /// The alias at the end of the proxy chain.
    private var root: TableAliasBase {
        if case .proxy(let base) = state { return base.root }
        return self
    }

    /// The name the user gave, if any.
    private var userName: String? {
        switch state {
        case .undefined(let name), .table(_, let name): return name
        case .proxy(let base): return base.userName
        }
    }

    var hasUserName: Bool { userName != nil }

    /// The user's name, or the table's.
    var identityName: String { userName ?? tableName }

    /// The aliased table. An alias used before a table was given to it
    /// has none: using it in SQL is a programming error.
    var tableName: String {
        switch state {
        case .undefined: preconditionFailure("a TableAlias was used before it was given to a request")
        case .table(let tableName, _): return tableName
        case .proxy(let base): return base.tableName
        }
    }

    var hasTable: Bool {
        switch state {
        case .undefined: return false
        case .table: return true
        case .proxy(let base): return base.hasTable
        }
    }

    func setTableName(_ tableName: String) {
        switch state {
        case .undefined(let name): state = .table(tableName: tableName, userName: name)
        case .table(let current, _):
            precondition(current.lowercased() == tableName.lowercased(), "a TableAlias must not refer to two tables")
        case .proxy(let base): base.setTableName(tableName)
        }
    }

    private func setUserName(_ name: String) {
        switch state {
        case .undefined: state = .undefined(userName: name)
        case .table(let tableName, _): state = .table(tableName: tableName, userName: name)
        case .proxy(let base): base.setUserName(name)
        }
    }

    /// Makes this alias stand for `base` from now on.
    func becomeProxy(of base: TableAliasBase) {
        guard self !== base else { return }
        switch state {
        case .undefined(let name), .table(_, let name):
            if let name { base.setUserName(name) }
            state = .proxy(base)
        case .proxy(let current):
            current.becomeProxy(of: base)
        }
    }

    /// One alias for both, when they alias the same table with compatible
    /// names; nil otherwise.
    func merged(with other: TableAliasBase) -> TableAliasBase? {
        if self === other { return self }
        let (lhs, rhs) = (root, other.root)
        guard case let .table(lhsTable, lhsName) = lhs.state, case let .table(rhsTable, rhsName) = rhs.state,
              lhsTable == rhsTable else { return nil }
        if let lhsName, let rhsName, lhsName != rhsName { return nil }
        lhs.becomeProxy(of: rhs)
        return rhs
    }
}

extension TableAliasBase: Hashable {
    /// Aliases are equal when they end at the same alias.
    public static func == (lhs: TableAliasBase, rhs: TableAliasBase) -> Bool { lhs.root === rhs.root }

    /// Hashes the alias at the end of the proxy chain.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(root)) }
}

extension TableAliasBase {
    /// A selection qualified with this alias: `alias[Column("name")]` is
    /// `"alias"."name"`.
    public subscript(_ selectable: some SQLSelectable) -> SQLSelection {
        selectable.sqlSelection.qualified(with: self)
    }

    /// An expression qualified with this alias.
    public subscript(_ expression: some SQLSpecificExpressible & SQLSelectable & SQLOrderingTerm) -> SQLExpression {
        expression.sqlExpression.qualified(with: self)
    }

    /// A JSON expression (a ``JSONColumn``) qualified with this alias: the
    /// JSON operators apply to it (`alias[info]["score"]`).
    public subscript(_ expression: some SQLJSONExpressible & SQLSpecificExpressible & SQLSelectable & SQLOrderingTerm)
    -> AnySQLJSONExpressible {
        AnySQLJSONExpressible(sqlExpression: expression.sqlExpression.qualified(with: self)
            .withPreferredJSONInterpretation(.jsonValue))
    }

    /// An ordering qualified with this alias.
    public subscript(_ ordering: some SQLOrderingTerm) -> SQLOrdering {
        ordering.sqlOrdering.qualified(with: self)
    }

    /// A column of the aliased table.
    ///
    /// ```swift
    /// let author = TableAlias()
    /// let request = Book.joining(required: Book.author.aliased(author))
    ///     .filter(author["country"] == "FR")
    /// ```
    public subscript(_ column: String) -> SQLExpression {
        .qualifiedColumn(column, self)
    }
}

/// A name for one occurrence of a table in a request, to refer to its
/// columns from elsewhere in the request.
///
/// ```swift
/// let parent = TableAlias<Employee>()
/// let request = Employee
///     .joining(required: Employee.manager.aliased(parent))
///     .filter(Column("salary") > parent[Column("salary")])
/// ```
///
/// For a record type with a `Columns` enum, `alias.name` stands for
/// `alias[Record.Columns.name]`.
@dynamicMemberLookup
public final class TableAlias<RowDecoder>: TableAliasBase, @unchecked Sendable {
    init(tableName: String, userName: String? = nil) where RowDecoder == Void {
        super.init(tableName: tableName, userName: userName)
    }

    init(root: TableAliasBase) {
        super.init()
        becomeProxy(of: root)
    }

    /// An alias; with a name, SQL uses it as is (`"p"."name"`).
    public init(name: String? = nil) where RowDecoder == Void {
        super.init(name: name)
    }

    /// An alias for a record type's table.
    public init(name: String? = nil, for record: RowDecoder.Type = RowDecoder.self) {
        super.init(name: name)
    }

    /// True when a joined row exists: its primary key is not NULL.
    public var exists: SQLExpression { .qualifiedExists(self) }
}

extension TableAlias where RowDecoder: TableRecord {
    /// A column of the record's `Columns`, qualified with this alias.
    public subscript<T>(dynamicMember keyPath: KeyPath<RowDecoder.DatabaseComponents, T>) -> SQLExpression
    where T: SQLSpecificExpressible {
        self[RowDecoder.databaseComponents[keyPath: keyPath]]
    }

    /// A JSON column of the record's `Columns`, qualified with this alias.
    public subscript<T>(dynamicMember keyPath: KeyPath<RowDecoder.DatabaseComponents, T>) -> AnySQLJSONExpressible
    where T: SQLJSONExpressible & SQLSpecificExpressible & SQLSelectable & SQLOrderingTerm {
        self[RowDecoder.databaseComponents[keyPath: keyPath]]
    }
}
