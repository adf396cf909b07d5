import Foundation
internal import CSQLCipher

// Conformances of Foundation's value types.

extension Data: DatabaseValueConvertible, StatementColumnConvertible {
    /// Stored as a BLOB; an empty Data is an empty BLOB, not NULL.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .blob(self)) }

    /// Accepts BLOBs, and TEXT as its UTF-8 bytes.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Data? {
        switch dbValue.storage {
        case .blob(let data): return data
        case .string(let string): return Data(string.utf8)
        default: return nil
        }
    }

    /// The bytes of SQLite's blob conversion of the column; nil for NULL.
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard sqlite3_column_type(sqliteStatement, index) != SQLITE_NULL else { return nil }
        self.init(columnOf: sqliteStatement, at: index)
    }
}

extension UUID: DatabaseValueConvertible {
    /// Stored as a 16-byte BLOB.
    public var databaseValue: DatabaseValue {
        withUnsafeBytes(of: uuid) { DatabaseValue(storage: .blob(Data($0))) }
    }

    /// Accepts 16-byte BLOBs and the text form (`E621E1F8-C36C-495A-...`).
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> UUID? {
        switch dbValue.storage {
        case .blob(let data) where data.count == 16:
            var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &bytes) { $0.copyBytes(from: data) }
            return UUID(uuid: bytes)
        case .string(let string):
            return UUID(uuidString: string)
        default:
            return nil
        }
    }
}

extension URL: DatabaseValueConvertible {
    /// Stored as its absolute string.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .string(absoluteString)) }

    /// The URL of a TEXT value; nil for other storage or an invalid URL.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> URL? {
        String.fromDatabaseValue(dbValue).flatMap { URL(string: $0) }
    }
}

extension Date: DatabaseValueConvertible {
    /// Stored as UTC text `yyyy-MM-dd HH:mm:ss.SSS`, which sorts in time
    /// order and which SQLite's date functions understand.
    public var databaseValue: DatabaseValue {
        DatabaseValue(storage: .string(SQLiteDateFormat.string(from: self)))
    }

    /// Accepts the date texts of ``DatabaseDateComponents`` that have a
    /// day (`2024-05-01`, `2024-05-01 13:45:00.123`, `2024-05-01T13:45Z`,
    /// `...+02:00`) and numbers as seconds since 1970. A time alone is not
    /// a date.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Date? {
        switch dbValue.storage {
        case .int64(let seconds): return Date(timeIntervalSince1970: TimeInterval(seconds))
        case .double(let seconds): return Date(timeIntervalSince1970: seconds)
        case .string(let text): return SQLiteDateFormat.date(from: text)
        default: return nil
        }
    }
}

extension Date: StatementColumnConvertible {
    /// Reads numbers as seconds since 1970, and date texts without a copy.
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        switch sqlite3_column_type(sqliteStatement, index) {
        case SQLITE_INTEGER, SQLITE_FLOAT:
            self.init(timeIntervalSince1970: sqlite3_column_double(sqliteStatement, index))
        case SQLITE_TEXT:
            guard let components = DatabaseDateComponents(sqliteStatement: sqliteStatement, index: index),
                  let date = SQLiteDateFormat.date(from: components) else { return nil }
            self = date
        default:
            return nil
        }
    }
}

extension Date {
    /// The date of a [Julian day](https://en.wikipedia.org/wiki/Julian_day),
    /// as SQLite's `julianday()` returns it, to the millisecond as SQLite
    /// keeps it; nil outside the days SQLite's date functions cover (years
    /// 4714 BC to 9999).
    ///
    /// ```swift
    /// let day = try Double.fetchOne(db, sql: "SELECT julianday('2013-01-01 00:30')")!
    /// let date = Date(julianDay: day)   // 2013-01-01 00:30:00 UTC
    /// ```
    public init?(julianDay: Double) {
        guard julianDay.isFinite, (0...5_373_484.5).contains(julianDay) else { return nil }
        // Milliseconds since the Julian epoch, truncated as SQLite does,
        // then from the Unix epoch (Julian day 2,440,587.5).
        let milliseconds = Int64(julianDay * 86_400_000)
        self.init(timeIntervalSince1970: Double(milliseconds - 210_866_760_000_000) / 1000)
    }
}
