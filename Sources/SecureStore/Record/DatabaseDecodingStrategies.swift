import Foundation

// How `Decodable` records read dates, data and column names: the
// counterparts of DatabaseEncodingStrategies.swift, picked per column by
// overriding the static methods of ``FetchableRecord``.

/// How a `Decodable` record reads `Data` properties.
public enum DatabaseDataDecodingStrategy: Sendable {
    /// From a BLOB, or the UTF-8 bytes of TEXT.
    case deferredToData
    /// With the closure (nil is a decoding error).
    case custom(@Sendable (DatabaseValue) -> Data?)

    func decode(_ dbValue: DatabaseValue) -> Data? {
        switch self {
        case .deferredToData: return Data.fromDatabaseValue(dbValue)
        case .custom(let decode): return decode(dbValue)
        }
    }
}

/// How a `Decodable` record reads `Date` properties.
public enum DatabaseDateDecodingStrategy: @unchecked Sendable {
    // @unchecked: DateFormatter is not Sendable, and is used read-only.

    /// From SQLite date text, or a number of seconds since 1970.
    case deferredToDate
    /// From a number of seconds since 2001-01-01 UTC.
    case timeIntervalSinceReferenceDate
    /// From a number of seconds since 1970-01-01 UTC.
    case timeIntervalSince1970
    /// From a number of milliseconds since 1970-01-01 UTC.
    case millisecondsSince1970
    /// From ISO 8601 text with a time zone.
    case iso8601
    /// From the text of a date formatter.
    case formatted(DateFormatter)
    /// With the closure (nil is a decoding error).
    case custom(@Sendable (DatabaseValue) -> Date?)

    func decode(_ dbValue: DatabaseValue) -> Date? {
        switch self {
        case .deferredToDate:
            return Date.fromDatabaseValue(dbValue)
        case .timeIntervalSinceReferenceDate:
            return Double.fromDatabaseValue(dbValue).map(Date.init(timeIntervalSinceReferenceDate:))
        case .timeIntervalSince1970:
            return Double.fromDatabaseValue(dbValue).map(Date.init(timeIntervalSince1970:))
        case .millisecondsSince1970:
            return Double.fromDatabaseValue(dbValue).map { Date(timeIntervalSince1970: $0 / 1000) }
        case .iso8601:
            return String.fromDatabaseValue(dbValue).flatMap { ISO8601DateFormatter().date(from: $0) }
        case .formatted(let formatter):
            return String.fromDatabaseValue(dbValue).flatMap { formatter.date(from: $0) }
        case .custom(let decode):
            return decode(dbValue)
        }
    }
}

/// How a `Decodable` record finds the coding keys of its columns.
public enum DatabaseColumnDecodingStrategy: Sendable {
    /// The column name is the coding key.
    case useDefaultKeys
    /// The column `player_id` is the key `playerId`.
    case convertFromSnakeCase
    /// The key the closure returns for a column.
    case custom(@Sendable (String) -> any CodingKey)

    /// The key string of a column.
    func keyName(forColumn column: String) -> String {
        switch self {
        case .useDefaultKeys: return column
        case .convertFromSnakeCase: return SnakeCase.toCamelCase(column)
        case .custom(let key): return key(column).stringValue
        }
    }

    var isDefault: Bool {
        if case .useDefaultKeys = self { return true }
        return false
    }
}
