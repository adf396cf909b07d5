/// A type that names a column: ``Column``, or an enum of your own.
///
/// ```swift
/// enum Columns: String, ColumnExpression {
///     case id, name, score
/// }
/// let request = Player.order(Columns.score.desc)
/// ```
public protocol ColumnExpression: SQLSpecificExpressible {
    /// The column's name.
    var name: String { get }
}

extension ColumnExpression {
    /// `"name"`, qualified with the table alias when the request joins tables.
    public var sqlExpression: SQLExpression { .column(name) }

    /// The column written as is, never qualified with a table: for
    /// selections computed in the request itself (`annotated(with:)`
    /// aliases).
    public var detached: SQLExpression { SQL(sql: name.quotedDatabaseIdentifier).sqlExpression }
}

extension ColumnExpression where Self: RawRepresentable, Self.RawValue == String {
    /// The raw value is the column's name.
    public var name: String { rawValue }
}

/// A column of a table.
///
/// ```swift
/// let name = Column("name")
/// let request = Player.filter(name == "Arthur").order(name)
///
/// struct Player: Codable {
///     var name: String
///     enum Columns {
///         static let name = Column(CodingKeys.name)
///     }
/// }
/// ```
///
/// Not Equatable on purpose: `Column("a") == Column("b")` builds SQL.
public struct Column: ColumnExpression, Sendable {
    /// The hidden `rowid` column.
    public static let rowID = Column("rowid")

    /// The column's name.
    public var name: String

    /// The column with this name.
    public init(_ name: String) { self.name = name }

    /// The column of the same name as a coding key.
    public init(_ codingKey: some CodingKey) { self.name = codingKey.stringValue }
}

extension ColumnExpression where Self == Column {
    /// The hidden `rowid` column.
    public static var rowID: Self { Column.rowID }
}
