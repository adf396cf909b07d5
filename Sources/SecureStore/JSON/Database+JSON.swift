// SQLite's JSON functions as query interface expressions, with GRDB's
// names. They are built into SQLite 3.38 and later (SQLCipher 4); the JSONB
// ones need SQLite 3.45. On an older SQLite, a request that uses one throws
// an error that names the version it needs (see `SQLExpression.FunctionCall`).
//
// A value marked as JSON (``JSONColumn``, ``SQLSpecificExpressible/asJSON``)
// goes into the functions that build JSON (`JSON_ARRAY`, `JSON_OBJECT`,
// `JSON_SET`...) as JSON: through `JSONB()` on SQLite 3.45 and later,
// `JSON()` before, as GRDB does.

extension Database {
    /// `JSON(value)`: the value, minified, as JSON text.
    ///
    /// ```swift
    /// // JSON(' [1, 2] ') → '[1,2]'
    /// Database.json(" [1, 2] ")
    /// ```
    public static func json(_ value: some SQLExpressible) -> SQLExpression {
        .function("JSON", [value.sqlExpression])
    }

    /// `JSON_ARRAY(value, ...)`.
    public static func jsonArray(_ values: some Collection<some SQLExpressible>) -> SQLExpression {
        builder("JSON_ARRAY", values.map(\.sqlExpression))
    }

    /// `JSON_ARRAY(value, ...)`, of values of any type.
    public static func jsonArray(_ values: some Collection<any SQLExpressible>) -> SQLExpression {
        builder("JSON_ARRAY", values.map(\.sqlExpression))
    }

    /// `JSON_ARRAY_LENGTH(value)`.
    public static func jsonArrayLength(_ value: some SQLExpressible) -> SQLExpression {
        .function("JSON_ARRAY_LENGTH", [value.sqlExpression])
    }

    /// `JSON_ARRAY_LENGTH(value, path)`.
    public static func jsonArrayLength(_ value: some SQLExpressible, atPath path: some SQLExpressible) -> SQLExpression {
        .function("JSON_ARRAY_LENGTH", [value.sqlExpression, path.sqlExpression])
    }

    /// `JSON_ERROR_POSITION(value)`: 0 for well-formed JSON, else the
    /// position of the first error (SQLite 3.42).
    public static func jsonErrorPosition(_ value: some SQLExpressible) -> SQLExpression {
        .function("JSON_ERROR_POSITION", [value.sqlExpression])
    }

    /// `JSON_EXTRACT(value, path)`.
    public static func jsonExtract(_ value: some SQLExpressible, atPath path: some SQLExpressible) -> SQLExpression {
        .function("JSON_EXTRACT", [value.sqlExpression, path.sqlExpression])
    }

    /// `JSON_EXTRACT(value, path, ...)`.
    public static func jsonExtract(_ value: some SQLExpressible, atPaths paths: some Collection<some SQLExpressible>) -> SQLExpression {
        .function("JSON_EXTRACT", [value.sqlExpression] + paths.map(\.sqlExpression))
    }

    /// `JSON_INSERT(value, path, newValue, ...)`: sets the paths that do
    /// not exist yet.
    public static func jsonInsert(_ value: some SQLExpressible,
                                  _ assignments: some Collection<(key: String, value: any SQLExpressible)>) -> SQLExpression {
        editor("JSON_INSERT", value, assignments)
    }

    /// `JSON_REPLACE(value, path, newValue, ...)`: sets the paths that exist.
    public static func jsonReplace(_ value: some SQLExpressible,
                                   _ assignments: some Collection<(key: String, value: any SQLExpressible)>) -> SQLExpression {
        editor("JSON_REPLACE", value, assignments)
    }

    /// `JSON_SET(value, path, newValue, ...)`: sets the paths.
    ///
    /// ```swift
    /// // UPDATE "player" SET "info" = JSON_SET("info", '$.level', 2)
    /// try Player.updateAll(db, [Column("info").set(to: Database.jsonSet(Column("info"), ["$.level": 2]))])
    /// ```
    public static func jsonSet(_ value: some SQLExpressible,
                               _ assignments: some Collection<(key: String, value: any SQLExpressible)>) -> SQLExpression {
        editor("JSON_SET", value, assignments)
    }

    /// `JSON_OBJECT(key, value, ...)`.
    public static func jsonObject(_ elements: some Collection<(key: String, value: any SQLExpressible)>) -> SQLExpression {
        builder("JSON_OBJECT", pairs(elements))
    }

    /// `JSON_PATCH(value, patch)`: RFC 7396 MergePatch.
    public static func jsonPatch(_ value: some SQLExpressible, with patch: some SQLExpressible) -> SQLExpression {
        .function("JSON_PATCH", [value.sqlExpression, patch.sqlExpression])
    }

    /// `JSON_REMOVE(value, path)`.
    public static func jsonRemove(_ value: some SQLExpressible, atPath path: some SQLExpressible) -> SQLExpression {
        .function("JSON_REMOVE", [value.sqlExpression, path.sqlExpression])
    }

