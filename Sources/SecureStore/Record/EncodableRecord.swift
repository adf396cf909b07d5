import Foundation

/// The column values of a record, in order.
public struct PersistenceContainer: Sendable {
    private(set) var columns: [String] = []
    private(set) var values: [DatabaseValue] = []

    /// An empty container.
    public init() {}

    /// The columns and values of a record.
    public init(_ record: some EncodableRecord) throws {
        self.init()
        try record.encode(to: &self)
    }

    /// Removes the columns from `index` on (the encoder's reuse of the
    /// previous record's container). `removeLast` per element:
    /// `removeSubrange` goes through the generic `replaceSubrange`, about
    /// 250 instructions for a few columns.
    mutating func removeColumns(from index: Int) {
        while columns.count > index { columns.removeLast() }
        while values.count > index { values.removeLast() }
    }

    /// Replaces the value at `index` (the encoder's reuse of the previous
    /// record's container).
    mutating func replaceValue(at index: Int, with value: consuming DatabaseValue) {
        values[index] = value
    }

    /// The value of a column (case-insensitive); setting a new column
    /// appends it.
    public subscript(_ column: String) -> (any DatabaseValueConvertible)? {
        get { index(of: column).flatMap { values[$0].storage.value } }
        set {
            let value = DatabaseValue(value: newValue)
            if let index = index(of: column) { values[index] = value } else { append(value, forColumn: column) }
        }
    }

    /// The value of a column given as an expression (`container[.rowID]`,
    /// `container[Columns.name]`), as in GRDB.
    public subscript(_ column: some ColumnExpression) -> (any DatabaseValueConvertible)? {
        get { self[column.name] }
        set { self[column.name] = newValue }
    }

    /// Sets a column's value; a new column is appended. Columns are
    /// matched exactly: the encoder's keys are the record's coding keys,
    /// unique by construction, and this runs for each property of a
    /// record whose columns differ from the previous record's (two keys
    /// that differ only by case make SQLite report a duplicate column).
    mutating func set(_ value: consuming DatabaseValue, forColumn column: String) {
        if let index = columns.firstIndex(of: column) {
            values[index] = value
        } else {
            append(value, forColumn: column)
        }
    }

    /// Appends a column known not to be there yet.
    mutating func append(_ value: consuming DatabaseValue, forColumn column: String) {
        columns.append(column)
        values.append(value)
    }

    /// Stores the rowid an INSERT chose in its column, at `index` if the
    /// insert knows it (`CachedInsert.rowIDIndex`), else found by name.
    /// A value that is already this rowid stays: the values are not
    /// copied away from the encoder's storage (an allocation per insert).
    mutating func setRowID(_ rowID: Int64, column: String, index: Int?) {
        guard let index = index ?? self.index(of: column) else {
            append(DatabaseValue(storage: .int64(rowID)), forColumn: column)
            return
        }
        if case .int64(rowID) = values[index].storage { return }
        values[index] = DatabaseValue(storage: .int64(rowID))
    }

    func index(of column: String) -> Int? {
        columns.firstIndex { $0.isEqualIgnoringCase(column) }
    }

    func databaseValue(_ column: String) -> DatabaseValue? {
        index(of: column).map { values[$0] }
    }
}

/// A type that can encode itself into columns.
///
/// `Encodable` types get `encode(to:)` for free: each property goes to the
/// column of the same name (nil as NULL); nested `Codable` values are stored
/// as JSON text.
///
/// ## Topics
///
/// ### Customizing the format of columns
///
/// - ``databaseEncodingUserInfo``
/// - ``databaseJSONEncoder(for:)``
/// - ``databaseDataEncodingStrategy(for:)``
/// - ``databaseDateEncodingStrategy(for:)``
/// - ``databaseUUIDEncodingStrategy(for:)``
/// - ``databaseColumnEncodingStrategy``
public protocol EncodableRecord: SendableMetatype {
    /// Stores the record's values in the container.
    func encode(to container: inout PersistenceContainer) throws

    /// The `userInfo` of the encoder of `Encodable` records, and of the
    /// JSON encoders of their nested values.
    static var databaseEncodingUserInfo: [CodingUserInfoKey: Any] { get }

    /// The JSON encoder of a column that stores a nested `Encodable`
    /// value.
    static func databaseJSONEncoder(for column: String) -> JSONEncoder

