/// An SQL expression: a value, a column, an operation, a function call, a
/// subquery, an SQL literal.
///
/// Expressions are built with operators and functions on columns, and only
/// turned into SQL when a request runs: values are always bound as
/// statement arguments, never spliced into the SQL text, and columns are
/// qualified with their table alias when a request joins tables.
///
/// ```swift
/// let condition = Column("score") > 1000 && Column("name") != nil
/// let players = try Player.filter(condition).fetchAll(db)
/// // SELECT * FROM "player" WHERE ("score" > ?) AND ("name" IS NOT NULL)
/// ```
///
/// ## Topics
///
/// ### Operators
///
/// - ``SQLSpecificExpressible/like(_:escape:)``
///
/// ### Functions
///
/// - ``abs(_:)->SQLExpression``
/// - ``length(_:)->SQLExpression``
/// - ``coalesce(_:)``
/// - ``count(_:)``
/// - ``min(_:filter:)``
/// - ``max(_:filter:)``
/// - ``sum(_:orderBy:filter:)``
/// - ``total(_:orderBy:filter:)``
/// - ``average(_:filter:)``
/// - ``cast(_:as:)->SQLExpression``
///
/// ### Combining
///
/// - ``Swift/Sequence/joined(operator:)-4nqkv``
public struct SQLExpression: Sendable {
    indirect enum Impl: Sendable {
        case column(String)
        case qualifiedColumn(String, TableAliasBase)
        case databaseValue(DatabaseValue)
        case rowValue([SQLExpression])
        case subquery(SQLSubquery)
        case literal(SQL)
        case cast(SQLExpression, String)
        case between(SQLExpression, SQLExpression, SQLExpression, isNegated: Bool)
        case binary(String, SQLExpression, SQLExpression)
        case like(SQLExpression, SQLExpression, escape: SQLExpression?, isNegated: Bool)
        case associative(AssociativeBinaryOperator, [SQLExpression])
        case exists(SQLSubquery, isNegated: Bool)
        case `in`(SQLExpression, SQLCollection, isNegated: Bool)
        case unary(String, SQLExpression)
        case compare(EqualityOperator, SQLExpression, SQLExpression)
        case not(SQLExpression)
        case collated(SQLExpression, Database.CollationName)
        case countAll
        case function(FunctionCall)
        case isEmpty(SQLExpression, isNegated: Bool)
        case fastPrimaryKey
        case qualifiedFastPrimaryKey(TableAliasBase)
        /// `table MATCH pattern`: the full-text match of a whole FTS table.
        case tableMatch(TableAliasBase, SQLExpression)
        case qualifiedExists(TableAliasBase, isNegated: Bool)
    }

    let impl: Impl

    /// How the expression goes into JSON functions: as SQLite takes it (a
    /// string is a JSON string), or as a JSON value (``JSONColumn``,
    /// ``SQLSpecificExpressible/asJSON``), which JSON builders such as
    /// `JSON_ARRAY` receive through `JSON()` or `JSONB()`.
    var preferredJSONInterpretation = JSONInterpretation.deferredToSQLite

    init(impl: Impl) { self.impl = impl }

    /// The interpretations of an expression in JSON functions.
    enum JSONInterpretation: Sendable {
        /// `JSON_ARRAY('[1]')` is `["[1]"]`: SQLite decides.
        case deferredToSQLite
        /// A JSON value: `JSON_ARRAY(JSON('[1]'))` is `[[1]]`.
        case jsonValue
    }

    /// A function call: `NAME(arguments)`, or an aggregate with DISTINCT.
    struct FunctionCall: Sendable {
        var name: String
        var arguments: [SQLExpression]
        var isAggregate: Bool
        var isDistinct = false
        var isPure = false
        /// `FILTER (WHERE ...)`: SQLite 3.30+.
        var filter: SQLExpression?
        /// `ORDER BY` inside the call: SQLite 3.44+.
        var ordering: SQLOrdering?
    }

    /// An operator that combines two or more operands: `a AND b AND c`.
    public struct AssociativeBinaryOperator: Hashable, Sendable {
        let sql: String
        /// The value of the operator applied to no operand.
        let neutralValue: DatabaseValue
        /// `(a AND b) AND c` is `a AND b AND c`: nested operands flatten.
        let isStrictlyAssociative: Bool

