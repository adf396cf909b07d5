internal import CSQLCipher

// Conformances of the standard library's value types.

// MARK: Integers

extension DatabaseValueConvertible where Self: FixedWidthInteger & Codable {
    /// Integers that do not fit Int64 (large UInt64 values) are stored as
    /// REAL, the way SQLite itself stores large integer literals.
    public var databaseValue: DatabaseValue {
        if let value = Int64(exactly: self) { return DatabaseValue(storage: .int64(value)) }
        return DatabaseValue(storage: .double(Double(self)))
    }

    /// Accepts integers that fit, and reals truncated toward zero that
    /// fit (as GRDB does: 1.9 reads as 1).
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        Int64.fromDatabaseValue(dbValue).flatMap { Self(exactly: $0) }
    }
}

// The fast path reads a live statement and lets SQLite convert the column,
// as GRDB does and documents ("GRDB will sometimes let those conversions go
// through"): `Int.fetchOne(db, sql: "PRAGMA cipher_page_size")` reads the
// TEXT '1024' as 1024. Copied rows and `fromDatabaseValue` stay strict.
// NULL is nil here, so that callers need no separate NULL check.
//
// The value is read first, and the column's type only when the value reads
// as NULL does (0, 0.0, a NULL pointer): `sqlite3_column_type` costs as
// much as the read itself (the connection's mutex, twice): about 270
// instructions per fetched row of four columns. Reading a value
// never turns a NULL into something else, or another value into NULL, so
// the type asked for afterwards still tells NULL apart.

/// False when the column is NULL, for a value that read as `readsAsNull`
/// (0, 0.0, no text): only such a value needs the column's type.
@inline(__always)
private func isNotNull(readsAsNull: Bool, _ sqliteStatement: SQLiteStatement, _ index: CInt) -> Bool {
    !readsAsNull || sqlite3_column_type(sqliteStatement, index) != SQLITE_NULL
}

extension StatementColumnConvertible where Self: FixedWidthInteger {
    /// SQLite's integer conversion of the column; nil for NULL, and for
    /// integers that do not fit.
    @inline(__always)
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        let integer = sqlite3_column_int64(sqliteStatement, index)
        guard isNotNull(readsAsNull: integer == 0, sqliteStatement, index),
              let value = Self(exactly: integer) else { return nil }
        self = value
    }
}

extension Int: DatabaseValueConvertible, StatementColumnConvertible, DirectlyBoundValue {
    // Concrete versions of the generic integer path: the generic one is not
    // specialized across modules, and costs several times more per column.
    /// The column's value read straight from the statement; nil for NULL or a value of another type.
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let value = Int64(sqliteStatement: sqliteStatement, index: index) else { return nil }
        self = Int(value)
    }
}
extension Int8: DatabaseValueConvertible, StatementColumnConvertible, DirectlyBoundValue {}
extension Int16: DatabaseValueConvertible, StatementColumnConvertible, DirectlyBoundValue {}
extension Int32: DatabaseValueConvertible, StatementColumnConvertible, DirectlyBoundValue {}
extension Int64: DatabaseValueConvertible, StatementColumnConvertible, DirectlyBoundValue {
    /// Accepts integers, and reals in range, truncated toward zero.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Int64? {
        switch dbValue.storage {
        case .int64(let value):
            return value
        case .double(let value):
            guard value >= Double(Int64.min), value < Double(Int64.max) else { return nil }
            return Int64(value)
        default:
            return nil
        }
    }

    /// SQLite's integer conversion of the column; nil for NULL.
    @inline(__always)
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        let value = sqlite3_column_int64(sqliteStatement, index)
        guard isNotNull(readsAsNull: value == 0, sqliteStatement, index) else { return nil }
        self = value
    }
}
extension UInt: DatabaseValueConvertible, StatementColumnConvertible {}
extension UInt8: DatabaseValueConvertible, StatementColumnConvertible, DirectlyBoundValue {}
extension UInt16: DatabaseValueConvertible, StatementColumnConvertible, DirectlyBoundValue {}
extension UInt32: DatabaseValueConvertible, StatementColumnConvertible, DirectlyBoundValue {}
extension UInt64: DatabaseValueConvertible, StatementColumnConvertible {}

