/// A column that holds JSON: a ``ColumnExpression`` with the JSON operators
/// and functions of ``SQLJSONExpressible``.
///
/// ```swift
/// struct Player: Codable, FetchableRecord, PersistableRecord {
///     var name: String
///     var address: Address          // stored as JSON text
///     enum Columns {
///         static let address = JSONColumn("address")
///     }
/// }
/// let parisians = try Player.filter(Player.Columns.address["city"] == "Paris").fetchAll(db)
/// ```
public struct JSONColumn: ColumnExpression, SQLJSONExpressible, Sendable {
    /// The name of the column.
    public var name: String

    /// A JSON column named `name`.
    public init(_ name: String) {
        self.name = name
    }

    /// A JSON column named after a coding key.
    public init(_ codingKey: some CodingKey) {
        self.name = codingKey.stringValue
    }
}
