/// An SQL literal: SQL text with bound values, and expressions, columns,
/// tables or subqueries that are turned into SQL only when a request runs.
///
/// Interpolated values are bound as arguments, never spliced into the text;
/// interpolated columns and tables are quoted:
///
/// ```swift
/// let name = "O'Brien"
/// let query: SQL = "SELECT * FROM \(Player.self) WHERE \(Column("name")) = \(name)"
/// // SELECT * FROM "player" WHERE "name" = ?    arguments: ["O'Brien"]
/// let players = try Player.fetchAll(db, query)
///
/// var sql = SQL(sql: "SELECT * FROM player WHERE score > ?", arguments: [1000])
/// sql += " ORDER BY name"
/// ```
///
/// ## Topics
///
/// ### Making
///
/// - ``init(sql:arguments:)``
/// - ``init(_:)``
/// - ``SQLInterpolation``
///
/// ### Combining
///
/// - ``+(_:_:)``
/// - ``append(sql:arguments:)``
/// - ``append(literal:)``
/// - ``Swift/Sequence/joined(separator:)``
///
/// ### Using
///
/// - ``build(_:)``
public struct SQL: Sendable {
    enum Element: Sendable {
        case sql(String, StatementArguments)
        case subquery(SQLSubquery)
        case expression(SQLExpression)
        case selection(SQLSelection)
        case ordering(SQLOrdering)

        var isEmpty: Bool {
            if case .sql(let text, _) = self { return text.isEmpty }
            return false
        }

        func sql(_ context: SQLGenerationContext) throws -> String {
            switch self {
            case let .sql(text, arguments):
                guard context.append(arguments: arguments) else {
                    throw DatabaseError(resultCode: .SQLITE_MISUSE,
                                        message: "an SQL literal with arguments cannot be used here: write its values in the SQL text")
                }
                return text
            case .subquery(let subquery): return try subquery.sql(context)
            case .expression(let expression): return try expression.sql(context)
            case .selection(let selection): return try selection.sql(context)
            case .ordering(let ordering): return try ordering.sql(context)
            }
        }

        func qualified(with alias: TableAliasBase) -> Element {
            switch self {
            case .sql, .subquery: return self
            case .expression(let expression): return .expression(expression.qualified(with: alias))
            case .selection(let selection): return .selection(selection.qualified(with: alias))
            case .ordering(let ordering): return .ordering(ordering.qualified(with: alias))
            }
        }
    }

    private(set) var elements: [Element]

    init(elements: [Element]) { self.elements = elements }

    /// Raw SQL, with `?` or `:name` arguments.
    public init(sql: String, arguments: StatementArguments = StatementArguments()) {
        self.init(elements: [.sql(sql, arguments)])
    }

    /// An expression, as a literal.
    public init(_ expression: some SQLSpecificExpressible) {
        self.init(elements: [.expression(expression.sqlExpression)])
    }

    /// True when the literal holds no SQL text.
    public var isEmpty: Bool { elements.allSatisfy(\.isEmpty) }

    /// The SQL text and its arguments, as they would be sent to SQLite.
    ///
    /// ```swift
    /// let (sql, arguments) = try SQL("\(Column("score")) > \(1000)").build(db)
    /// // "\"score\" > ?", [1000]
    /// ```
    public func build(_ db: Database) throws -> (sql: String, arguments: StatementArguments) {
        let context = SQLGenerationContext(db)
        let text = try sql(context)
        return (text, context.arguments)
    }

    func sql(_ context: SQLGenerationContext) throws -> String {
        try elements.map { try $0.sql(context) }.joined()
    }

    func qualified(with alias: TableAliasBase) -> SQL {
        SQL(elements: elements.map { $0.qualified(with: alias) })
    }

    /// Both literals, one after the other.
    public static func + (lhs: SQL, rhs: SQL) -> SQL {
        SQL(elements: lhs.elements + rhs.elements)
    }

    /// Appends a literal.
    public static func += (lhs: inout SQL, rhs: SQL) {
        lhs.elements += rhs.elements
    }

    /// Appends a literal.
    public mutating func append(literal: SQL) { self += literal }

    /// Appends raw SQL and its arguments.
    public mutating func append(sql: String, arguments: StatementArguments = StatementArguments()) {
        self += SQL(sql: sql, arguments: arguments)
    }
}

extension SQL: SQLSpecificExpressible {
    /// The literal as an expression; written in parentheses when it is an
    /// operand.
    public var sqlExpression: SQLExpression { .literal(self) }

    /// The literal as a selection, written as is.
    public var sqlSelection: SQLSelection { .literal(self) }

    /// The literal as an ordering, written as is.
    public var sqlOrdering: SQLOrdering { .literal(self) }
}

extension Sequence where Element == SQL {
    /// The literals, with `separator` between them.
    ///
    /// ```swift
    /// let columns: [SQL] = ["a", "b"]
    /// let list = columns.joined(separator: ", ")   // a, b
    /// ```
    public func joined(separator: String = "") -> SQL {
        var elements: [SQL.Element] = []
        for (index, literal) in enumerated() {
            if index > 0 && !separator.isEmpty { elements.append(.sql(separator, StatementArguments())) }
            elements += literal.elements
        }
        return SQL(elements: elements)
    }
}

extension SQL: ExpressibleByStringInterpolation {
    /// A literal without arguments.
    public init(stringLiteral value: String) { self.init(sql: value) }

    /// A literal with interpolated values, columns, tables and subqueries.
    public init(stringInterpolation: SQLInterpolation) { self.init(elements: stringInterpolation.elements) }
}
