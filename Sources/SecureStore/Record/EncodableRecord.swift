import Foundation

/// The column values of a record, in order.
public struct PersistenceContainer: Sendable {
    private(set) var columns: [String] = []
    private(set) var values: [DatabaseValue] = []

    public init() {}

    /// Removes every column, keeping the storage when it is not shared.
    mutating func removeAllKeepingCapacity(_ minimumCapacity: Int) {
        columns.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
        if columns.capacity < minimumCapacity {
            columns.reserveCapacity(minimumCapacity)
            values.reserveCapacity(minimumCapacity)
        }
    }

    /// The value of a column (case-insensitive); setting a new column
    /// appends it.
    public subscript(_ column: String) -> (any DatabaseValueConvertible)? {
        get { index(of: column).flatMap { Row.storedValue(values[$0]) } }
        set {
            let value = DatabaseValue(value: newValue)
            if let index = index(of: column) { values[index] = value } else {
                columns.append(column)
                values.append(value)
            }
        }
    }

    /// Sets a column's value; a new column is appended. Columns are
    /// matched exactly: the encoder's keys are the record's coding keys,
    /// unique by construction, and this runs for every property of every
    /// insert (two keys that differ only by case make SQLite report a
    /// duplicate column).
    mutating func set(_ value: consuming DatabaseValue, forColumn column: String) {
        if let index = columns.firstIndex(of: column) {
            values[index] = value
        } else {
            columns.append(column)
            values.append(value)
        }
    }

    /// Appends a column known not to be there yet.
    mutating func append(_ value: consuming DatabaseValue, forColumn column: String) {
        columns.append(column)
        values.append(value)
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
public protocol EncodableRecord {
    func encode(to container: inout PersistenceContainer) throws
}

extension EncodableRecord {
    /// The record's columns and values.
    public var databaseDictionary: [String: DatabaseValue] {
        get throws {
            let container = try persistenceContainer()
            return Dictionary(zip(container.columns, container.values)) { first, _ in first }
        }
    }

    func persistenceContainer() throws -> PersistenceContainer {
        var container = PersistenceContainer()
        try encode(to: &container)
        return container
    }
}

extension EncodableRecord where Self: Encodable {
    public func encode(to container: inout PersistenceContainer) throws {
        container = try RecordEncoder.persistenceContainer(of: self)
    }
}

/// The stored value of one property: DatabaseValueConvertible values as
/// themselves, single values (raw enums) as their raw value, anything else
/// as JSON text with sorted keys.
enum ColumnValueEncoder {
    static func databaseValue<T: Encodable>(of value: T) throws -> DatabaseValue {
        if let convertible = value as? any DatabaseValueConvertible { return convertible.databaseValue }
        let single = SingleValueCapture()
        do {
            try value.encode(to: single)
            if let captured = single.value { return captured }
        } catch is ColumnValueDecoder.NeedsJSON {}
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return DatabaseValue(storage: .string(String(decoding: try encoder.encode(value), as: UTF8.self)))
    }

    /// Captures a value encoded through a single value container.
    private final class SingleValueCapture: Encoder, SingleValueEncodingContainer {
        var value: DatabaseValue?
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            KeyedEncodingContainer(Refusing<Key>())
        }
        func unkeyedContainer() -> any UnkeyedEncodingContainer { RefusingUnkeyed() }
        func singleValueContainer() -> any SingleValueEncodingContainer { self }

        func encodeNil() throws { value = .null }
        func encode<T: Encodable>(_ value: T) throws { self.value = try ColumnValueEncoder.databaseValue(of: value) }
    }

    /// Containers that make the caller fall back to JSON.
    private struct Refusing<Key: CodingKey>: KeyedEncodingContainerProtocol {
        var codingPath: [any CodingKey] { [] }
        mutating func encodeNil(forKey key: Key) throws { throw ColumnValueDecoder.NeedsJSON() }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { throw ColumnValueDecoder.NeedsJSON() }
        mutating func nestedContainer<N: CodingKey>(keyedBy keyType: N.Type, forKey key: Key) -> KeyedEncodingContainer<N> {
            KeyedEncodingContainer(Refusing<N>())
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { RefusingUnkeyed() }
        mutating func superEncoder() -> any Encoder { SingleValueCapture() }
        mutating func superEncoder(forKey key: Key) -> any Encoder { SingleValueCapture() }
    }

    private struct RefusingUnkeyed: UnkeyedEncodingContainer {
        var codingPath: [any CodingKey] { [] }
        var count: Int { 0 }
        mutating func encodeNil() throws { throw ColumnValueDecoder.NeedsJSON() }
        mutating func encode<T: Encodable>(_ value: T) throws { throw ColumnValueDecoder.NeedsJSON() }
        mutating func nestedContainer<N: CodingKey>(keyedBy keyType: N.Type) -> KeyedEncodingContainer<N> {
            KeyedEncodingContainer(Refusing<N>())
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { RefusingUnkeyed() }
        mutating func superEncoder() -> any Encoder { SingleValueCapture() }
    }
}
