/// An SQL expression: a value, a column, an operation. Values are always
/// bound as statement arguments, never spliced into SQL text.
///
/// ```swift
/// let condition = Column("score") > 1000 && Column("name") != nil
/// let players = try Player.filter(condition).fetchAll(db)
/// ```
public struct SQLExpression: Sendable {
    indirect enum Node: Sendable {
        case value(DatabaseValue)
        case column(String)
        case rowID
        case literal(String, [DatabaseValue])
        case not(Node)
        case negative(Node)
        case binary(String, Node, Node)
        case associative(String, [Node])
        case inList(Node, [Node], negated: Bool)
        case between(Node, Node, Node, negated: Bool)
        case collated(Node, String)
        case function(String, [Node])
        case distinctFunction(String, Node)
        case countAll

        var isAlwaysTrue: Bool {
            if case .literal("1", []) = self { return true }
            return false
        }
    }

    let node: Node

    init(_ node: Node) { self.node = node }

    /// Raw SQL, with `?` arguments: `SQLExpression(sql: "score + ?", arguments: [1])`.
    public init(sql: String, arguments: StatementArguments = StatementArguments()) {
        node = .literal(sql, arguments.values)
    }

    /// Renders SQL, appending bound values to `arguments`.
    func sql(_ arguments: inout [DatabaseValue]) -> String {
        Self.render(node, wrapped: false, &arguments)
    }

    /// `wrapped`: the expression is an operand, and a compound one needs
    /// parentheses.
    private static func render(_ node: Node, wrapped: Bool, _ arguments: inout [DatabaseValue]) -> String {
        func parenthesized(_ sql: String) -> String { wrapped ? "(\(sql))" : sql }
        switch node {
        case .value(let value):
            arguments.append(value)
            return "?"
        case .column(let name):
            return name.quotedDatabaseIdentifier
        case .rowID:
            return "rowid"
        case let .literal(sql, values):
            arguments.append(contentsOf: values)
            return values.isEmpty && !sql.contains(" ") ? sql : parenthesized(sql)
        case .not(let operand):
            return parenthesized("NOT \(render(operand, wrapped: true, &arguments))")
        case .negative(let operand):
            return "-" + render(operand, wrapped: true, &arguments)
        case let .binary(op, .collated(lhs, collation), rhs):
            // GRDB puts the collation of a comparison at its end:
            // "name" = ? COLLATE NOCASE
            let left = render(lhs, wrapped: true, &arguments)
            let right = render(rhs, wrapped: true, &arguments)
            return parenthesized("\(left) \(op) \(right) COLLATE \(collation)")
        case let .binary(op, lhs, rhs):
            let left = render(lhs, wrapped: true, &arguments)
            let right = render(rhs, wrapped: true, &arguments)
            return parenthesized("\(left) \(op) \(right)")
        case let .associative(op, operands):
            if operands.count == 1 { return render(operands[0], wrapped: wrapped, &arguments) }
            let parts = operands.map { render($0, wrapped: true, &arguments) }
            return parenthesized(parts.joined(separator: " \(op) "))
        case let .inList(operand, list, negated):
            let left = render(operand, wrapped: true, &arguments)
            let items = list.map { render($0, wrapped: false, &arguments) }.joined(separator: ", ")
            return parenthesized("\(left) \(negated ? "NOT IN" : "IN") (\(items))")
        case let .between(.collated(operand, collation), low, high, negated):
            let value = render(operand, wrapped: true, &arguments)
            let lower = render(low, wrapped: true, &arguments)
            let upper = render(high, wrapped: true, &arguments)
            return parenthesized("\(value) \(negated ? "NOT BETWEEN" : "BETWEEN") \(lower) AND \(upper) COLLATE \(collation)")
        case let .between(operand, low, high, negated):
            let value = render(operand, wrapped: true, &arguments)
            let lower = render(low, wrapped: true, &arguments)
            let upper = render(high, wrapped: true, &arguments)
            return parenthesized("\(value) \(negated ? "NOT BETWEEN" : "BETWEEN") \(lower) AND \(upper)")
        case let .collated(operand, collation):
            return parenthesized("\(render(operand, wrapped: true, &arguments)) COLLATE \(collation)")
        case let .function(name, operands):
            return "\(name)(" + operands.map { render($0, wrapped: false, &arguments) }.joined(separator: ", ") + ")"
        case let .distinctFunction(name, operand):
            return "\(name)(DISTINCT \(render(operand, wrapped: false, &arguments)))"
        case .countAll:
            return "COUNT(*)"
        }
    }

    /// The logical negation, simplified as GRDB does: `NOT (a = b)` is
    /// `a <> b`, `NOT (a IN ...)` is `a NOT IN ...`.
    var negated: SQLExpression {
        switch node {
        case let .binary("=", lhs, rhs): return SQLExpression(.binary("<>", lhs, rhs))
        case let .binary("<>", lhs, rhs): return SQLExpression(.binary("=", lhs, rhs))
        case let .binary("IS", lhs, rhs): return SQLExpression(.binary("IS NOT", lhs, rhs))
        case let .binary("IS NOT", lhs, rhs): return SQLExpression(.binary("IS", lhs, rhs))
        case let .inList(operand, list, negated): return SQLExpression(.inList(operand, list, negated: !negated))
        case let .between(operand, low, high, negated): return SQLExpression(.between(operand, low, high, negated: !negated))
        case .not(let operand): return SQLExpression(operand)
        case .value(let value) where value == 0.databaseValue: return SQLExpression(.literal("1", []))
        case .literal("0", []): return SQLExpression(.literal("1", []))
        case .literal("1", []): return SQLExpression(.literal("0", []))
        default: return SQLExpression(.not(node))
        }
    }

    static let alwaysFalse = SQLExpression(.literal("0", []))
    static let alwaysTrue = SQLExpression(.literal("1", []))
}

/// A type that can be used as an SQL expression: columns, values,
/// expressions.
public protocol SQLExpressible {
    var sqlExpression: SQLExpression { get }
}

/// A column or an expression, as opposed to a plain value: the operands
/// that make `==`, `<`, `&&`... build SQL instead of comparing values.
public protocol SQLSpecificExpressible: SQLExpressible {}

extension SQLExpression: SQLSpecificExpressible {
    public var sqlExpression: SQLExpression { self }
}

extension DatabaseValueConvertible {
    /// A value is an expression: it is bound as an argument.
    public var sqlExpression: SQLExpression { SQLExpression(.value(databaseValue)) }
}

/// A column of a table.
///
/// ```swift
/// let name = Column("name")
/// let request = Player.filter(name == "Arthur").order(name)
/// ```
/// Not Equatable on purpose: `Column("a") == Column("b")` must build SQL,
/// not compare two column names.
public struct Column: SQLSpecificExpressible, Sendable {
    /// The column's name.
    public let name: String

    public init(_ name: String) { self.name = name }

    /// The hidden `rowid` column.
    public static let rowID = Column(rowIDMarker)
    static let rowIDMarker = "\u{0}rowid"

    public var sqlExpression: SQLExpression {
        name == Column.rowIDMarker ? SQLExpression(.rowID) : SQLExpression(.column(name))
    }
}
