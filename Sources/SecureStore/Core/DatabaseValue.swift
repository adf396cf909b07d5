import Foundation
internal import CSQLCipher

/// A value stored in a database column: NULL, an integer, a real, text or
/// a blob.
///
/// ```swift
/// let dbValue = try DatabaseValue.fetchOne(db, sql: "SELECT name FROM player")
/// if let name = String.fromDatabaseValue(dbValue) { ... }
/// ```
public struct DatabaseValue: Hashable, Sendable, CustomStringConvertible {
    /// The SQLite storage classes.
    public enum Storage: Sendable, Equatable {
        /// NULL.
        case null
        /// An INTEGER.
        case int64(Int64)
        /// A REAL.
        case double(Double)
        /// TEXT.
        case string(String)
        /// A BLOB.
        case blob(Data)

        /// The stored value as Int64, Double, String or Data; nil for NULL.
        public var value: (any DatabaseValueConvertible)? {
            switch self {
            case .null: return nil
            case .int64(let value): return value
            case .double(let value): return value
            case .string(let value): return value
            case .blob(let value): return value
            }
        }

        /// Storages are equal when they hold the same storage class and
        /// value: unlike ``DatabaseValue``, the integer 1 and the real 1.0
        /// differ.
        public static func == (lhs: Storage, rhs: Storage) -> Bool {
            switch (lhs, rhs) {
            case (.null, .null): return true
            case let (.int64(a), .int64(b)): return a == b
            case let (.double(a), .double(b)): return a == b
            case let (.string(a), .string(b)): return a == b
            case let (.blob(a), .blob(b)): return a == b
            default: return false
            }
        }
    }

    /// How the value is stored.
    public let storage: Storage

    /// The NULL value.
    public static let null = DatabaseValue(storage: .null)

    /// True for NULL.
    public var isNull: Bool {
        if case .null = storage { return true }
        return false
    }

    init(storage: Storage) {
        self.storage = storage
    }

    /// Creates a value from any convertible value, or NULL for nil.
    public init(value: (any DatabaseValueConvertible)?) {
        self = value?.databaseValue ?? .null
    }

    /// Reads column `index` of the current row of a stepped statement, as
    /// a custom ``DumpFormat`` does.
    public init(sqliteStatement: SQLiteStatement, index: CInt) {
        switch sqlite3_column_type(sqliteStatement, index) {
        case SQLITE_NULL:
            storage = .null
        case SQLITE_INTEGER:
            storage = .int64(sqlite3_column_int64(sqliteStatement, index))
        case SQLITE_FLOAT:
            storage = .double(sqlite3_column_double(sqliteStatement, index))
        case SQLITE_TEXT:
            storage = .string(String(columnOf: sqliteStatement, at: index))
        default:
            storage = .blob(Data(columnOf: sqliteStatement, at: index))
        }
    }

    // Integers and reals compare by numeric value, as SQLite does.
    /// Equal storage; integers and doubles of the same value are equal, as in SQLite.
    public static func == (lhs: DatabaseValue, rhs: DatabaseValue) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case (.null, .null): return true
        case let (.int64(a), .int64(b)): return a == b
        case let (.double(a), .double(b)): return a == b
        case let (.int64(a), .double(b)), let (.double(b), .int64(a)): return Double(exactly: a) == b
        case let (.string(a), .string(b)): return a == b
        case let (.blob(a), .blob(b)): return a == b
        default: return false
        }
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) {
        switch storage {
        case .null: hasher.combine(0)
        case .int64(let value): hasher.combine(Double(value))
        case .double(let value): hasher.combine(value)
        case .string(let value): hasher.combine(value)
        case .blob(let value): hasher.combine(value)
        }
    }

    /// The value for logs: `NULL`, `1`, `"text"`, `Data(3 bytes)` (never a blob's bytes).
    public var description: String {
        switch storage {
        case .null: return "NULL"
        case .int64(let value): return String(value)
        case .double(let value): return String(value)
        case .string(let value): return String(reflecting: value)
        case .blob(let value): return "Data(\(value.count) bytes)"
        }
    }
}

extension DatabaseValue: DatabaseValueConvertible {
    /// The value itself.
    public var databaseValue: DatabaseValue { self }
    /// The value itself.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> DatabaseValue? { dbValue }
}

extension DatabaseValue: ExpressibleByNilLiteral {
    /// NULL, written `nil`.
    public init(nilLiteral: ()) { self = .null }
}

// MARK: - Column readers shared by DatabaseValue and the fast column path

extension String {
    /// The column's text; empty where SQLite gives none (NULL, an empty BLOB).
    init(columnOf sqliteStatement: SQLiteStatement, at index: CInt) {
        self = String(textOf: sqliteStatement, at: index) ?? ""
    }

    /// The column's text; nil where SQLite gives none (NULL, an empty BLOB).
    @inline(__always)
    init?(textOf sqliteStatement: SQLiteStatement, at index: CInt) {
        guard let text = sqlite3_column_text(sqliteStatement, index) else { return nil }
        let count = Int(sqlite3_column_bytes(sqliteStatement, index))
        self = String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }
}

extension Data {
    init(columnOf sqliteStatement: SQLiteStatement, at index: CInt) {
        // Ask for the pointer first: sqlite3_column_bytes may convert the value.
        guard let bytes = sqlite3_column_blob(sqliteStatement, index) else {
            self = Data()
            return
        }
        self = Data(bytes: bytes, count: Int(sqlite3_column_bytes(sqliteStatement, index)))
    }
}

extension Data {
    /// Calls `body` with the column's bytes, not copied: SQLite's blob
    /// conversion of the column, valid until the statement moves on.
    static func withBytesNoCopy<T>(columnOf sqliteStatement: SQLiteStatement, at index: CInt, _ body: (Data) throws -> T) rethrows -> T {
        guard let bytes = sqlite3_column_blob(sqliteStatement, index) else { return try body(Data()) }
        let count = Int(sqlite3_column_bytes(sqliteStatement, index))
        let data = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: bytes), count: count, deallocator: .none)
        return try body(data)
    }
}