    /// `JSON_REMOVE(value, path, ...)`.
    public static func jsonRemove(_ value: some SQLExpressible, atPaths paths: some Collection<some SQLExpressible>) -> SQLExpression {
        .function("JSON_REMOVE", [value.sqlExpression] + paths.map(\.sqlExpression))
    }

    /// `JSON_TYPE(value)`: `object`, `array`, `text`, `integer`...
    public static func jsonType(_ value: some SQLExpressible) -> SQLExpression {
        .function("JSON_TYPE", [value.sqlExpression])
    }

    /// `JSON_TYPE(value, path)`.
    public static func jsonType(_ value: some SQLExpressible, atPath path: some SQLExpressible) -> SQLExpression {
        .function("JSON_TYPE", [value.sqlExpression, path.sqlExpression])
    }

    /// `JSON_VALID(value[, options])`: 1 when the value is JSON.
    public static func jsonIsValid(_ value: some SQLExpressible, options: JSONValidationOptions? = nil) -> SQLExpression {
        .function("JSON_VALID", [value.sqlExpression] + (options.map { [$0.rawValue.sqlExpression] } ?? []))
    }

    /// `JSON_QUOTE(value)`: the value as a JSON string or number.
    public static func jsonQuote(_ value: some SQLExpressible) -> SQLExpression {
        builder("JSON_QUOTE", [value.sqlExpression])
    }

    /// `JSON_GROUP_ARRAY(value)`: an aggregate, the values of the group as
    /// a JSON array.
    public static func jsonGroupArray(_ value: some SQLExpressible, orderBy ordering: (any SQLOrderingTerm)? = nil,
                                      filter: (any SQLSpecificExpressible)? = nil) -> SQLExpression {
        .aggregate("JSON_GROUP_ARRAY", [value.sqlExpression.jsonBuilderExpression], filter: filter?.sqlExpression,
                   ordering: ordering?.sqlOrdering)
    }

    /// `JSON_GROUP_OBJECT(key, value)`: an aggregate, the group as a JSON
    /// object.
    public static func jsonGroupObject(key: some SQLExpressible, value: some SQLExpressible,
                                       filter: (any SQLSpecificExpressible)? = nil) -> SQLExpression {
        .aggregate("JSON_GROUP_OBJECT", [key.sqlExpression, value.sqlExpression.jsonBuilderExpression],
                   filter: filter?.sqlExpression)
    }

    /// The flags of `JSON_VALID` (SQLite 3.45).
    public struct JSONValidationOptions: OptionSet, Sendable {
        /// The flags, as SQLite reads them.
        public let rawValue: Int

        /// Options from SQLite's flags.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// RFC 8259 JSON text.
        public static let json = JSONValidationOptions(rawValue: 1)
        /// JSON5 text.
        public static let json5 = JSONValidationOptions(rawValue: 2)
        /// Looks like JSONB.
        public static let probablyJSONB = JSONValidationOptions(rawValue: 4)
        /// JSONB.
        public static let jsonb = JSONValidationOptions(rawValue: 8)
    }

    // MARK: - JSONB (SQLite 3.45)
    //
    // Each JSONB function takes the arguments of its JSON twin and returns
    // SQLite's binary JSON: it is written as the twin, renamed.

    /// `JSONB(value)`: the value in SQLite's binary JSON.
    public static func jsonb(_ value: some SQLExpressible) -> SQLExpression {
        .function("JSONB", [value.sqlExpression])
    }

    /// `JSONB_ARRAY(value, ...)`.
    public static func jsonbArray(_ values: some Collection<some SQLExpressible>) -> SQLExpression {
        binary(jsonArray(values))
    }

    /// `JSONB_ARRAY(value, ...)`, of values of any type.
    public static func jsonbArray(_ values: some Collection<any SQLExpressible>) -> SQLExpression {
        binary(jsonArray(values))
    }

    /// `JSONB_EXTRACT(value, path)`.
    public static func jsonbExtract(_ value: some SQLExpressible, atPath path: some SQLExpressible) -> SQLExpression {
        binary(jsonExtract(value, atPath: path))
    }

    /// `JSONB_EXTRACT(value, path, ...)`.
    public static func jsonbExtract(_ value: some SQLExpressible, atPaths paths: some Collection<some SQLExpressible>) -> SQLExpression {
        binary(jsonExtract(value, atPaths: paths))
    }

    /// `JSONB_INSERT(value, path, newValue, ...)`.
    public static func jsonbInsert(_ value: some SQLExpressible,
                                   _ assignments: some Collection<(key: String, value: any SQLExpressible)>) -> SQLExpression {
        binary(jsonInsert(value, assignments))
    }

    /// `JSONB_REPLACE(value, path, newValue, ...)`.
    public static func jsonbReplace(_ value: some SQLExpressible,
                                    _ assignments: some Collection<(key: String, value: any SQLExpressible)>) -> SQLExpression {
        binary(jsonReplace(value, assignments))
    }

