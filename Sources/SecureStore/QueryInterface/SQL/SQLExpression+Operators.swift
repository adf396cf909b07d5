// The operators that build expressions from columns and values. Each
// comes in three forms so that `Column("a") == 1`, `1 == Column("a")` and
// `Column("a") == Column("b")` all build SQL.

extension SQLSpecificExpressible {
    /// `=`, or `IS NULL` with nil.
    public static func == (lhs: Self, rhs: (any SQLExpressible)?) -> SQLExpression {
        .equal(lhs.sqlExpression, rhs?.sqlExpression ?? .null)
    }
    /// `a = 1`, or `a` as a boolean test: `filter(Column("isActive") == true)`.
    public static func == (lhs: Self, rhs: Bool) -> SQLExpression { lhs.sqlExpression.is(rhs ? .true : .false) }
    /// `=`, or `IS NULL` with nil.
    public static func == (lhs: (any SQLExpressible)?, rhs: Self) -> SQLExpression {
        .equal(lhs?.sqlExpression ?? .null, rhs.sqlExpression)
    }
    /// A boolean test of `rhs`.
    public static func == (lhs: Bool, rhs: Self) -> SQLExpression { rhs.sqlExpression.is(lhs ? .true : .false) }
    /// `=` between two expressions.
    public static func == (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .equal(lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `<>`, or `IS NOT NULL` with nil.
    public static func != (lhs: Self, rhs: (any SQLExpressible)?) -> SQLExpression { !(lhs == rhs) }
    /// The negated boolean test.
    public static func != (lhs: Self, rhs: Bool) -> SQLExpression { !(lhs == rhs) }
    /// `<>`, or `IS NOT NULL` with nil.
    public static func != (lhs: (any SQLExpressible)?, rhs: Self) -> SQLExpression { !(lhs == rhs) }
    /// The negated boolean test.
    public static func != (lhs: Bool, rhs: Self) -> SQLExpression { !(lhs == rhs) }
    /// `<>` between two expressions.
    public static func != (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression { !(lhs == rhs) }

    /// `IS`: equality where NULL equals NULL.
    public static func === (lhs: Self, rhs: (any SQLExpressible)?) -> SQLExpression {
        .compare(.is, lhs.sqlExpression, rhs?.sqlExpression ?? .null)
    }
    /// `IS`.
    public static func === (lhs: (any SQLExpressible)?, rhs: Self) -> SQLExpression {
        guard let lhs else { return .compare(.is, rhs.sqlExpression, .null) }
        return .compare(.is, lhs.sqlExpression, rhs.sqlExpression)
    }
    /// `IS`.
    public static func === (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .compare(.is, lhs.sqlExpression, rhs.sqlExpression)
    }
    /// `IS NOT`.
    public static func !== (lhs: Self, rhs: (any SQLExpressible)?) -> SQLExpression { !(lhs === rhs) }
    /// `IS NOT`.
    public static func !== (lhs: (any SQLExpressible)?, rhs: Self) -> SQLExpression { !(lhs === rhs) }
    /// `IS NOT`.
    public static func !== (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression { !(lhs === rhs) }

    /// `<`.
    public static func < (lhs: Self, rhs: some SQLExpressible) -> SQLExpression { .binary("<", lhs.sqlExpression, rhs.sqlExpression) }
    /// `<`.
    public static func < (lhs: some SQLExpressible, rhs: Self) -> SQLExpression { .binary("<", lhs.sqlExpression, rhs.sqlExpression) }
    /// `<`.
    public static func < (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression { .binary("<", lhs.sqlExpression, rhs.sqlExpression) }
    /// `<=`.
    public static func <= (lhs: Self, rhs: some SQLExpressible) -> SQLExpression { .binary("<=", lhs.sqlExpression, rhs.sqlExpression) }
    /// `<=`.
    public static func <= (lhs: some SQLExpressible, rhs: Self) -> SQLExpression { .binary("<=", lhs.sqlExpression, rhs.sqlExpression) }
    /// `<=`.
    public static func <= (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression { .binary("<=", lhs.sqlExpression, rhs.sqlExpression) }
    /// `>`.
    public static func > (lhs: Self, rhs: some SQLExpressible) -> SQLExpression { .binary(">", lhs.sqlExpression, rhs.sqlExpression) }
    /// `>`.
    public static func > (lhs: some SQLExpressible, rhs: Self) -> SQLExpression { .binary(">", lhs.sqlExpression, rhs.sqlExpression) }
    /// `>`.
    public static func > (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression { .binary(">", lhs.sqlExpression, rhs.sqlExpression) }
    /// `>=`.
    public static func >= (lhs: Self, rhs: some SQLExpressible) -> SQLExpression { .binary(">=", lhs.sqlExpression, rhs.sqlExpression) }
    /// `>=`.
    public static func >= (lhs: some SQLExpressible, rhs: Self) -> SQLExpression { .binary(">=", lhs.sqlExpression, rhs.sqlExpression) }
    /// `>=`.
    public static func >= (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression { .binary(">=", lhs.sqlExpression, rhs.sqlExpression) }

    /// `+`.
    public static func + (lhs: Self, rhs: some SQLExpressible) -> SQLExpression { .associative(.add, [lhs.sqlExpression, rhs.sqlExpression]) }
    /// `+`.
    public static func + (lhs: some SQLExpressible, rhs: Self) -> SQLExpression { .associative(.add, [lhs.sqlExpression, rhs.sqlExpression]) }
    /// `+`.
    public static func + (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression { .associative(.add, [lhs.sqlExpression, rhs.sqlExpression]) }
    /// `-`.
    public static func - (lhs: Self, rhs: some SQLExpressible) -> SQLExpression { .binary("-", lhs.sqlExpression, rhs.sqlExpression) }
    /// `-`.
    public static func - (lhs: some SQLExpressible, rhs: Self) -> SQLExpression { .binary("-", lhs.sqlExpression, rhs.sqlExpression) }
    /// `-`.
    public static func - (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression { .binary("-", lhs.sqlExpression, rhs.sqlExpression) }
    /// Negation: `-"score"`.
    public static prefix func - (value: Self) -> SQLExpression { .unary("-", value.sqlExpression) }
    /// `*`.
    public static func * (lhs: Self, rhs: some SQLExpressible) -> SQLExpression { .associative(.multiply, [lhs.sqlExpression, rhs.sqlExpression]) }
    /// `*`.
    public static func * (lhs: some SQLExpressible, rhs: Self) -> SQLExpression { .associative(.multiply, [lhs.sqlExpression, rhs.sqlExpression]) }
    /// `*`.
    public static func * (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression { .associative(.multiply, [lhs.sqlExpression, rhs.sqlExpression]) }
    /// `/`.
    public static func / (lhs: Self, rhs: some SQLExpressible) -> SQLExpression { .binary("/", lhs.sqlExpression, rhs.sqlExpression) }
    /// `/`.
    public static func / (lhs: some SQLExpressible, rhs: Self) -> SQLExpression { .binary("/", lhs.sqlExpression, rhs.sqlExpression) }
    /// `/`.
    public static func / (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression { .binary("/", lhs.sqlExpression, rhs.sqlExpression) }

    /// `AND`.
    public static func && (lhs: Self, rhs: some SQLExpressible) -> SQLExpression { .associative(.and, [lhs.sqlExpression, rhs.sqlExpression]) }
    /// `AND`.
    public static func && (lhs: some SQLExpressible, rhs: Self) -> SQLExpression { .associative(.and, [lhs.sqlExpression, rhs.sqlExpression]) }
    /// `AND`.
    public static func && (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression { .associative(.and, [lhs.sqlExpression, rhs.sqlExpression]) }
    /// `OR`.
    public static func || (lhs: Self, rhs: some SQLExpressible) -> SQLExpression { .associative(.or, [lhs.sqlExpression, rhs.sqlExpression]) }
    /// `OR`.
    public static func || (lhs: some SQLExpressible, rhs: Self) -> SQLExpression { .associative(.or, [lhs.sqlExpression, rhs.sqlExpression]) }
    /// `OR`.
    public static func || (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression { .associative(.or, [lhs.sqlExpression, rhs.sqlExpression]) }
    /// Logical negation, simplified: `!(a == b)` is `a <> b`.
    public static prefix func ! (value: Self) -> SQLExpression { value.sqlExpression.is(.falsey) }

    /// `&`.
    public static func & (lhs: Self, rhs: some SQLExpressible) -> SQLExpression { .associative(.bitwiseAnd, [lhs.sqlExpression, rhs.sqlExpression]) }
    /// `&`.
    public static func & (lhs: some SQLExpressible, rhs: Self) -> SQLExpression { .associative(.bitwiseAnd, [lhs.sqlExpression, rhs.sqlExpression]) }
    /// `&`.
    public static func & (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression { .associative(.bitwiseAnd, [lhs.sqlExpression, rhs.sqlExpression]) }
    /// `|`.
    public static func | (lhs: Self, rhs: some SQLExpressible) -> SQLExpression { .associative(.bitwiseOr, [lhs.sqlExpression, rhs.sqlExpression]) }
    /// `|`.
    public static func | (lhs: some SQLExpressible, rhs: Self) -> SQLExpression { .associative(.bitwiseOr, [lhs.sqlExpression, rhs.sqlExpression]) }
    /// `|`.
    public static func | (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression { .associative(.bitwiseOr, [lhs.sqlExpression, rhs.sqlExpression]) }
    /// `<<`.
    public static func << (lhs: Self, rhs: some SQLExpressible) -> SQLExpression { .binary("<<", lhs.sqlExpression, rhs.sqlExpression) }
    /// `<<`.
    public static func << (lhs: some SQLExpressible, rhs: Self) -> SQLExpression { .binary("<<", lhs.sqlExpression, rhs.sqlExpression) }
    /// `<<`.
    public static func << (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression { .binary("<<", lhs.sqlExpression, rhs.sqlExpression) }
    /// `>>`.
    public static func >> (lhs: Self, rhs: some SQLExpressible) -> SQLExpression { .binary(">>", lhs.sqlExpression, rhs.sqlExpression) }
    /// `>>`.
    public static func >> (lhs: some SQLExpressible, rhs: Self) -> SQLExpression { .binary(">>", lhs.sqlExpression, rhs.sqlExpression) }
    /// `>>`.
    public static func >> (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression { .binary(">>", lhs.sqlExpression, rhs.sqlExpression) }
    /// `~`.
    public static prefix func ~ (value: Self) -> SQLExpression { .unary("~", value.sqlExpression) }

    /// `IFNULL(a, b)`.
    public static func ?? (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .function("IFNULL", [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `LIKE`, with an optional escape character.
    ///
    /// ```swift
    /// Player.filter(Column("name").like("%ar%"))
    /// ```
    public func like(_ pattern: some SQLExpressible, escape: (any SQLExpressible)? = nil) -> SQLExpression {
        SQLExpression(impl: .like(sqlExpression, pattern.sqlExpression, escape: escape?.sqlExpression, isNegated: false))
    }

    /// The expression under a collation: `"name" COLLATE NOCASE`.
    public func collating(_ collation: Database.CollationName) -> SQLExpression { .collated(sqlExpression, collation) }

    /// The expression under a custom collation.
    public func collating(_ collation: DatabaseCollation) -> SQLExpression {
        .collated(sqlExpression, Database.CollationName(rawValue: collation.name))
    }

    /// The expression, selected under a name: `"a" + "b" AS "total"`.
    public func forKey(_ key: String) -> SQLSelection { .aliasedExpression(sqlExpression, key) }

    /// The expression, selected under the name of a coding key.
    public func forKey(_ key: some CodingKey) -> SQLSelection { forKey(key.stringValue) }
}

extension Range where Bound: SQLExpressible {
    /// `element >= lower AND element < upper`.
    public func contains(_ element: some SQLSpecificExpressible) -> SQLExpression {
        (element >= lowerBound) && (element < upperBound)
    }
}

extension ClosedRange where Bound: SQLExpressible {
    /// `element BETWEEN lower AND upper`.
    public func contains(_ element: some SQLSpecificExpressible) -> SQLExpression {
        .between(element.sqlExpression, lowerBound.sqlExpression, upperBound.sqlExpression)
    }
}

extension CountableRange where Bound: SQLExpressible {
    /// `element >= lower AND element < upper`.
    public func contains(_ element: some SQLSpecificExpressible) -> SQLExpression {
        (element >= lowerBound) && (element < upperBound)
    }
}

extension CountableClosedRange where Bound: SQLExpressible {
    /// `element BETWEEN lower AND upper`.
    public func contains(_ element: some SQLSpecificExpressible) -> SQLExpression {
        .between(element.sqlExpression, lowerBound.sqlExpression, upperBound.sqlExpression)
    }
}

extension Sequence where Element: SQLExpressible {
    /// `element IN (...)`: `[1, 2].contains(Column("id"))`.
    public func contains(_ element: some SQLSpecificExpressible) -> SQLExpression {
        SQLCollection.array(map(\.sqlExpression)).contains(element.sqlExpression)
    }
}

extension Sequence where Element == any SQLExpressible {
    /// `element IN (...)`.
    public func contains(_ element: some SQLSpecificExpressible) -> SQLExpression {
        SQLCollection.array(map(\.sqlExpression)).contains(element.sqlExpression)
    }
}

extension Sequence where Element: SQLSpecificExpressible {
    /// The expressions joined by an operator: `[a, b].joined(operator: .and)`.
    /// An empty sequence gives the operator's neutral value (true for AND).
    public func joined(operator: SQLExpression.AssociativeBinaryOperator) -> SQLExpression {
        .associative(`operator`, map(\.sqlExpression))
    }
}

extension Sequence where Element == any SQLSpecificExpressible {
    /// The expressions joined by an operator.
    public func joined(operator: SQLExpression.AssociativeBinaryOperator) -> SQLExpression {
        .associative(`operator`, map(\.sqlExpression))
    }
}