// MARK: Bool, Double, Float

extension Bool: DatabaseValueConvertible, StatementColumnConvertible, DirectlyBoundValue {
    /// Stored as the integer 1 or 0.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .int64(self ? 1 : 0)) }

    /// True for non-zero numbers; nil for other storage.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Bool? {
        switch dbValue.storage {
        case .int64(let value): return value != 0
        case .double(let value): return value != 0
        default: return nil
        }
    }

    /// Zero is false, as SQLite converts the column to an integer; nil for
    /// NULL.
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        let value = sqlite3_column_int64(sqliteStatement, index)
        guard isNotNull(readsAsNull: value == 0, sqliteStatement, index) else { return nil }
        self = value != 0
    }
}

extension DatabaseValueConvertible where Self: BinaryFloatingPoint & Codable {
    /// The value as a REAL.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .double(Double(self))) }

    /// The value of a REAL or an INTEGER; nil for other storage.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        switch dbValue.storage {
        case .int64(let value): return Self(value)
        case .double(let value): return Self(value)
        default: return nil
        }
    }
}

extension StatementColumnConvertible where Self: BinaryFloatingPoint {
    /// SQLite's real conversion of the column; nil for NULL.
    @inline(__always)
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        let value = sqlite3_column_double(sqliteStatement, index)
        guard isNotNull(readsAsNull: value == 0, sqliteStatement, index) else { return nil }
        self = Self(value)
    }
}

extension Double: DatabaseValueConvertible, StatementColumnConvertible, DirectlyBoundValue {
    /// SQLite's real conversion of the column; nil for NULL.
    @inline(__always)
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        let value = sqlite3_column_double(sqliteStatement, index)
        guard isNotNull(readsAsNull: value == 0, sqliteStatement, index) else { return nil }
        self = value
    }
}
extension Float: DatabaseValueConvertible, StatementColumnConvertible, DirectlyBoundValue {}

// MARK: String

extension String: DatabaseValueConvertible, StatementColumnConvertible, DirectlyBoundValue {
    /// The value as TEXT.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .string(self)) }

    /// Accepts TEXT, and BLOBs of UTF-8 text, as SQLite converts them.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> String? {
        switch dbValue.storage {
        case .string(let value): return value
        case .blob(let data): return String(data: data, encoding: .utf8)
        default: return nil
        }
    }

    /// SQLite's text conversion of the column (`SELECT 1` reads as "1");
    /// nil for NULL.
    @inline(__always)
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        if let text = String(textOf: sqliteStatement, at: index) {
            self = text
            return
        }
        // NULL, or an empty BLOB, which reads as an empty string.
        guard isNotNull(readsAsNull: true, sqliteStatement, index) else { return nil }
        self = ""
    }
}

// MARK: Optional

extension Optional: SQLExpressible where Wrapped: DatabaseValueConvertible {}

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    /// nil is stored as NULL.
    public var databaseValue: DatabaseValue { self?.databaseValue ?? .null }

    /// NULL decodes as `.some(nil)`, unless the wrapped type reads NULL
    /// itself (``DatabaseValue`` reads it as `.null`); a value that cannot
    /// be converted as nil.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Wrapped?? {
        if let value = Wrapped.fromDatabaseValue(dbValue) { return .some(value) }
        return dbValue.isNull ? .some(nil) : nil
    }

    /// A missing column decodes as nil, as a NULL would.
    public static func fromMissingColumn() -> Wrapped?? { .some(nil) }
}

extension Optional: StatementColumnConvertible where Wrapped: StatementColumnConvertible {
    /// The column's value read straight from the statement; nil for NULL or a value of another type.
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let value = Wrapped(sqliteStatement: sqliteStatement, index: index) else { return nil }
        self = .some(value)
    }
}