    /// `JSONB_SET(value, path, newValue, ...)`.
    public static func jsonbSet(_ value: some SQLExpressible,
                                _ assignments: some Collection<(key: String, value: any SQLExpressible)>) -> SQLExpression {
        binary(jsonSet(value, assignments))
    }

    /// `JSONB_OBJECT(key, value, ...)`.
    public static func jsonbObject(_ elements: some Collection<(key: String, value: any SQLExpressible)>) -> SQLExpression {
        binary(jsonObject(elements))
    }

    /// `JSONB_PATCH(value, patch)`.
    public static func jsonbPatch(_ value: some SQLExpressible, with patch: some SQLExpressible) -> SQLExpression {
        binary(jsonPatch(value, with: patch))
    }

    /// `JSONB_REMOVE(value, path)`.
    public static func jsonbRemove(_ value: some SQLExpressible, atPath path: some SQLExpressible) -> SQLExpression {
        binary(jsonRemove(value, atPath: path))
    }

    /// `JSONB_REMOVE(value, path, ...)`.
    public static func jsonbRemove(_ value: some SQLExpressible, atPaths paths: some Collection<some SQLExpressible>) -> SQLExpression {
        binary(jsonRemove(value, atPaths: paths))
    }

    /// `JSONB_GROUP_ARRAY(value)`.
    public static func jsonbGroupArray(_ value: some SQLExpressible, orderBy ordering: (any SQLOrderingTerm)? = nil,
                                       filter: (any SQLSpecificExpressible)? = nil) -> SQLExpression {
        binary(jsonGroupArray(value, orderBy: ordering, filter: filter))
    }

    /// `JSONB_GROUP_OBJECT(key, value)`.
    public static func jsonbGroupObject(key: some SQLExpressible, value: some SQLExpressible,
                                        filter: (any SQLSpecificExpressible)? = nil) -> SQLExpression {
        binary(jsonGroupObject(key: key, value: value, filter: filter))
    }

    /// The JSONB twin of a JSON function call: `JSON_SET(...)` becomes
    /// `JSONB_SET(...)`, with the same arguments.
    private static func binary(_ expression: SQLExpression) -> SQLExpression {
        guard case .function(var call) = expression.impl, call.name.hasPrefix("JSON") else { return expression }
        call.name = "JSONB" + call.name.dropFirst(4)
        return SQLExpression(impl: .function(call))
    }

    // MARK: - Builders

    /// A function that builds JSON from its arguments: JSON values go in
    /// as JSON.
    private static func builder(_ name: String, _ arguments: [SQLExpression]) -> SQLExpression {
        .function(name, arguments.map(\.jsonBuilderExpression))
    }

    /// `NAME(value, path, newValue, ...)`.
    private static func editor(_ name: String, _ value: some SQLExpressible,
                               _ assignments: some Collection<(key: String, value: any SQLExpressible)>) -> SQLExpression {
        .function(name, [value.sqlExpression] + pairs(assignments).map(\.jsonBuilderExpression))
    }

    /// `key, value, key, value...`
    private static func pairs(_ elements: some Collection<(key: String, value: any SQLExpressible)>) -> [SQLExpression] {
        elements.flatMap { [$0.key.sqlExpression, $0.value.sqlExpression] }
    }
}

extension SQLExpression {
    /// `->>`: the value at a path, as an SQL value (SQLite 3.38).
    static let jsonExtractSQL = "->>"
    /// `->`: the value at a path, as JSON (SQLite 3.38).
    static let jsonExtractJSON = "->"

    /// True when the expression's value is JSON: a function that returns
    /// JSON, or `->`.
    var isJSONValue: Bool {
        switch impl {
        case .function(let call): return SQLExpression.jsonValueFunctions.contains(call.name.uppercased())
        case let .binary(op, _, _): return op == SQLExpression.jsonExtractJSON
        default: return false
        }
    }

    /// The expression as JSON builders take it: a JSON value that SQLite
    /// would read as a string goes through `JSONB()` (SQLite 3.45 and
    /// later) or `JSON()`.
    var jsonBuilderExpression: SQLExpression {
        guard preferredJSONInterpretation == .jsonValue, !isJSONValue else { return self }
        // NULL is JSON null as it is.
        if case .databaseValue(let value) = impl, value.isNull { return self }
        return .function(Database.sqliteLibVersionNumber >= 3_045_000 ? "JSONB" : "JSON", [self])
    }

    /// The SQLite version a function of this name needs, when SQLCipher
    /// 3.4.1's SQLite (3.15.2) lacks it: JSON functions are built into
    /// SQLite 3.38, JSON_ERROR_POSITION 3.42, JSONB 3.45.
    static func sqliteVersion(ofFunction name: String) -> Int32? {
        let upper = name.uppercased()
        if upper.hasPrefix("JSONB") { return 3_045_000 }
        if upper == "JSON_ERROR_POSITION" { return 3_042_000 }
        if upper == "JSON" || upper.hasPrefix("JSON_") { return 3_038_000 }
        return nil
    }
}