        /// `+`.
        public static let add = AssociativeBinaryOperator(sql: "+", neutralValue: 0.databaseValue, isStrictlyAssociative: false)
        /// `*`.
        public static let multiply = AssociativeBinaryOperator(sql: "*", neutralValue: 1.databaseValue, isStrictlyAssociative: false)
        /// `AND`.
        public static let and = AssociativeBinaryOperator(sql: "AND", neutralValue: true.databaseValue, isStrictlyAssociative: true)
        /// `OR`.
        public static let or = AssociativeBinaryOperator(sql: "OR", neutralValue: false.databaseValue, isStrictlyAssociative: true)
        /// `||`, string concatenation.
        public static let concat = AssociativeBinaryOperator(sql: "||", neutralValue: "".databaseValue, isStrictlyAssociative: true)
        /// `&`.
        public static let bitwiseAnd = AssociativeBinaryOperator(sql: "&", neutralValue: (-1).databaseValue, isStrictlyAssociative: true)
        /// `|`.
        public static let bitwiseOr = AssociativeBinaryOperator(sql: "|", neutralValue: 0.databaseValue, isStrictlyAssociative: true)
    }

    enum EqualityOperator: String, Sendable {
        case equal = "=", notEqual = "<>", `is` = "IS", isNot = "IS NOT"

        var negated: EqualityOperator {
            switch self {
            case .equal: return .notEqual
            case .notEqual: return .equal
            case .is: return .isNot
            case .isNot: return .is
            }
        }
    }

    enum BooleanTest { case `true`, `false`, falsey }
}

// MARK: - Building

extension SQLExpression {
    static func column(_ name: String) -> SQLExpression { SQLExpression(impl: .column(name)) }

    static func qualifiedColumn(_ name: String, _ alias: TableAliasBase) -> SQLExpression {
        SQLExpression(impl: .qualifiedColumn(name, alias))
    }

    static func databaseValue(_ value: DatabaseValue) -> SQLExpression { SQLExpression(impl: .databaseValue(value)) }

    static let null = SQLExpression.databaseValue(.null)

    /// `(a, b)`, or the single expression.
    static func rowValue(_ expressions: [SQLExpression]) -> SQLExpression? {
        guard let first = expressions.first else { return nil }
        return expressions.count == 1 ? first : SQLExpression(impl: .rowValue(expressions))
    }

    static func subquery(_ subquery: SQLSubquery) -> SQLExpression { SQLExpression(impl: .subquery(subquery)) }

    static func literal(_ sql: SQL) -> SQLExpression { SQLExpression(impl: .literal(sql)) }

    static func cast(_ expression: SQLExpression, as storageClass: Database.StorageClass) -> SQLExpression {
        SQLExpression(impl: .cast(expression, storageClass.rawValue))
    }

    // A collation on an operand applies to the whole comparison, and is
    // written at its end: `"name" = ? COLLATE NOCASE`.

    static func between(_ expression: SQLExpression, _ lower: SQLExpression, _ upper: SQLExpression,
                        isNegated: Bool = false) -> SQLExpression {
        if case let .collated(inner, collation) = expression.impl {
            return collated(between(inner, lower, upper, isNegated: isNegated), collation)
        }
        return SQLExpression(impl: .between(expression, lower, upper, isNegated: isNegated))
    }

    static func binary(_ op: String, _ lhs: SQLExpression, _ rhs: SQLExpression) -> SQLExpression {
        if case let .collated(inner, collation) = lhs.impl { return collated(binary(op, inner, rhs), collation) }
        if case let .collated(inner, collation) = rhs.impl { return collated(binary(op, lhs, inner), collation) }
        return SQLExpression(impl: .binary(op, lhs, rhs))
    }

    static func compare(_ op: EqualityOperator, _ lhs: SQLExpression, _ rhs: SQLExpression) -> SQLExpression {
        if case let .collated(inner, collation) = lhs.impl { return collated(compare(op, inner, rhs), collation) }
        if case let .collated(inner, collation) = rhs.impl { return collated(compare(op, lhs, inner), collation) }
        return SQLExpression(impl: .compare(op, lhs, rhs))
    }

