import Foundation

extension FetchableRecord where Self: Decodable {
    /// Decodes each property from the column of the same name.
    public init(row: Row) throws {
        try self.init(from: RowDecoder(row: row))
    }
}

/// Decodes a record from a row: keys are column names.
struct RowDecoder: Decoder {
    let row: Row
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        // A cursor's row reads its statement and decodes one record per
        // step: reuse the container and the column plan of the first.
        if let cache = row.decodingCache {
            return cache.container(keyedBy: Key.self)
        }
        return KeyedDecodingContainer(RowKeyedContainer<Key>(source: .row(row), plan: nil))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: [], debugDescription: "a row decodes as a keyed container"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(Any.self, .init(codingPath: [], debugDescription: "a row decodes as a keyed container"))
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
