// Operators and functions that build SQL expressions.
//
// Each operator needs a column or an expression (SQLSpecificExpressible) on
// at least one side, so that comparing plain values (`name == "wal"`) keeps
// meaning Bool. Three overloads per operator avoid ambiguity.

private func binary(_ op: String, _ lhs: some SQLExpressible, _ rhs: some SQLExpressible) -> SQLExpression {
    SQLExpression(.binary(op, lhs.sqlExpression.node, rhs.sqlExpression.node))
}

private func nullComparison(_ op: String, _ expression: some SQLExpressible) -> SQLExpression {
    SQLExpression(.binary(op, expression.sqlExpression.node, .literal("NULL", [])))
}

// MARK: Comparison and arithmetic

public func == (lhs: some SQLSpecificExpressible, rhs: some SQLExpressible) -> SQLExpression { binary("=", lhs, rhs) }
public func == (lhs: some SQLExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { binary("=", lhs, rhs) }
public func == (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { binary("=", lhs, rhs) }

public func != (lhs: some SQLSpecificExpressible, rhs: some SQLExpressible) -> SQLExpression { binary("<>", lhs, rhs) }
public func != (lhs: some SQLExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { binary("<>", lhs, rhs) }
public func != (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { binary("<>", lhs, rhs) }

public func < (lhs: some SQLSpecificExpressible, rhs: some SQLExpressible) -> SQLExpression { binary("<", lhs, rhs) }
public func < (lhs: some SQLExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { binary("<", lhs, rhs) }
public func < (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { binary("<", lhs, rhs) }

public func <= (lhs: some SQLSpecificExpressible, rhs: some SQLExpressible) -> SQLExpression { binary("<=", lhs, rhs) }
public func <= (lhs: some SQLExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { binary("<=", lhs, rhs) }
public func <= (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { binary("<=", lhs, rhs) }

public func > (lhs: some SQLSpecificExpressible, rhs: some SQLExpressible) -> SQLExpression { binary(">", lhs, rhs) }
public func > (lhs: some SQLExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { binary(">", lhs, rhs) }
public func > (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { binary(">", lhs, rhs) }

public func >= (lhs: some SQLSpecificExpressible, rhs: some SQLExpressible) -> SQLExpression { binary(">=", lhs, rhs) }
public func >= (lhs: some SQLExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { binary(">=", lhs, rhs) }
public func >= (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { binary(">=", lhs, rhs) }

public func + (lhs: some SQLSpecificExpressible, rhs: some SQLExpressible) -> SQLExpression { binary("+", lhs, rhs) }
public func + (lhs: some SQLExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { binary("+", lhs, rhs) }
public func + (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { binary("+", lhs, rhs) }

public func - (lhs: some SQLSpecificExpressible, rhs: some SQLExpressible) -> SQLExpression { binary("-", lhs, rhs) }
public func - (lhs: some SQLExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { binary("-", lhs, rhs) }
public func - (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { binary("-", lhs, rhs) }

public func * (lhs: some SQLSpecificExpressible, rhs: some SQLExpressible) -> SQLExpression { binary("*", lhs, rhs) }
public func * (lhs: some SQLExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { binary("*", lhs, rhs) }
public func * (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { binary("*", lhs, rhs) }

public func / (lhs: some SQLSpecificExpressible, rhs: some SQLExpressible) -> SQLExpression { binary("/", lhs, rhs) }
public func / (lhs: some SQLExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { binary("/", lhs, rhs) }
public func / (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { binary("/", lhs, rhs) }

/// `Column("a") == nil` is `"a" IS NULL`.
public func == (lhs: some SQLSpecificExpressible, rhs: _OptionalNilComparisonType) -> SQLExpression { nullComparison("IS", lhs) }
/// `Column("a") != nil` is `"a" IS NOT NULL`.
public func != (lhs: some SQLSpecificExpressible, rhs: _OptionalNilComparisonType) -> SQLExpression { nullComparison("IS NOT", lhs) }
public prefix func - (expression: some SQLSpecificExpressible) -> SQLExpression { SQLExpression(.negative(expression.sqlExpression.node)) }

// MARK: Logic

public func && (lhs: some SQLSpecificExpressible, rhs: some SQLExpressible) -> SQLExpression { logical("AND", lhs, rhs) }
public func && (lhs: some SQLExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { logical("AND", lhs, rhs) }
public func && (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { logical("AND", lhs, rhs) }
public func || (lhs: some SQLSpecificExpressible, rhs: some SQLExpressible) -> SQLExpression { logical("OR", lhs, rhs) }
public func || (lhs: some SQLExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { logical("OR", lhs, rhs) }
public func || (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { logical("OR", lhs, rhs) }
public prefix func ! (expression: some SQLSpecificExpressible) -> SQLExpression { expression.sqlExpression.negated }

/// `a AND b AND c` stays flat.
private func logical(_ op: String, _ lhs: some SQLExpressible, _ rhs: some SQLExpressible) -> SQLExpression {
    func operands(_ node: SQLExpression.Node) -> [SQLExpression.Node] {
        if case let .associative(nodeOp, nodes) = node, nodeOp == op { return nodes }
        return [node]
    }
    return SQLExpression(.associative(op, operands(lhs.sqlExpression.node) + operands(rhs.sqlExpression.node)))
}

// MARK: Methods

extension SQLSpecificExpressible {
    /// `"name" LIKE ?`.
    public func like(_ pattern: some SQLExpressible) -> SQLExpression { binary("LIKE", self, pattern) }

    /// The expression with a collation: `Column("name").collating(.nocase) == "arthur"`.
    public func collating(_ collation: Database.CollationName) -> SQLExpression {
        SQLExpression(.collated(sqlExpression.node, collation.rawValue))
    }

    /// `"a" BETWEEN ? AND ?`.
    public func between(_ low: some SQLExpressible, and high: some SQLExpressible) -> SQLExpression {
        SQLExpression(.between(sqlExpression.node, low.sqlExpression.node, high.sqlExpression.node, negated: false))
    }

    /// Ascending order.
    public var asc: SQLOrdering { SQLOrdering(expression: sqlExpression, direction: .ascending) }
    /// Descending order.
    public var desc: SQLOrdering { SQLOrdering(expression: sqlExpression, direction: .descending) }

    /// The expression selected under a name: `SELECT ... AS "name"`.
    public func forKey(_ key: String) -> SQLSelection { SQLSelection(.aliased(sqlExpression, key)) }
}

extension Sequence where Element: SQLExpressible {
    /// `[1, 2, 3].contains(Column("id"))` is `"id" IN (1, 2, 3)`; one value
    /// is `"id" = 1`, none is false.
    public func contains(_ element: some SQLSpecificExpressible) -> SQLExpression {
        let nodes = map { $0.sqlExpression.node }
        switch nodes.count {
        case 0: return .alwaysFalse
        case 1: return SQLExpression(.binary("=", element.sqlExpression.node, nodes[0]))
        default: return SQLExpression(.inList(element.sqlExpression.node, nodes, negated: false))
        }
    }
}

extension Range where Bound: SQLExpressible {
    /// `(1..<10).contains(Column("a"))` is `("a" >= 1) AND ("a" < 10)`.
    public func contains(_ element: some SQLSpecificExpressible) -> SQLExpression {
        (element >= lowerBound) && (element < upperBound)
    }
}

extension ClosedRange where Bound: SQLExpressible {
    /// `(1...10).contains(Column("a"))` is `"a" BETWEEN 1 AND 10`.
    public func contains(_ element: some SQLSpecificExpressible) -> SQLExpression {
        element.between(lowerBound, and: upperBound)
    }
}

// MARK: Aggregates

/// `COUNT("a")`.
public func count(_ expression: some SQLSpecificExpressible) -> SQLExpression { SQLExpression(.function("COUNT", [expression.sqlExpression.node])) }
/// `COUNT(DISTINCT "a")`.
public func count(distinct expression: some SQLSpecificExpressible) -> SQLExpression { SQLExpression(.distinctFunction("COUNT", expression.sqlExpression.node)) }
/// `SUM("a")`.
public func sum(_ expression: some SQLSpecificExpressible) -> SQLExpression { SQLExpression(.function("SUM", [expression.sqlExpression.node])) }
/// `MIN("a")`.
public func min(_ expression: some SQLSpecificExpressible) -> SQLExpression { SQLExpression(.function("MIN", [expression.sqlExpression.node])) }
/// `MAX("a")`.
public func max(_ expression: some SQLSpecificExpressible) -> SQLExpression { SQLExpression(.function("MAX", [expression.sqlExpression.node])) }
/// `AVG("a")`.
public func average(_ expression: some SQLSpecificExpressible) -> SQLExpression { SQLExpression(.function("AVG", [expression.sqlExpression.node])) }
/// `IFNULL(a, b)`.
public func ifNull(_ expression: some SQLSpecificExpressible, _ replacement: some SQLExpressible) -> SQLExpression {
    SQLExpression(.function("IFNULL", [expression.sqlExpression.node, replacement.sqlExpression.node]))
}

extension Database {
    /// A collation name: `.binary`, `.nocase`, `.rtrim`.
    public struct CollationName: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let binary = CollationName(rawValue: "BINARY")
        public static let nocase = CollationName(rawValue: "NOCASE")
        public static let rtrim = CollationName(rawValue: "RTRIM")
    }
}
