/// An expression that holds JSON: a ``JSONColumn``, or any expression made
/// JSON with ``SQLSpecificExpressible/asJSON``. It gives the JSON operators
/// `->>` (a subscript) and `->` (``jsonRepresentation(atPath:)``), and
/// goes into JSON builders such as ``Database/jsonArray(_:)-(Collection<SQLExpressible>)``
/// as JSON, not as a string.
///
/// ```swift
/// let address = JSONColumn("address")
/// // SELECT * FROM "player" WHERE "address" ->> 'city' = 'Paris'
/// let parisians = try Player.filter(address["city"] == "Paris").fetchAll(db)
/// ```
///
/// The JSON operators and functions need SQLite 3.38 (JSONB ones 3.45),
/// which SQLCipher 4 has; on SQLCipher 3.4.1 (SQLite 3.15.2) a request that
/// uses them throws an error that names the version.
///
/// ## Topics
///
/// ### Accessing values
///
/// - ``subscript(_:)``
/// - ``jsonExtract(atPath:)``
/// - ``jsonExtract(atPaths:)``
/// - ``jsonRepresentation(atPath:)``
public protocol SQLJSONExpressible: SQLSpecificExpressible { }

extension ColumnExpression where Self: SQLJSONExpressible {
    /// The column, read as JSON in JSON builders.
    public var sqlExpression: SQLExpression {
        SQLExpression.column(name).withPreferredJSONInterpretation(.jsonValue)
    }
}

/// Any JSON expression: what ``SQLSpecificExpressible/asJSON`` returns.
public struct AnySQLJSONExpressible: SQLJSONExpressible {
    /// The expression, marked as JSON.
    public let sqlExpression: SQLExpression

    /// Wraps a JSON expression.
    public init(_ base: some SQLJSONExpressible) {
        sqlExpression = base.sqlExpression
    }

    init(sqlExpression: SQLExpression) {
        self.sqlExpression = sqlExpression
    }
}

extension SQLSpecificExpressible {
    /// The expression as JSON: JSON builders embed it as a JSON value, and
    /// the JSON operators apply.
    ///
    /// ```swift
    /// // JSON_ARRAY(JSONB("info")), on SQLite 3.45 and later
    /// Database.jsonArray([Column("info").asJSON])
    /// ```
    public var asJSON: AnySQLJSONExpressible {
        AnySQLJSONExpressible(sqlExpression: sqlExpression.withPreferredJSONInterpretation(.jsonValue))
    }
}

extension SQLJSONExpressible {
    /// The value at `path`, as an SQL value (`->>`): a JSON string becomes
    /// text, a JSON number a number.
    ///
    /// ```swift
    /// // "address" ->> 'city'
    /// JSONColumn("address")["city"]
    /// ```
    public subscript(_ path: some SQLExpressible) -> SQLExpression {
        .binary(SQLExpression.jsonExtractSQL, sqlExpression, path.sqlExpression)
    }

    /// `JSON_EXTRACT(self, path)`.
    public func jsonExtract(atPath path: some SQLExpressible) -> SQLExpression {
        Database.jsonExtract(self, atPath: path)
    }

    /// `JSON_EXTRACT(self, path1, path2, ...)`: a JSON array of the values.
    public func jsonExtract(atPaths paths: some Collection<some SQLExpressible>) -> SQLExpression {
        Database.jsonExtract(self, atPaths: paths)
    }

    /// The value at `path`, as JSON (`->`).
    ///
    /// ```swift
    /// // "address" -> 'city'
    /// JSONColumn("address").jsonRepresentation(atPath: "city")
    /// ```
    public func jsonRepresentation(atPath path: some SQLExpressible) -> SQLExpression {
        SQLExpression.binary(SQLExpression.jsonExtractJSON, sqlExpression, path.sqlExpression)
            .withPreferredJSONInterpretation(.jsonValue)
    }
}