    /// `=`, or `IS NULL` when one side is NULL.
    static func equal(_ lhs: SQLExpression, _ rhs: SQLExpression) -> SQLExpression {
        if case .databaseValue(let value) = rhs.impl, value.isNull { return compare(.is, lhs, .null) }
        if case .databaseValue(let value) = lhs.impl, value.isNull { return compare(.is, rhs, .null) }
        return compare(.equal, lhs, rhs)
    }

    static func associative(_ op: AssociativeBinaryOperator, _ expressions: [SQLExpression]) -> SQLExpression {
        var operands = expressions
        if op.isStrictlyAssociative {
            operands = expressions.flatMap { expression -> [SQLExpression] in
                if case let .associative(innerOp, inner) = expression.impl, innerOp == op { return inner }
                return [expression]
            }
        }
        guard let first = operands.first else { return .databaseValue(op.neutralValue) }
        return operands.count == 1 ? first : SQLExpression(impl: .associative(op, operands))
    }

    static func exists(_ subquery: SQLSubquery, isNegated: Bool = false) -> SQLExpression {
        SQLExpression(impl: .exists(subquery, isNegated: isNegated))
    }

    static func `in`(_ expression: SQLExpression, _ collection: SQLCollection, isNegated: Bool = false) -> SQLExpression {
        SQLExpression(impl: .in(expression, collection, isNegated: isNegated))
    }

    static func unary(_ op: String, _ expression: SQLExpression) -> SQLExpression {
        SQLExpression(impl: .unary(op, expression))
    }

    static func not(_ expression: SQLExpression) -> SQLExpression { SQLExpression(impl: .not(expression)) }

    static func collated(_ expression: SQLExpression, _ collation: Database.CollationName) -> SQLExpression {
        switch expression.impl {
        case let .in(operand, collection, isNegated):
            // `"a" COLLATE NOCASE IN (...)`: the collation goes on the operand.
            return .in(.collated(operand, collation), collection, isNegated: isNegated)
        case let .associative(op, operands):
            return .associative(op, operands.map { .collated($0, collation) })
        default:
            return SQLExpression(impl: .collated(expression, collation))
        }
    }

    static let countAll = SQLExpression(impl: .countAll)

    /// The SQLite functions known to be aggregates (with one argument for
    /// MIN and MAX), and those known to be pure.
    private static let aggregateFunctions: Set<String> = [
        "AVG", "COUNT", "GROUP_CONCAT", "JSON_GROUP_ARRAY", "JSON_GROUP_OBJECT", "JSONB_GROUP_ARRAY", "JSONB_GROUP_OBJECT",
        "MAX", "MIN", "SUM", "TOTAL",
    ]
    private static let pureFunctions: Set<String> = jsonValueFunctions.union([
        "ABS", "CHAR", "COALESCE", "GLOB", "HEX", "IFNULL", "INSTR", "LENGTH", "LIKE", "LIKELIHOOD", "LIKELY",
        "LOWER", "LTRIM", "NULLIF", "PRINTF", "QUOTE", "REPLACE", "ROUND", "RTRIM", "SOUNDEX", "SUBSTR",
        "TRIM", "TYPEOF", "UNICODE", "UNLIKELY", "UPPER", "ZEROBLOB", "JSONB_EXTRACT",
    ])
    /// The functions whose result is a JSON value, which JSON builders
    /// embed as JSON rather than as a string.
    static let jsonValueFunctions: Set<String> = [
        "JSON", "JSON_ARRAY", "JSON_GROUP_ARRAY", "JSON_GROUP_OBJECT", "JSON_INSERT", "JSON_OBJECT", "JSON_PATCH",
        "JSON_REMOVE", "JSON_REPLACE", "JSON_SET", "JSON_QUOTE", "JSONB", "JSONB_ARRAY", "JSONB_GROUP_ARRAY",
        "JSONB_GROUP_OBJECT", "JSONB_INSERT", "JSONB_OBJECT", "JSONB_PATCH", "JSONB_REMOVE", "JSONB_REPLACE", "JSONB_SET",
    ]

    /// A call of an SQL function, aggregate or not depending on its name.
    static func function(_ name: String, _ arguments: [SQLExpression]) -> SQLExpression {
        let upper = name.uppercased()
        let isAggregate = aggregateFunctions.contains(upper) && !((upper == "MIN" || upper == "MAX") && arguments.count > 1)
        return SQLExpression(impl: .function(FunctionCall(
            name: name, arguments: arguments, isAggregate: isAggregate, isPure: pureFunctions.contains(upper))))
    }

