import Foundation

// How `Encodable` records store dates, data, UUIDs and column names. A
// record picks a strategy per column by overriding the static methods of
// ``EncodableRecord``, as in GRDB:
//
//     struct Player: Encodable, PersistableRecord {
//         var createdAt: Date
//         static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
//             .timeIntervalSince1970
//         }
//     }

/// How an `Encodable` record stores `Data` properties.
public enum DatabaseDataEncodingStrategy: Sendable {
    /// As a BLOB.
    case deferredToData
    /// As UTF-8 text; data that is not UTF-8 is an error.
    case text
    /// As the value the closure returns (NULL for nil).
    case custom(@Sendable (Data) -> (any DatabaseValueConvertible)?)

    func encode(_ data: Data) throws -> DatabaseValue {
        switch self {
        case .deferredToData:
            return data.databaseValue
        case .text:
            guard let text = String(data: data, encoding: .utf8) else {
                throw EncodingError.invalidValue(data, .init(codingPath: [], debugDescription: "Non-UTF8 data can't be encoded as text in the database"))
            }
            return text.databaseValue
        case .custom(let format):
            return format(data)?.databaseValue ?? .null
        }
    }
}

/// How an `Encodable` record stores `Date` properties.
public enum DatabaseDateEncodingStrategy: @unchecked Sendable {
    // @unchecked: DateFormatter is not Sendable, and is used read-only.

    /// As UTC text `yyyy-MM-dd HH:mm:ss.SSS`.
    case deferredToDate
    /// As a REAL number of seconds since 2001-01-01 UTC.
    case timeIntervalSinceReferenceDate
    /// As a REAL number of seconds since 1970-01-01 UTC.
    case timeIntervalSince1970
    /// As an INTEGER number of whole seconds since 1970, rounded down.
    case secondsSince1970
    /// As an INTEGER number of whole milliseconds since 1970, rounded down.
    case millisecondsSince1970
    /// As ISO 8601 text, with a time zone (`2024-05-01T13:45:00Z`).
    case iso8601
    /// As the text of a date formatter.
    case formatted(DateFormatter)
    /// As the value the closure returns (NULL for nil).
    case custom(@Sendable (Date) -> (any DatabaseValueConvertible)?)

    func encode(_ date: Date) -> DatabaseValue {
        switch self {
        case .deferredToDate:
            return date.databaseValue
        case .timeIntervalSinceReferenceDate:
            return date.timeIntervalSinceReferenceDate.databaseValue
        case .timeIntervalSince1970:
            return date.timeIntervalSince1970.databaseValue
        case .secondsSince1970:
            return Int64((date.timeIntervalSince1970).rounded(.down)).databaseValue
        case .millisecondsSince1970:
            return Int64((1000 * date.timeIntervalSince1970).rounded(.down)).databaseValue
        case .iso8601:
            return ISO8601DateFormatter.string(from: date, timeZone: TimeZone(secondsFromGMT: 0)!, formatOptions: .withInternetDateTime)
                .databaseValue
        case .formatted(let formatter):
            return formatter.string(from: date).databaseValue
        case .custom(let format):
            return format(date)?.databaseValue ?? .null
        }
    }
}

/// How an `Encodable` record stores `UUID` properties.
public enum DatabaseUUIDEncodingStrategy: Sendable {
    /// As a 16-byte BLOB.
    case deferredToUUID
    /// As uppercase text (`E621E1F8-C36C-495A-93FC-0C247A3E6E5F`).
    case uppercaseString
    /// As lowercase text.
    case lowercaseString

    func encode(_ uuid: UUID) -> DatabaseValue {
        switch self {
        case .deferredToUUID: return uuid.databaseValue
        case .uppercaseString: return uuid.uuidString.databaseValue
        case .lowercaseString: return uuid.uuidString.lowercased().databaseValue
        }
    }
}

/// How an `Encodable` record names the columns of its coding keys.
public enum DatabaseColumnEncodingStrategy: Sendable {
    /// The coding key is the column name.
    case useDefaultKeys
    /// `playerID` is stored in `player_id`.
    case convertToSnakeCase
    /// The column the closure returns.
    case custom(@Sendable (any CodingKey) -> String)

    func column(forKey key: some CodingKey) -> String {
        switch self {
        case .useDefaultKeys: return key.stringValue
        case .convertToSnakeCase: return SnakeCase.fromCamelCase(key.stringValue)
        case .custom(let column): return column(key)
        }
    }

    var isDefault: Bool {
        if case .useDefaultKeys = self { return true }
        return false
    }
}

/// Conversions between `camelCase` keys and `snake_case` columns, as
/// Foundation's JSON coders do: leading and trailing underscores are kept,
/// and a run of capitals is a word (`myURLValue` is `my_url_value`).
enum SnakeCase {
    static func fromCamelCase(_ key: String) -> String {
        let characters = Array(key)
        guard let first = characters.firstIndex(where: { $0 != "_" }),
              let last = characters.lastIndex(where: { $0 != "_" }) else { return key }
        var words: [String] = []
        var word = ""
        for index in first...last {
            let character = characters[index]
            if character.isUppercase, !word.isEmpty {
                let previous = characters[index - 1]
                let next = index < last ? characters[index + 1] : nil
                // A capital starts a word after a lowercase letter or a digit,
                // or when it ends a run of capitals before a lowercase letter.
                if !previous.isUppercase || (next?.isLowercase ?? false) {
                    words.append(word)
                    word = ""
                }
            }
            word.append(character)
        }
        words.append(word)
        return String(characters[..<first]) + words.map { $0.lowercased() }.joined(separator: "_") + String(characters[(last + 1)...])
    }

    static func toCamelCase(_ column: String) -> String {
        let characters = Array(column)
        guard let first = characters.firstIndex(where: { $0 != "_" }),
              let last = characters.lastIndex(where: { $0 != "_" }) else { return column }
        let words = String(characters[first...last]).split(separator: "_")
        let joined = words.count == 1
            ? String(words[0])
            : ([words[0].lowercased()] + words.dropFirst().map { $0.capitalized }).joined()
        return String(characters[..<first]) + joined + String(characters[(last + 1)...])
    }
}
