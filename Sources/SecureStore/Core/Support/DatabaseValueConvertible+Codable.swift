import Foundation

// Values stored through their Codable form: enums with raw values, single
// value wrappers, and JSON for the rest. GRDB's default conformances for
// `RawRepresentable`, `Decodable` and `Encodable` value types.

extension DatabaseValueConvertible where Self: RawRepresentable, Self.RawValue: DatabaseValueConvertible {
    /// The raw value's database value.
    public var databaseValue: DatabaseValue { rawValue.databaseValue }

    /// The value whose raw value is stored.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        RawValue.fromDatabaseValue(dbValue).flatMap { Self(rawValue: $0) }
    }
}

extension StatementColumnConvertible where Self: RawRepresentable, Self.RawValue: StatementColumnConvertible {
    /// The value whose raw value is in the column.
    @inline(__always)
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let rawValue = RawValue(sqliteStatement: sqliteStatement, index: index) else { return nil }
        self.init(rawValue: rawValue)
    }
}

extension DatabaseValueConvertible where Self: Decodable {
    /// Decodes the value from a single value container, or from JSON text
    /// when its `Decodable` form is keyed or unkeyed.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        try? ColumnValueDecoder.decode(Self.self, from: dbValue, column: "") { Self.databaseJSONDecoder() }
    }
}

extension DatabaseValueConvertible where Self: Decodable & RawRepresentable, Self.RawValue: DatabaseValueConvertible {
    /// The value whose raw value is stored.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        RawValue.fromDatabaseValue(dbValue).flatMap { Self(rawValue: $0) }
    }
}

extension DatabaseValueConvertible where Self: Encodable {
    /// The value its `Encodable` form stores: a single value, or JSON text
    /// (with sorted keys) for keyed and unkeyed forms.
    public var databaseValue: DatabaseValue {
        do {
            return try ColumnValueEncoder.encodedDatabaseValue(of: self) { Self.databaseJSONEncoder() }
        } catch {
            fatalError("could not encode \(Self.self) into a database value: \(error)")
        }
    }
}

extension DatabaseValueConvertible where Self: Encodable & RawRepresentable, Self.RawValue: DatabaseValueConvertible {
    /// The raw value's database value.
    public var databaseValue: DatabaseValue { rawValue.databaseValue }
}

/// The stored value of one property: DatabaseValueConvertible values as
/// themselves, single values (raw enums) as their raw value, anything else
/// as JSON text with sorted keys.
enum ColumnValueEncoder {
    static func databaseValue<T: Encodable>(of value: T, codingPath: [any CodingKey] = [],
                                            userInfo: [CodingUserInfoKey: Any] = [:]) throws -> DatabaseValue {
        if let convertible = value as? any DatabaseValueConvertible { return convertible.databaseValue }
        return try encodedDatabaseValue(of: value, codingPath: codingPath, userInfo: userInfo) { JSONEncoder.databaseDefault() }
    }

    /// The value as its `Encodable` form stores it: a single value, or JSON
    /// text made by `json()`. The single value encoder has the coding path
    /// and user info of the column.
    static func encodedDatabaseValue<T: Encodable>(of value: T, codingPath: [any CodingKey] = [], userInfo: [CodingUserInfoKey: Any] = [:],
                                                   json: () -> JSONEncoder) throws -> DatabaseValue {
        let single = SingleValueCapture(codingPath: codingPath, userInfo: userInfo)
        do {
            try value.encode(to: single)
            if let captured = single.value { return captured }
        } catch is ColumnValueDecoder.NeedsJSON {}
        return DatabaseValue(storage: .string(String(decoding: try json().encode(value), as: UTF8.self)))
    }

    /// Captures a value encoded through a single value container.
    private final class SingleValueCapture: Encoder, SingleValueEncodingContainer {
        var value: DatabaseValue?
        let codingPath: [any CodingKey]
        let userInfo: [CodingUserInfoKey: Any]

        init(codingPath: [any CodingKey] = [], userInfo: [CodingUserInfoKey: Any] = [:]) {
            self.codingPath = codingPath
            self.userInfo = userInfo
        }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            KeyedEncodingContainer(Refusing<Key>())
        }
        func unkeyedContainer() -> any UnkeyedEncodingContainer { RefusingUnkeyed() }
        func singleValueContainer() -> any SingleValueEncodingContainer { self }

        func encodeNil() throws { value = .null }
        func encode<T: Encodable>(_ value: T) throws {
            self.value = try ColumnValueEncoder.databaseValue(of: value, codingPath: codingPath, userInfo: userInfo)
        }
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

/// Decodes a non-DatabaseValueConvertible value from one column: enums
/// with raw values through a single value container, and other Codable
/// values from JSON text.
enum ColumnValueDecoder {
    struct NeedsJSON: Error {}

    static func decode<T: Decodable>(_ type: T.Type, from dbValue: DatabaseValue, column: String,
                                     json: () -> JSONDecoder) throws -> T {
        do {
            return try T(from: SingleColumnDecoder(dbValue: dbValue, column: column))
        } catch is NeedsJSON {
            let data: Data
            switch dbValue.storage {
            case .string(let text): data = Data(text.utf8)
            case .blob(let blob): data = blob
            default: throw RowDecodingError.valueMismatch(T.self, dbValue: dbValue, column: column, sql: nil)
            }
            return try json().decode(T.self, from: data)
        }
    }

    struct SingleColumnDecoder: Decoder, SingleValueDecodingContainer {
        let dbValue: DatabaseValue
        let column: String
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> { throw NeedsJSON() }
        func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw NeedsJSON() }
        func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

        func decodeNil() -> Bool { dbValue.isNull }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            if let convertible = T.self as? any DatabaseValueConvertible.Type {
                func convert<C: DatabaseValueConvertible>(_: C.Type) throws -> Any {
                    try C.decode(from: dbValue, column: column, sql: nil)
                }
                if let value = try convert(convertible) as? T { return value }
            }
            return try ColumnValueDecoder.decode(T.self, from: dbValue, column: column) { JSONDecoder.databaseDefault() }
        }
    }
}