    /// A call of a function that is not an aggregate (`MAX(a, b)`).
    static func simpleFunction(_ name: String, _ arguments: [SQLExpression], isPure: Bool = false) -> SQLExpression {
        SQLExpression(impl: .function(FunctionCall(name: name, arguments: arguments, isAggregate: false, isPure: isPure)))
    }

    static func aggregate(_ name: String, _ arguments: [SQLExpression], isDistinct: Bool = false,
                          filter: SQLExpression? = nil, ordering: SQLOrdering? = nil) -> SQLExpression {
        SQLExpression(impl: .function(FunctionCall(name: name, arguments: arguments, isAggregate: true,
                                                   isDistinct: isDistinct, filter: filter, ordering: ordering)))
    }

    static func countDistinct(_ expression: SQLExpression) -> SQLExpression {
        aggregate("COUNT", [expression], isDistinct: true)
    }

    static func isEmpty(_ expression: SQLExpression, isNegated: Bool = false) -> SQLExpression {
        SQLExpression(impl: .isEmpty(expression, isNegated: isNegated))
    }

    /// The primary key of the table the expression is qualified with: the
    /// rowid, or the single primary key column.
    static let fastPrimaryKey = SQLExpression(impl: .fastPrimaryKey)

    static func qualifiedExists(_ alias: TableAliasBase, isNegated: Bool = false) -> SQLExpression {
        SQLExpression(impl: .qualifiedExists(alias, isNegated: isNegated))
    }
}

// MARK: - Qualifying

extension SQLExpression {
    /// The expression with its unqualified columns given to `alias`.
    func qualified(with alias: TableAliasBase) -> SQLExpression {
        qualifiedImpl(with: alias).withPreferredJSONInterpretation(preferredJSONInterpretation)
    }

    /// The expression, to be read as `interpretation` in JSON functions.
    func withPreferredJSONInterpretation(_ interpretation: JSONInterpretation) -> SQLExpression {
        var expression = self
        expression.preferredJSONInterpretation = interpretation
        return expression
    }

    private func qualifiedImpl(with alias: TableAliasBase) -> SQLExpression {
        switch impl {
        case .databaseValue, .qualifiedColumn, .qualifiedFastPrimaryKey, .qualifiedExists, .subquery, .exists, .countAll, .tableMatch:
            return self
        case .column(let name): return .qualifiedColumn(name, alias)
        case .fastPrimaryKey: return SQLExpression(impl: .qualifiedFastPrimaryKey(alias))
        case .rowValue(let expressions): return SQLExpression(impl: .rowValue(expressions.map { $0.qualified(with: alias) }))
        case .literal(let sql): return .literal(sql.qualified(with: alias))
        case let .cast(expression, type): return SQLExpression(impl: .cast(expression.qualified(with: alias), type))
        case let .between(value, lower, upper, isNegated):
            return SQLExpression(impl: .between(value.qualified(with: alias), lower.qualified(with: alias),
                                                upper.qualified(with: alias), isNegated: isNegated))
        case let .binary(op, lhs, rhs): return SQLExpression(impl: .binary(op, lhs.qualified(with: alias), rhs.qualified(with: alias)))
        case let .like(lhs, rhs, escape, isNegated):
            return SQLExpression(impl: .like(lhs.qualified(with: alias), rhs.qualified(with: alias),
                                             escape: escape?.qualified(with: alias), isNegated: isNegated))
        case let .associative(op, operands): return SQLExpression(impl: .associative(op, operands.map { $0.qualified(with: alias) }))
        case let .in(value, collection, isNegated):
            return SQLExpression(impl: .in(value.qualified(with: alias), collection.qualified(with: alias), isNegated: isNegated))
        case let .unary(op, operand): return SQLExpression(impl: .unary(op, operand.qualified(with: alias)))
        case let .compare(op, lhs, rhs): return SQLExpression(impl: .compare(op, lhs.qualified(with: alias), rhs.qualified(with: alias)))
        case .not(let operand): return SQLExpression(impl: .not(operand.qualified(with: alias)))
        case let .collated(operand, collation): return SQLExpression(impl: .collated(operand.qualified(with: alias), collation))
        case .function(var call):
            call.arguments = call.arguments.map { $0.qualified(with: alias) }
            call.filter = call.filter?.qualified(with: alias)
            call.ordering = call.ordering?.qualified(with: alias)
            return SQLExpression(impl: .function(call))
        case let .isEmpty(operand, isNegated): return SQLExpression(impl: .isEmpty(operand.qualified(with: alias), isNegated: isNegated))
        }
    }
}

