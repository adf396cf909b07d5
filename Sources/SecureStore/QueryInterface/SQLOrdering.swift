/// An ORDER BY term.
public struct SQLOrdering: Sendable {
    enum Direction: Sendable { case ascending, descending, unspecified }
    let expression: SQLExpression
    let direction: Direction

    var reversed: SQLOrdering {
        SQLOrdering(expression: expression, direction: direction == .descending ? .ascending : .descending)
    }

    func sql(_ arguments: inout [DatabaseValue]) -> String {
        let base = expression.sql(&arguments)
        switch direction {
        case .ascending: return base + " ASC"
        case .descending: return base + " DESC"
        case .unspecified: return base
        }
    }
}

/// A type usable in `order(...)`: columns, expressions, `.asc`/`.desc`.
public protocol SQLOrderingTerm {
    var sqlOrdering: SQLOrdering { get }
}

extension SQLOrdering: SQLOrderingTerm {
    public var sqlOrdering: SQLOrdering { self }
}

extension Column: SQLOrderingTerm {
    public var sqlOrdering: SQLOrdering { SQLOrdering(expression: sqlExpression, direction: .unspecified) }
}

extension SQLExpression: SQLOrderingTerm {
    public var sqlOrdering: SQLOrdering { SQLOrdering(expression: self, direction: .unspecified) }
}

/// A selected column or expression: `SELECT ...`.
public struct SQLSelection: Sendable {
    enum Node: Sendable {
        case allColumns
        case expression(SQLExpression)
        case aliased(SQLExpression, String)
    }
    let node: Node
    init(_ node: Node) { self.node = node }

    /// `*`.
    public static let allColumns = SQLSelection(.allColumns)

    func sql(_ arguments: inout [DatabaseValue]) -> String {
        switch node {
        case .allColumns: return "*"
        case .expression(let expression): return expression.sql(&arguments)
        case let .aliased(expression, name): return "\(expression.sql(&arguments)) AS \(name.quotedDatabaseIdentifier)"
        }
    }
}

/// A type usable in `select(...)`.
public protocol SQLSelectable {
    var sqlSelection: SQLSelection { get }
}

extension SQLSelection: SQLSelectable {
    public var sqlSelection: SQLSelection { self }
}

extension Column: SQLSelectable {
    public var sqlSelection: SQLSelection { SQLSelection(.expression(sqlExpression)) }
}

extension SQLExpression: SQLSelectable {
    public var sqlSelection: SQLSelection { SQLSelection(.expression(self)) }
}

extension SQLSelectable where Self == SQLSelection {
    /// `*`.
    public static var allColumns: SQLSelection { SQLSelection(.allColumns) }
}
