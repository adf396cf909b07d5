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
    /// The (extended) result code as SQLite numbers it.
    public let rawValue: CInt

    /// The result code of this number.
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

    /// Success.
    public static let SQLITE_OK = ResultCode(rawValue: 0)
    /// A generic error: SQL that does not compile, a missing table...
    public static let SQLITE_ERROR = ResultCode(rawValue: 1)
    /// A malfunction inside SQLite.
    public static let SQLITE_INTERNAL = ResultCode(rawValue: 2)
    /// The access mode asked for cannot be granted.
    public static let SQLITE_PERM = ResultCode(rawValue: 3)
    /// An operation was aborted, by a callback or a rollback.
    public static let SQLITE_ABORT = ResultCode(rawValue: 4)
    /// Another connection holds a lock on the database file.
    public static let SQLITE_BUSY = ResultCode(rawValue: 5)
    /// A table is locked by this connection, or by another of a shared cache.
    public static let SQLITE_LOCKED = ResultCode(rawValue: 6)
    /// SQLite could not allocate memory.
    public static let SQLITE_NOMEM = ResultCode(rawValue: 7)
    /// A write to a read-only database.
    public static let SQLITE_READONLY = ResultCode(rawValue: 8)
    /// An operation was interrupted (`sqlite3_interrupt`).
    public static let SQLITE_INTERRUPT = ResultCode(rawValue: 9)
    /// The operating system reported an I/O error.
    public static let SQLITE_IOERR = ResultCode(rawValue: 10)
    /// The database file is damaged.
    public static let SQLITE_CORRUPT = ResultCode(rawValue: 11)
    /// An unknown file-control operation, or a missing item.
    public static let SQLITE_NOTFOUND = ResultCode(rawValue: 12)
    /// The disk is full, or the database reached its size limit.
    public static let SQLITE_FULL = ResultCode(rawValue: 13)
    /// The file cannot be opened.
    public static let SQLITE_CANTOPEN = ResultCode(rawValue: 14)
    /// A problem with SQLite's file-locking protocol.
    public static let SQLITE_PROTOCOL = ResultCode(rawValue: 15)
    /// Not used by SQLite.
    public static let SQLITE_EMPTY = ResultCode(rawValue: 16)
    /// The schema changed: the statement must be prepared again.
    public static let SQLITE_SCHEMA = ResultCode(rawValue: 17)
    /// A string or blob is larger than SQLite allows.
    public static let SQLITE_TOOBIG = ResultCode(rawValue: 18)
    /// A constraint was violated.
    public static let SQLITE_CONSTRAINT = ResultCode(rawValue: 19)
    /// A datatype mismatch, such as a rowid that is not an integer.
    public static let SQLITE_MISMATCH = ResultCode(rawValue: 20)
    /// The library was used the wrong way (SecureStore also reports reentrant access with it).
    public static let SQLITE_MISUSE = ResultCode(rawValue: 21)
    /// The system lacks large-file support.
    public static let SQLITE_NOLFS = ResultCode(rawValue: 22)
    /// The authorizer refused the statement.
    public static let SQLITE_AUTH = ResultCode(rawValue: 23)
    /// Not used by SQLite.
    public static let SQLITE_FORMAT = ResultCode(rawValue: 24)
    /// A parameter index out of range.
    public static let SQLITE_RANGE = ResultCode(rawValue: 25)
    /// The file is not a database, or (with SQLCipher) the key is wrong.
    public static let SQLITE_NOTADB = ResultCode(rawValue: 26)
    /// A notice, for the error log.
    public static let SQLITE_NOTICE = ResultCode(rawValue: 27)
    /// A warning, for the error log.
    public static let SQLITE_WARNING = ResultCode(rawValue: 28)
    /// `sqlite3_step` has a row ready.
    public static let SQLITE_ROW = ResultCode(rawValue: 100)
    /// `sqlite3_step` has finished.
    public static let SQLITE_DONE = ResultCode(rawValue: 101)

    // Extended codes: the primary code plus a detail in the next byte.
    static func extended(_ primary: ResultCode, _ detail: CInt) -> ResultCode {
        ResultCode(rawValue: primary.rawValue | (detail << 8))
    }
    /// An I/O error while reading.
    public static let SQLITE_IOERR_READ = extended(.SQLITE_IOERR, 1)
    /// A read returned fewer bytes than asked for.
    public static let SQLITE_IOERR_SHORT_READ = extended(.SQLITE_IOERR, 2)
    /// An I/O error while writing.
    public static let SQLITE_IOERR_WRITE = extended(.SQLITE_IOERR, 3)
    /// An I/O error while flushing to disk.
    public static let SQLITE_IOERR_FSYNC = extended(.SQLITE_IOERR, 4)
    /// An I/O error while truncating a file.
    public static let SQLITE_IOERR_TRUNCATE = extended(.SQLITE_IOERR, 6)
    /// An I/O error while locking a file.
    public static let SQLITE_IOERR_LOCK = extended(.SQLITE_IOERR, 15)
    /// A table is locked by another connection of a shared cache.
    public static let SQLITE_LOCKED_SHAREDCACHE = extended(.SQLITE_LOCKED, 1)
    /// Another connection is recovering the WAL file.
    public static let SQLITE_BUSY_RECOVERY = extended(.SQLITE_BUSY, 1)
    /// A read transaction's WAL snapshot is too old to start writing.
    public static let SQLITE_BUSY_SNAPSHOT = extended(.SQLITE_BUSY, 2)
    /// No temporary directory can be found.
    public static let SQLITE_CANTOPEN_NOTEMPDIR = extended(.SQLITE_CANTOPEN, 1)
    /// The path is a directory.
    public static let SQLITE_CANTOPEN_ISDIR = extended(.SQLITE_CANTOPEN, 2)
    /// A virtual table's content is damaged.
    public static let SQLITE_CORRUPT_VTAB = extended(.SQLITE_CORRUPT, 1)
    /// The WAL file needs recovery, and the connection is read-only.
    public static let SQLITE_READONLY_RECOVERY = extended(.SQLITE_READONLY, 1)
    /// A read-only connection cannot lock the shared-memory file.
    public static let SQLITE_READONLY_CANTLOCK = extended(.SQLITE_READONLY, 2)
    /// A hot journal needs rolling back, and the connection is read-only.
    public static let SQLITE_READONLY_ROLLBACK = extended(.SQLITE_READONLY, 3)
    /// The database file was moved or deleted while open.
    public static let SQLITE_READONLY_DBMOVED = extended(.SQLITE_READONLY, 4)
    /// A statement was aborted because its transaction rolled back.
    public static let SQLITE_ABORT_ROLLBACK = extended(.SQLITE_ABORT, 2)
    /// A CHECK constraint failed.
    public static let SQLITE_CONSTRAINT_CHECK = extended(.SQLITE_CONSTRAINT, 1)
    /// A commit hook refused the commit.
    public static let SQLITE_CONSTRAINT_COMMITHOOK = extended(.SQLITE_CONSTRAINT, 2)
    /// A foreign key constraint failed.
    public static let SQLITE_CONSTRAINT_FOREIGNKEY = extended(.SQLITE_CONSTRAINT, 3)
    /// An SQL function reported a constraint error.
    public static let SQLITE_CONSTRAINT_FUNCTION = extended(.SQLITE_CONSTRAINT, 4)
    /// A NOT NULL constraint failed.
    public static let SQLITE_CONSTRAINT_NOTNULL = extended(.SQLITE_CONSTRAINT, 5)
    /// A value does not fit a STRICT table's column type (SQLite 3.37 or
    /// later: SQLite 3.15.2 has no STRICT tables, and never reports it).
    public static let SQLITE_CONSTRAINT_DATATYPE = extended(.SQLITE_CONSTRAINT, 12)
    /// A PRIMARY KEY constraint failed.
    public static let SQLITE_CONSTRAINT_PRIMARYKEY = extended(.SQLITE_CONSTRAINT, 6)
    /// A trigger raised an error (`RAISE`).
    public static let SQLITE_CONSTRAINT_TRIGGER = extended(.SQLITE_CONSTRAINT, 7)
    /// A UNIQUE constraint failed.
    public static let SQLITE_CONSTRAINT_UNIQUE = extended(.SQLITE_CONSTRAINT, 8)
    /// A virtual table reported a constraint error.
    public static let SQLITE_CONSTRAINT_VTAB = extended(.SQLITE_CONSTRAINT, 9)
    /// A rowid is not unique.
    public static let SQLITE_CONSTRAINT_ROWID = extended(.SQLITE_CONSTRAINT, 10)
}

extension ResultCode {
    /// SQLite's English text for the code: "database is locked".
    public var errorString: String? {
        sqlite3_errstr(rawValue).map { String(cString: $0) }
    }
}