    /// How a `Data` property is stored.
    static func databaseDataEncodingStrategy(for column: String) -> DatabaseDataEncodingStrategy

    /// How a `Date` property is stored.
    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy

    /// How a `UUID` property is stored.
    static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy

    /// How coding keys name columns.
    static var databaseColumnEncodingStrategy: DatabaseColumnEncodingStrategy { get }
}

extension EncodableRecord {
    /// Empty.
    public static var databaseEncodingUserInfo: [CodingUserInfoKey: Any] { [:] }

    /// Sorted keys, base64 data, dates as milliseconds since 1970, and an
    /// error for NaN and infinity, with ``databaseEncodingUserInfo``.
    public static func databaseJSONEncoder(for column: String) -> JSONEncoder {
        JSONEncoder.databaseDefault(userInfo: databaseEncodingUserInfo)
    }

    /// `.deferredToData`: a BLOB.
    public static func databaseDataEncodingStrategy(for column: String) -> DatabaseDataEncodingStrategy { .deferredToData }

    /// `.deferredToDate`: UTC text.
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .deferredToDate }

    /// `.deferredToUUID`: a 16-byte BLOB.
    public static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy { .deferredToUUID }

    /// `.useDefaultKeys`.
    public static var databaseColumnEncodingStrategy: DatabaseColumnEncodingStrategy { .useDefaultKeys }

    /// The stored value of a property of the record: dates, data and UUIDs
    /// with the strategies of their column.
    static func databaseValue(of value: some DatabaseValueConvertible, column: String) throws -> DatabaseValue {
        switch value {
        case let date as Date: return databaseDateEncodingStrategy(for: column).encode(date)
        case let data as Data: return try databaseDataEncodingStrategy(for: column).encode(data)
        case let uuid as UUID: return databaseUUIDEncodingStrategy(for: column).encode(uuid)
        default: return value.databaseValue
        }
    }

    /// The record's columns and values.
    public var databaseDictionary: [String: DatabaseValue] {
        get throws {
            let container = try persistenceContainer()
            return Dictionary(zip(container.columns, container.values)) { first, _ in first }
        }
    }

    /// A primary key value of `filter(key:)`, encoded as the record
    /// encodes its properties (dates, UUIDs and data strategies).
    static func encodedKey(_ key: some DatabaseValueConvertible, column: String) throws -> DatabaseValue {
        try databaseValue(of: key, column: column)
    }

    func persistenceContainer() throws -> PersistenceContainer {
        var container = PersistenceContainer()
        try encode(to: &container)
        return container
    }
}

extension EncodableRecord where Self: Encodable {
    /// The record's `Encodable` form, with its coding strategies.
    public func encode(to container: inout PersistenceContainer) throws {
        container = try RecordEncoder.persistenceContainer(of: self)
    }
}

extension EncodableRecord {
    /// True if the record has the same database values as `other`.
    public func databaseEquals(_ other: Self) -> Bool {
        (try? databaseChanges(from: other.persistenceContainer()).isEmpty) ?? false
    }

    /// The columns whose values differ from `other`'s, with `other`'s values.
    public func databaseChanges<Record: EncodableRecord>(from other: Record) throws -> [String: DatabaseValue] {
        try databaseChanges(from: other.persistenceContainer())
    }

    /// Changes the record with `modify` and returns the columns that
    /// changed, with their values from before.
    ///
    /// ```swift
    /// let changes = try player.databaseChanges { $0.score = 1000 }   // ["score": 0]
    /// ```
    public mutating func databaseChanges(modify: (inout Self) throws -> Void) throws -> [String: DatabaseValue] {
        let before = try persistenceContainer()
        try modify(&self)
        return try databaseChanges(from: before)
    }

    func databaseChanges(from old: PersistenceContainer) throws -> [String: DatabaseValue] {
        let new = try persistenceContainer()
        var changes: [String: DatabaseValue] = [:]
        for (column, value) in zip(new.columns, new.values) {
            // A column the old record does not have counts as NULL there.
            let oldValue = old.databaseValue(column) ?? .null
            if oldValue != value || !Self.isSameStorage(oldValue, value) { changes[column] = oldValue }
        }
        return changes
    }

    /// Integers and reals compare equal by value; a change of storage
    /// class (1 to 1.0) is still a change.
    private static func isSameStorage(_ lhs: DatabaseValue, _ rhs: DatabaseValue) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case (.int64, .double), (.double, .int64): return false
        default: return true
        }
    }
}