// MARK: - Boolean tests

extension SQLExpression {
    /// `self = 1`, `self = 0`, or the logical negation, simplified as GRDB
    /// does: `NOT (a = b)` is `a <> b`, `NOT (a IN ...)` is `a NOT IN ...`.
    func `is`(_ test: BooleanTest) -> SQLExpression {
        func defaultTest(negation: () -> SQLExpression) -> SQLExpression {
            switch test {
            case .true: return .compare(.equal, self, true.sqlExpression)
            case .false: return .compare(.equal, self, false.sqlExpression)
            case .falsey: return negation()
            }
        }
        switch impl {
        case .databaseValue(let value):
            switch value.storage {
            case .null: return .null
            case .int64(let int) where int == 0 || int == 1:
                return ((test == .true) == (int == 1)).sqlExpression
            default: return defaultTest { .not(self) }
            }
        case let .between(value, lower, upper, isNegated):
            return defaultTest { SQLExpression(impl: .between(value, lower, upper, isNegated: !isNegated)) }
        case let .like(lhs, rhs, escape, isNegated):
            return defaultTest { SQLExpression(impl: .like(lhs, rhs, escape: escape, isNegated: !isNegated)) }
        case let .exists(subquery, isNegated):
            return defaultTest { .exists(subquery, isNegated: !isNegated) }
        case let .in(value, collection, isNegated):
            return defaultTest { .in(value, collection, isNegated: !isNegated) }
        case let .compare(op, lhs, rhs):
            return defaultTest { .compare(op.negated, lhs, rhs) }
        case let .collated(operand, collation):
            return .collated(operand.is(test), collation)
        case let .isEmpty(operand, isNegated):
            return test == .true ? self : .isEmpty(operand, isNegated: !isNegated)
        case let .qualifiedExists(alias, isNegated):
            return defaultTest { .qualifiedExists(alias, isNegated: !isNegated) }
        default:
            return defaultTest { .not(self) }
        }
    }

    /// True when the expression does not depend on any row.
    var isConstantInRequest: Bool {
        switch impl {
        case .databaseValue: return true
        case .rowValue(let operands), .associative(_, let operands): return operands.allSatisfy(\.isConstantInRequest)
        case let .cast(operand, _), let .unary(_, operand), let .not(operand), let .isEmpty(operand, _),
             let .collated(operand, _):
            return operand.isConstantInRequest
        case let .between(value, lower, upper, _):
            return value.isConstantInRequest && lower.isConstantInRequest && upper.isConstantInRequest
        case let .binary(_, lhs, rhs), let .compare(_, lhs, rhs): return lhs.isConstantInRequest && rhs.isConstantInRequest
        case let .in(value, collection, _):
            guard let items = collection.expressions else { return false }
            return value.isConstantInRequest && items.allSatisfy(\.isConstantInRequest)
        case .function(let call): return !call.isAggregate && call.isPure && call.arguments.allSatisfy(\.isConstantInRequest)
        default: return false
        }
    }

    /// True when the expression aggregates rows (`COUNT`, `MAX(a)`...).
    var isAggregate: Bool {
        switch impl {
        case .countAll: return true
        case .function(let call): return call.isAggregate || call.arguments.contains(where: \.isAggregate)
        case .rowValue(let operands), .associative(_, let operands): return operands.contains(where: \.isAggregate)
        case let .between(operand, _, _, _), let .unary(_, operand), let .not(operand), let .collated(operand, _),
             let .isEmpty(operand, _), let .cast(operand, _):
            return operand.isAggregate
        case let .binary(_, lhs, rhs), let .compare(_, lhs, rhs): return lhs.isAggregate || rhs.isAggregate
        case let .in(value, collection, _):
            return value.isAggregate || (collection.expressions?.contains(where: \.isAggregate) ?? false)
        default: return false
        }
    }
}

extension SQLExpression: SQLSpecificExpressible {
    /// The expression itself.
    public var sqlExpression: SQLExpression { self }
}
