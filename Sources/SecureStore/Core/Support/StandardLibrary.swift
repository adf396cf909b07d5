internal import CSQLCipher

// Conformances of the standard library's value types.

// MARK: Integers

extension DatabaseValueConvertible where Self: FixedWidthInteger {
    /// Integers that do not fit Int64 (large UInt64 values) are stored as
    /// REAL, the way SQLite itself stores large integer literals.
    public var databaseValue: DatabaseValue {
        if let value = Int64(exactly: self) { return DatabaseValue(storage: .int64(value)) }
        return DatabaseValue(storage: .double(Double(self)))
    }

    /// Accepts integers that fit, and reals with no fractional part that fit.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        switch dbValue.storage {
        case .int64(let value): return Self(exactly: value)
        case .double(let value): return Self(exactly: value)
        default: return nil
        }
    }
}

extension StatementColumnConvertible where Self: FixedWidthInteger {
    @inline(__always)
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        switch sqlite3_column_type(sqliteStatement, index) {
        case SQLITE_INTEGER:
            guard let value = Self(exactly: sqlite3_column_int64(sqliteStatement, index)) else { return nil }
            self = value
        case SQLITE_FLOAT:
            guard let value = Self(exactly: sqlite3_column_double(sqliteStatement, index)) else { return nil }
            self = value
        default:
            return nil
        }
    }
}

extension Int: DatabaseValueConvertible, StatementColumnConvertible {
    // Concrete versions of the generic integer path: the generic one is not
    // specialized across modules, and costs several times more per column.
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let value = Int64(sqliteStatement: sqliteStatement, index: index) else { return nil }
        self = Int(value)
    }
}
extension Int8: DatabaseValueConvertible, StatementColumnConvertible {}
extension Int16: DatabaseValueConvertible, StatementColumnConvertible {}
extension Int32: DatabaseValueConvertible, StatementColumnConvertible {}
extension Int64: DatabaseValueConvertible, StatementColumnConvertible {
    @inline(__always)
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        switch sqlite3_column_type(sqliteStatement, index) {
        case SQLITE_INTEGER:
            self = sqlite3_column_int64(sqliteStatement, index)
        case SQLITE_FLOAT:
            guard let value = Int64(exactly: sqlite3_column_double(sqliteStatement, index)) else { return nil }
            self = value
        default:
            return nil
        }
    }
}
extension UInt: DatabaseValueConvertible, StatementColumnConvertible {}
extension UInt8: DatabaseValueConvertible, StatementColumnConvertible {}
extension UInt16: DatabaseValueConvertible, StatementColumnConvertible {}
extension UInt32: DatabaseValueConvertible, StatementColumnConvertible {}
extension UInt64: DatabaseValueConvertible, StatementColumnConvertible {}

// MARK: Bool, Double, Float

extension Bool: DatabaseValueConvertible, StatementColumnConvertible {
    /// Stored as the integer 1 or 0.
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .int64(self ? 1 : 0)) }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Bool? {
        switch dbValue.storage {
        case .int64(let value): return value != 0
        case .double(let value): return value != 0
        default: return nil
        }
    }

    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        switch sqlite3_column_type(sqliteStatement, index) {
        case SQLITE_INTEGER: self = sqlite3_column_int64(sqliteStatement, index) != 0
        case SQLITE_FLOAT: self = sqlite3_column_double(sqliteStatement, index) != 0
        default: return nil
        }
    }
}

extension DatabaseValueConvertible where Self: BinaryFloatingPoint {
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .double(Double(self))) }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        switch dbValue.storage {
        case .int64(let value): return Self(value)
        case .double(let value): return Self(value)
        default: return nil
        }
    }
}

extension StatementColumnConvertible where Self: BinaryFloatingPoint {
    @inline(__always)
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        switch sqlite3_column_type(sqliteStatement, index) {
        case SQLITE_INTEGER, SQLITE_FLOAT: self = Self(sqlite3_column_double(sqliteStatement, index))
        default: return nil
        }
    }
}

extension Double: DatabaseValueConvertible, StatementColumnConvertible {
    @inline(__always)
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        switch sqlite3_column_type(sqliteStatement, index) {
        case SQLITE_INTEGER, SQLITE_FLOAT: self = sqlite3_column_double(sqliteStatement, index)
        default: return nil
        }
    }
}
extension Float: DatabaseValueConvertible, StatementColumnConvertible {}

// MARK: String

extension String: DatabaseValueConvertible, StatementColumnConvertible {
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .string(self)) }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> String? {
        if case .string(let value) = dbValue.storage { return value }
        return nil
    }

    @inline(__always)
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard sqlite3_column_type(sqliteStatement, index) == SQLITE_TEXT else { return nil }
        self.init(columnOf: sqliteStatement, at: index)
    }
}

// MARK: Optional

extension Optional: SQLExpressible where Wrapped: DatabaseValueConvertible {}

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    /// nil is stored as NULL.
    public var databaseValue: DatabaseValue { self?.databaseValue ?? .null }

    /// NULL decodes as `.some(nil)`; a value that cannot be converted as nil.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Wrapped?? {
        if dbValue.isNull { return .some(nil) }
        return Wrapped.fromDatabaseValue(dbValue).map { .some($0) }
    }

    /// A missing column decodes as nil, as a NULL would.
    public static func fromMissingColumn() -> Wrapped?? { .some(nil) }
}

extension Optional: StatementColumnConvertible where Wrapped: StatementColumnConvertible {
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let value = Wrapped(sqliteStatement: sqliteStatement, index: index) else { return nil }
        self = .some(value)
    }
}
