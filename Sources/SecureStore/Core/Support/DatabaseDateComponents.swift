import Foundation
internal import CSQLCipher

/// Date components stored as SQLite date text, with the precision of a
/// format: a day, a time of day, or both.
///
/// ```swift
/// let birthday = DatabaseDateComponents(DateComponents(year: 1985, month: 3, day: 21), format: .YMD)
/// try db.execute(sql: "INSERT INTO person (birthday) VALUES (?)", arguments: [birthday])   // '1985-03-21'
/// let alarm = try DatabaseDateComponents.fetchOne(db, sql: "SELECT '07:30'")               // .HM
/// ```
///
/// Reading accepts `YYYY-MM-DD`, a time (`HH:MM`, `HH:MM:SS`,
/// `HH:MM:SS.SSS`), or both separated by a space or `T`, then an optional
/// `Z` or `±HH:MM` time zone.
public struct DatabaseDateComponents: Sendable {
    /// The precision of stored components.
    public enum Format: String, Sendable {
        /// `1985-03-21`
        case YMD = "yyyy-MM-dd"
        /// `1985-03-21 07:30`
        case YMD_HM = "yyyy-MM-dd HH:mm"
        /// `1985-03-21 07:30:15`
        case YMD_HMS = "yyyy-MM-dd HH:mm:ss"
        /// `1985-03-21 07:30:15.500`
        case YMD_HMSS = "yyyy-MM-dd HH:mm:ss.SSS"
        /// `07:30`
        case HM = "HH:mm"
        /// `07:30:15`
        case HMS = "HH:mm:ss"
        /// `07:30:15.500`
        case HMSS = "HH:mm:ss.SSS"

        /// True for formats with a year, month and day.
        var hasYMDComponents: Bool {
            switch self {
            case .YMD, .YMD_HM, .YMD_HMS, .YMD_HMSS: return true
            case .HM, .HMS, .HMSS: return false
            }
        }
    }

    /// The components.
    public let dateComponents: DateComponents

    /// The format they are stored in.
    public let format: Format

    /// Components stored in a format; components the format does not show
    /// are not stored, and missing ones are zero (or one, for month and day).
    public init(_ dateComponents: DateComponents, format: Format) {
        self.dateComponents = dateComponents
        self.format = format
    }
}

extension DatabaseDateComponents: DatabaseValueConvertible {
    /// The components as SQLite date text.
    public var databaseValue: DatabaseValue {
        let parts = dateComponents
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        var chunks: [String] = []
        if format.hasYMDComponents {
            chunks.append("\(pad(parts.year ?? 0, 4))-\(pad(parts.month ?? 1, 2))-\(pad(parts.day ?? 1, 2))")
        }
        var time = ""
        switch format {
        case .YMD:
            break
        case .YMD_HM, .HM:
            time = "\(pad(parts.hour ?? 0, 2)):\(pad(parts.minute ?? 0, 2))"
        case .YMD_HMS, .HMS:
            time = "\(pad(parts.hour ?? 0, 2)):\(pad(parts.minute ?? 0, 2)):\(pad(parts.second ?? 0, 2))"
        case .YMD_HMSS, .HMSS:
            let milliseconds = Int((Double(parts.nanosecond ?? 0) / 1_000_000).rounded())
            time = "\(pad(parts.hour ?? 0, 2)):\(pad(parts.minute ?? 0, 2)):\(pad(parts.second ?? 0, 2)).\(pad(milliseconds, 3))"
        }
        if !time.isEmpty { chunks.append(time) }
        return DatabaseValue(storage: .string(chunks.joined(separator: " ")))
    }

    /// The components of a date text; nil for other values.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> DatabaseDateComponents? {
        guard case .string(let text) = dbValue.storage else { return nil }
        return SQLiteDateFormat.components(from: text)
    }
}

extension DatabaseDateComponents: StatementColumnConvertible {
    /// The components of a TEXT column, parsed without a copy.
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard sqlite3_column_type(sqliteStatement, index) == SQLITE_TEXT,
              let text = sqlite3_column_text(sqliteStatement, index) else { return nil }
        let bytes = UnsafeRawBufferPointer(start: text, count: Int(sqlite3_column_bytes(sqliteStatement, index)))
        guard let components = SQLiteDateFormat.components(bytes) else { return nil }
        self = components
    }
}

extension DatabaseDateComponents: Codable {
    /// Decodes the components from their text.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let components = SQLiteDateFormat.components(from: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a date: \(String(reflecting: text))")
        }
        self = components
    }

    /// Encodes the components as their text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if case .string(let text) = databaseValue.storage { try container.encode(text) }
    }
}
