// SQL functions of the query interface, with GRDB's names.

/// `ABS(value)`.
public func abs(_ value: some SQLSpecificExpressible) -> SQLExpression { .function("ABS", [value.sqlExpression]) }

/// `AVG(value)`; `filter:` needs SQLite 3.30 (it throws here, on 3.15.2).
public func average(_ value: some SQLSpecificExpressible, filter: (any SQLSpecificExpressible)? = nil) -> SQLExpression {
    .aggregate("AVG", [value.sqlExpression], filter: filter?.sqlExpression)
}

/// `CAST(value AS type)`.
public func cast(_ expression: some SQLSpecificExpressible, as storageClass: Database.StorageClass) -> SQLExpression {
    .cast(expression.sqlExpression, as: storageClass)
}

/// `COALESCE(a, b, ...)`; the value itself when there is one, NULL for none.
public func coalesce(_ values: some Collection<any SQLSpecificExpressible>) -> SQLExpression {
    guard let first = values.first else { return .null }
    return values.count == 1 ? first.sqlExpression : .function("COALESCE", values.map(\.sqlExpression))
}

/// `COUNT(value)`.
public func count(_ counted: some SQLSpecificExpressible) -> SQLExpression { .function("COUNT", [counted.sqlExpression]) }

/// `COUNT(DISTINCT value)`.
public func count(distinct value: some SQLSpecificExpressible) -> SQLExpression { .countDistinct(value.sqlExpression) }

/// `LENGTH(value)`.
public func length(_ value: some SQLSpecificExpressible) -> SQLExpression { .function("LENGTH", [value.sqlExpression]) }

/// `MAX(a, b, ...)`: the largest of several values (not an aggregate).
public func max(_ value1: any SQLSpecificExpressible, _ value2: any SQLExpressible, _ values: any SQLExpressible...) -> SQLExpression {
    .simpleFunction("MAX", [value1.sqlExpression, value2.sqlExpression] + values.map(\.sqlExpression), isPure: true)
}

/// `MAX(value)`, the aggregate.
public func max(_ value: some SQLSpecificExpressible, filter: (any SQLSpecificExpressible)? = nil) -> SQLExpression {
    .aggregate("MAX", [value.sqlExpression], filter: filter?.sqlExpression)
}

/// `MIN(a, b, ...)`: the smallest of several values (not an aggregate).
public func min(_ value1: any SQLSpecificExpressible, _ value2: any SQLExpressible, _ values: any SQLExpressible...) -> SQLExpression {
    .simpleFunction("MIN", [value1.sqlExpression, value2.sqlExpression] + values.map(\.sqlExpression), isPure: true)
}

/// `MIN(value)`, the aggregate.
public func min(_ value: some SQLSpecificExpressible, filter: (any SQLSpecificExpressible)? = nil) -> SQLExpression {
    .aggregate("MIN", [value.sqlExpression], filter: filter?.sqlExpression)
}

/// `SUM(value)`; `orderBy:` needs SQLite 3.44 and `filter:` 3.30.
public func sum(_ value: some SQLSpecificExpressible, orderBy ordering: (any SQLOrderingTerm)? = nil,
                filter: (any SQLSpecificExpressible)? = nil) -> SQLExpression {
    .aggregate("SUM", [value.sqlExpression], filter: filter?.sqlExpression, ordering: ordering?.sqlOrdering)
}

/// `TOTAL(value)`: like SUM, but 0.0 for no rows.
public func total(_ value: some SQLSpecificExpressible, orderBy ordering: (any SQLOrderingTerm)? = nil,
                  filter: (any SQLSpecificExpressible)? = nil) -> SQLExpression {
    .aggregate("TOTAL", [value.sqlExpression], filter: filter?.sqlExpression, ordering: ordering?.sqlOrdering)
}

