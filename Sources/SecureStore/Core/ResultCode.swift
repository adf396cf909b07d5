internal import CSQLCipher

/// An SQLite result code, primary or extended.
///
/// Primary codes match their extended codes in `switch` and `catch`:
///
/// ```swift
/// switch error.extendedResultCode {
/// case .SQLITE_CONSTRAINT_UNIQUE: ...   // exactly this extended code
/// case .SQLITE_CONSTRAINT: ...          // any other constraint failure
/// default: ...
/// }
/// ```
public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: CInt

    public init(rawValue: CInt) {
        self.rawValue = rawValue
    }

    /// The primary result code: the low 8 bits of an extended code.
    public var primaryResultCode: ResultCode {
        ResultCode(rawValue: rawValue & 0xFF)
    }

    var isPrimary: Bool { self == primaryResultCode }

    /// The code and SQLite's text for it: `787 (constraint failed)`.
    public var description: String {
        errorString.map { "\(rawValue) (\($0))" } ?? "\(rawValue)"
    }

    /// A primary code matches every extended code derived from it; an
    /// extended code matches only itself.
    public static func ~= (pattern: ResultCode, code: ResultCode) -> Bool {
        pattern.isPrimary ? pattern == code.primaryResultCode : pattern == code
    }

    /// Lets `catch ResultCode.SQLITE_BUSY` match a ``DatabaseError``.
    public static func ~= (pattern: ResultCode, error: any Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return pattern ~= error.extendedResultCode
    }

    public static let SQLITE_OK = ResultCode(rawValue: 0)
    public static let SQLITE_ERROR = ResultCode(rawValue: 1)
    public static let SQLITE_INTERNAL = ResultCode(rawValue: 2)
    public static let SQLITE_PERM = ResultCode(rawValue: 3)
    public static let SQLITE_ABORT = ResultCode(rawValue: 4)
    public static let SQLITE_BUSY = ResultCode(rawValue: 5)
    public static let SQLITE_LOCKED = ResultCode(rawValue: 6)
    public static let SQLITE_NOMEM = ResultCode(rawValue: 7)
    public static let SQLITE_READONLY = ResultCode(rawValue: 8)
    public static let SQLITE_INTERRUPT = ResultCode(rawValue: 9)
    public static let SQLITE_IOERR = ResultCode(rawValue: 10)
    public static let SQLITE_CORRUPT = ResultCode(rawValue: 11)
    public static let SQLITE_NOTFOUND = ResultCode(rawValue: 12)
    public static let SQLITE_FULL = ResultCode(rawValue: 13)
    public static let SQLITE_CANTOPEN = ResultCode(rawValue: 14)
    public static let SQLITE_PROTOCOL = ResultCode(rawValue: 15)
    public static let SQLITE_EMPTY = ResultCode(rawValue: 16)
    public static let SQLITE_SCHEMA = ResultCode(rawValue: 17)
    public static let SQLITE_TOOBIG = ResultCode(rawValue: 18)
    public static let SQLITE_CONSTRAINT = ResultCode(rawValue: 19)
    public static let SQLITE_MISMATCH = ResultCode(rawValue: 20)
    public static let SQLITE_MISUSE = ResultCode(rawValue: 21)
    public static let SQLITE_NOLFS = ResultCode(rawValue: 22)
    public static let SQLITE_AUTH = ResultCode(rawValue: 23)
    public static let SQLITE_FORMAT = ResultCode(rawValue: 24)
    public static let SQLITE_RANGE = ResultCode(rawValue: 25)
    public static let SQLITE_NOTADB = ResultCode(rawValue: 26)
    public static let SQLITE_NOTICE = ResultCode(rawValue: 27)
    public static let SQLITE_WARNING = ResultCode(rawValue: 28)
    public static let SQLITE_ROW = ResultCode(rawValue: 100)
    public static let SQLITE_DONE = ResultCode(rawValue: 101)

    // Extended codes: the primary code plus a detail in the next byte.
    private static func extended(_ primary: ResultCode, _ detail: CInt) -> ResultCode {
        ResultCode(rawValue: primary.rawValue | (detail << 8))
    }
    public static let SQLITE_IOERR_READ = extended(.SQLITE_IOERR, 1)
    public static let SQLITE_IOERR_SHORT_READ = extended(.SQLITE_IOERR, 2)
    public static let SQLITE_IOERR_WRITE = extended(.SQLITE_IOERR, 3)
    public static let SQLITE_IOERR_FSYNC = extended(.SQLITE_IOERR, 4)
    public static let SQLITE_IOERR_TRUNCATE = extended(.SQLITE_IOERR, 6)
    public static let SQLITE_IOERR_LOCK = extended(.SQLITE_IOERR, 15)
    public static let SQLITE_LOCKED_SHAREDCACHE = extended(.SQLITE_LOCKED, 1)
    public static let SQLITE_BUSY_RECOVERY = extended(.SQLITE_BUSY, 1)
    public static let SQLITE_BUSY_SNAPSHOT = extended(.SQLITE_BUSY, 2)
    public static let SQLITE_CANTOPEN_NOTEMPDIR = extended(.SQLITE_CANTOPEN, 1)
    public static let SQLITE_CANTOPEN_ISDIR = extended(.SQLITE_CANTOPEN, 2)
    public static let SQLITE_CORRUPT_VTAB = extended(.SQLITE_CORRUPT, 1)
    public static let SQLITE_READONLY_RECOVERY = extended(.SQLITE_READONLY, 1)
    public static let SQLITE_READONLY_CANTLOCK = extended(.SQLITE_READONLY, 2)
    public static let SQLITE_READONLY_ROLLBACK = extended(.SQLITE_READONLY, 3)
    public static let SQLITE_READONLY_DBMOVED = extended(.SQLITE_READONLY, 4)
    public static let SQLITE_ABORT_ROLLBACK = extended(.SQLITE_ABORT, 2)
    public static let SQLITE_CONSTRAINT_CHECK = extended(.SQLITE_CONSTRAINT, 1)
    public static let SQLITE_CONSTRAINT_COMMITHOOK = extended(.SQLITE_CONSTRAINT, 2)
    public static let SQLITE_CONSTRAINT_FOREIGNKEY = extended(.SQLITE_CONSTRAINT, 3)
    public static let SQLITE_CONSTRAINT_FUNCTION = extended(.SQLITE_CONSTRAINT, 4)
    public static let SQLITE_CONSTRAINT_NOTNULL = extended(.SQLITE_CONSTRAINT, 5)
    public static let SQLITE_CONSTRAINT_PRIMARYKEY = extended(.SQLITE_CONSTRAINT, 6)
    public static let SQLITE_CONSTRAINT_TRIGGER = extended(.SQLITE_CONSTRAINT, 7)
    public static let SQLITE_CONSTRAINT_UNIQUE = extended(.SQLITE_CONSTRAINT, 8)
    public static let SQLITE_CONSTRAINT_VTAB = extended(.SQLITE_CONSTRAINT, 9)
    public static let SQLITE_CONSTRAINT_ROWID = extended(.SQLITE_CONSTRAINT, 10)
}

extension ResultCode {
    /// SQLite's English text for the code: "database is locked".
    public var errorString: String? {
        sqlite3_errstr(rawValue).map { String(cString: $0) }
    }
}
