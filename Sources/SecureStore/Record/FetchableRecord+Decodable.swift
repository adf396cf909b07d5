import Foundation

extension FetchableRecord where Self: Decodable {
    /// Decodes each property from the column of the same name.
    public init(row: Row) throws {
        try self.init(from: RowDecoder(row: row))
    }
}

/// Decodes a record from a row: keys are column names.
private struct RowDecoder: Decoder {
    let row: Row
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(RowKeyedContainer(row: row))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: [], debugDescription: "a row decodes as a keyed container"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(Any.self, .init(codingPath: [], debugDescription: "a row decodes as a keyed container"))
    }
}

private struct RowKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let row: Row
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { row.columnNames.compactMap(Key.init(stringValue:)) }

    func contains(_ key: Key) -> Bool { row.hasColumn(key.stringValue) }

    func decodeNil(forKey key: Key) throws -> Bool {
        row.databaseValue(forColumn: key.stringValue)?.isNull ?? true
    }

    // The common types take the fast column path.
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try row.decode(forColumn: key.stringValue) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try row.decode(forColumn: key.stringValue) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try row.decode(forColumn: key.stringValue) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try row.decode(forColumn: key.stringValue) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try row.decode(forColumn: key.stringValue) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try row.decode(forColumn: key.stringValue) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try row.decode(forColumn: key.stringValue) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try row.decode(forColumn: key.stringValue) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try row.decode(forColumn: key.stringValue) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try row.decode(forColumn: key.stringValue) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try row.decode(forColumn: key.stringValue) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try row.decode(forColumn: key.stringValue) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try row.decode(forColumn: key.stringValue) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try row.decode(forColumn: key.stringValue) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let column = key.stringValue
        if let convertible = T.self as? any DatabaseValueConvertible.Type {
            guard let value = try row.decodeAny(convertible, forColumn: column) as? T else {
                throw RowDecodingError.columnNotFound(column, type: T.self)
            }
            return value
        }
        guard let dbValue = row.databaseValue(forColumn: column) else {
            throw RowDecodingError.columnNotFound(column, type: T.self)
        }
        return try ColumnValueDecoder.decode(T.self, from: dbValue, column: column)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw DecodingError.typeMismatch(type, .init(codingPath: [key], debugDescription: "nested containers are stored as JSON: decode a Codable type"))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: [key], debugDescription: "nested containers are stored as JSON: decode a Codable type"))
    }

    func superDecoder() throws -> any Decoder { RowDecoder(row: row) }
    func superDecoder(forKey key: Key) throws -> any Decoder { RowDecoder(row: row) }
}

extension Row {
    /// Decodes a column into a DatabaseValueConvertible type known only at
    /// run time (the generic Decodable path).
    func decodeAny(_ type: any DatabaseValueConvertible.Type, forColumn column: String) throws -> Any {
        func decode<T: DatabaseValueConvertible>(_: T.Type) throws -> Any { try self.decode(T.self, forColumn: column) }
        return try decode(type)
    }
}

/// Decodes a non-DatabaseValueConvertible value from one column: enums
/// with raw values through a single value container, and other Codable
/// values from JSON text.
enum ColumnValueDecoder {
    struct NeedsJSON: Error {}

    static func decode<T: Decodable>(_ type: T.Type, from dbValue: DatabaseValue, column: String) throws -> T {
        do {
            return try T(from: SingleColumnDecoder(dbValue: dbValue, column: column))
        } catch is NeedsJSON {
            let data: Data
            switch dbValue.storage {
            case .string(let text): data = Data(text.utf8)
            case .blob(let blob): data = blob
            default: throw RowDecodingError.valueMismatch(T.self, dbValue: dbValue, column: column, sql: nil)
            }
            return try JSONDecoder().decode(T.self, from: data)
        }
    }

    private struct SingleColumnDecoder: Decoder, SingleValueDecodingContainer {
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
            return try ColumnValueDecoder.decode(T.self, from: dbValue, column: column)
        }
    }
}