/// A modifier of SQLite's date functions: `.day(1)` is `'1 days'`.
public enum SQLDateModifier: SQLSpecificExpressible, Sendable {
    case second(Double), minute(Int), hour(Int), day(Int), month(Int), year(Int)
    case startOfDay, startOfMonth, startOfYear
    case weekday(Int)
    case unixEpoch, localTime, utc

    /// The modifier's text, bound as a value.
    public var sqlExpression: SQLExpression { rawValue.sqlExpression }

    var rawValue: String {
        switch self {
        case .second(let value): return "\(value) seconds"
        case .minute(let value): return "\(value) minutes"
        case .hour(let value): return "\(value) hours"
        case .day(let value): return "\(value) days"
        case .month(let value): return "\(value) months"
        case .year(let value): return "\(value) years"
        case .startOfDay: return "start of day"
        case .startOfMonth: return "start of month"
        case .startOfYear: return "start of year"
        case .weekday(let value): return "weekday \(value)"
        case .unixEpoch: return "unixepoch"
        case .localTime: return "localtime"
        case .utc: return "utc"
        }
    }
}

/// `JULIANDAY(value, modifiers...)`.
public func julianDay(_ value: some SQLSpecificExpressible, _ modifiers: SQLDateModifier...) -> SQLExpression {
    .function("JULIANDAY", [value.sqlExpression] + modifiers.map(\.sqlExpression))
}

/// `DATETIME(value, modifiers...)`.
public func dateTime(_ value: some SQLSpecificExpressible, _ modifiers: SQLDateModifier...) -> SQLExpression {
    .function("DATETIME", [value.sqlExpression] + modifiers.map(\.sqlExpression))
}

extension SQLSpecificExpressible {
    /// The value with each word capitalized, by Swift's `capitalized`
    /// (the `swiftCapitalizedString` function of every connection).
    public var capitalized: SQLExpression { DatabaseFunction.capitalize(sqlExpression) }

    /// The value lowercased by Swift (`swiftLowercaseString`).
    public var lowercased: SQLExpression { DatabaseFunction.lowercase(sqlExpression) }

    /// The value uppercased by Swift (`swiftUppercaseString`).
    public var uppercased: SQLExpression { DatabaseFunction.uppercase(sqlExpression) }

    /// The value capitalized in the current locale.
    public var localizedCapitalized: SQLExpression { DatabaseFunction.localizedCapitalize(sqlExpression) }

    /// The value lowercased in the current locale.
    public var localizedLowercased: SQLExpression { DatabaseFunction.localizedLowercase(sqlExpression) }

    /// The value uppercased in the current locale.
    public var localizedUppercased: SQLExpression { DatabaseFunction.localizedUppercase(sqlExpression) }
}

extension Database {
    /// The storage classes of `CAST`.
    public struct StorageClass: RawRepresentable, Hashable, Sendable {
        /// The SQL name: `INTEGER`, `TEXT`...
        public let rawValue: String

        /// A storage class.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// `INTEGER`.
        public static let integer = StorageClass(rawValue: "INTEGER")
        /// `REAL`.
        public static let real = StorageClass(rawValue: "REAL")
        /// `TEXT`.
        public static let text = StorageClass(rawValue: "TEXT")
        /// `BLOB`.
        public static let blob = StorageClass(rawValue: "BLOB")
        /// `NUMERIC`.
        public static let numeric = StorageClass(rawValue: "NUMERIC")
    }

    /// A collation name: `.binary`, `.nocase`, `.rtrim`, or a custom one.
    public struct CollationName: RawRepresentable, Hashable, Sendable {
        /// The name SQL uses.
        public let rawValue: String

        /// A collation name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// `BINARY`: byte order.
        public static let binary = CollationName(rawValue: "BINARY")
        /// `NOCASE`: ASCII letters compare ignoring case.
        public static let nocase = CollationName(rawValue: "NOCASE")
        /// `RTRIM`: trailing spaces ignored.
        public static let rtrim = CollationName(rawValue: "RTRIM")
    }
}
