/// An error thrown by SQLite or SQLCipher, or by SecureStore when it refuses
/// a request on behalf of the database.
///
/// Statement arguments are kept, but they stay out of ``description``
/// unless ``Configuration/publicStatementArguments`` is true: they may hold
/// secrets or personal data that must not reach logs.
///
/// ```swift
/// do {
///     try db.execute(sql: "INSERT INTO player (id) VALUES (?)", arguments: [1])
/// } catch DatabaseError.SQLITE_CONSTRAINT_PRIMARYKEY {
///     // the id is taken
/// } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
///     // wrong key
/// }
/// ```
public struct DatabaseError: Error, Sendable {
    /// The extended result code (e.g. `SQLITE_CONSTRAINT_UNIQUE`).
    public let extendedResultCode: ResultCode

    /// The error message.
    public let message: String?

    /// The SQL statement that failed, if any.
    public let sql: String?

    /// The arguments of the failed statement, if any.
    public let arguments: StatementArguments?

    let publicStatementArguments: Bool

    /// The primary result code (e.g. `SQLITE_CONSTRAINT`).
    public var resultCode: ResultCode { extendedResultCode.primaryResultCode }

    /// Creates an error; without a message, SQLite's text for the code
    /// ("database is locked"). Arguments appear in ``description`` only
    /// when `publicStatementArguments` is true.
    public init(
        resultCode: ResultCode = .SQLITE_ERROR,
        message: String? = nil,
        sql: String? = nil,
        arguments: StatementArguments? = nil,
        publicStatementArguments: Bool = false
    ) {
        self.extendedResultCode = resultCode
        self.message = message ?? resultCode.errorString
        self.sql = sql
        self.arguments = arguments
        self.publicStatementArguments = publicStatementArguments
    }

    /// True for `SQLITE_ABORT` and `SQLITE_INTERRUPT`.
    public var isInterruptionError: Bool {
        switch resultCode {
        case .SQLITE_ABORT, .SQLITE_INTERRUPT: return true
        default: return false
        }
    }

    /// The description, with statement arguments whatever the configuration.
    ///
    /// Do not log it: arguments may be secrets.
    public var expandedDescription: String {
        describe(showingArguments: true)
    }

    private func describe(showingArguments: Bool) -> String {
        var text = "SQLite error \(resultCode.rawValue)"
        if let message { text += ": \(message)" }
        if let sql { text += " - while executing `\(sql.trimmedSQLStatement)`" }
        if showingArguments, let arguments, !arguments.isEmpty {
            text += " with arguments \(arguments)"
        }
        return text
    }
}

extension DatabaseError: CustomStringConvertible {
    /// `SQLite error 19: UNIQUE constraint failed: player.id - while executing
    /// `INSERT ...``. The format may change; do not parse it.
    public var description: String {
        describe(showingArguments: publicStatementArguments)
    }
}

extension DatabaseError: Equatable {
    /// Equal codes, messages, SQL and arguments.
    public static func == (lhs: DatabaseError, rhs: DatabaseError) -> Bool {
        lhs.extendedResultCode == rhs.extendedResultCode
            && lhs.message == rhs.message
            && lhs.sql == rhs.sql
            && lhs.arguments == rhs.arguments
    }
}

// `catch DatabaseError.SQLITE_CONSTRAINT` reads as in GRDB.
extension DatabaseError {
    /// ``ResultCode/SQLITE_OK``: success.
    public static let SQLITE_OK = ResultCode.SQLITE_OK
    /// ``ResultCode/SQLITE_ERROR``: a generic error: SQL that does not compile, a missing table...
    public static let SQLITE_ERROR = ResultCode.SQLITE_ERROR
    /// ``ResultCode/SQLITE_INTERNAL``: a malfunction inside SQLite.
    public static let SQLITE_INTERNAL = ResultCode.SQLITE_INTERNAL
    /// ``ResultCode/SQLITE_PERM``: the access mode asked for cannot be granted.
    public static let SQLITE_PERM = ResultCode.SQLITE_PERM
    /// ``ResultCode/SQLITE_ABORT``: an operation was aborted, by a callback or a rollback.
    public static let SQLITE_ABORT = ResultCode.SQLITE_ABORT
    /// ``ResultCode/SQLITE_BUSY``: another connection holds a lock on the database file.
    public static let SQLITE_BUSY = ResultCode.SQLITE_BUSY
    /// ``ResultCode/SQLITE_LOCKED``: a table is locked by this connection, or by another of a shared cache.
    public static let SQLITE_LOCKED = ResultCode.SQLITE_LOCKED
    /// ``ResultCode/SQLITE_NOMEM``: sQLite could not allocate memory.
    public static let SQLITE_NOMEM = ResultCode.SQLITE_NOMEM
    /// ``ResultCode/SQLITE_READONLY``: a write to a read-only database.
    public static let SQLITE_READONLY = ResultCode.SQLITE_READONLY
    /// ``ResultCode/SQLITE_INTERRUPT``: an operation was interrupted (`sqlite3_interrupt`).
    public static let SQLITE_INTERRUPT = ResultCode.SQLITE_INTERRUPT
    /// ``ResultCode/SQLITE_IOERR``: the operating system reported an I/O error.
    public static let SQLITE_IOERR = ResultCode.SQLITE_IOERR
    /// ``ResultCode/SQLITE_CORRUPT``: the database file is damaged.
    public static let SQLITE_CORRUPT = ResultCode.SQLITE_CORRUPT
    /// ``ResultCode/SQLITE_NOTFOUND``: an unknown file-control operation, or a missing item.
    public static let SQLITE_NOTFOUND = ResultCode.SQLITE_NOTFOUND
    /// ``ResultCode/SQLITE_FULL``: the disk is full, or the database reached its size limit.
    public static let SQLITE_FULL = ResultCode.SQLITE_FULL
    /// ``ResultCode/SQLITE_CANTOPEN``: the file cannot be opened.
    public static let SQLITE_CANTOPEN = ResultCode.SQLITE_CANTOPEN
    /// ``ResultCode/SQLITE_PROTOCOL``: a problem with SQLite's file-locking protocol.
    public static let SQLITE_PROTOCOL = ResultCode.SQLITE_PROTOCOL
    /// ``ResultCode/SQLITE_EMPTY``: not used by SQLite.
    public static let SQLITE_EMPTY = ResultCode.SQLITE_EMPTY
    /// ``ResultCode/SQLITE_SCHEMA``: the schema changed: the statement must be prepared again.
    public static let SQLITE_SCHEMA = ResultCode.SQLITE_SCHEMA
    /// ``ResultCode/SQLITE_TOOBIG``: a string or blob is larger than SQLite allows.
    public static let SQLITE_TOOBIG = ResultCode.SQLITE_TOOBIG
    /// ``ResultCode/SQLITE_CONSTRAINT``: a constraint was violated.
    public static let SQLITE_CONSTRAINT = ResultCode.SQLITE_CONSTRAINT
    /// ``ResultCode/SQLITE_MISMATCH``: a datatype mismatch, such as a rowid that is not an integer.
    public static let SQLITE_MISMATCH = ResultCode.SQLITE_MISMATCH
    /// ``ResultCode/SQLITE_MISUSE``: the library was used the wrong way (SecureStore also reports reentrant access with it).
    public static let SQLITE_MISUSE = ResultCode.SQLITE_MISUSE
    /// ``ResultCode/SQLITE_NOLFS``: the system lacks large-file support.
    public static let SQLITE_NOLFS = ResultCode.SQLITE_NOLFS
    /// ``ResultCode/SQLITE_AUTH``: the authorizer refused the statement.
    public static let SQLITE_AUTH = ResultCode.SQLITE_AUTH
    /// ``ResultCode/SQLITE_FORMAT``: not used by SQLite.
    public static let SQLITE_FORMAT = ResultCode.SQLITE_FORMAT
    /// ``ResultCode/SQLITE_RANGE``: a parameter index out of range.
    public static let SQLITE_RANGE = ResultCode.SQLITE_RANGE
    /// ``ResultCode/SQLITE_NOTADB``: the file is not a database, or (with SQLCipher) the key is wrong.
    public static let SQLITE_NOTADB = ResultCode.SQLITE_NOTADB
    /// ``ResultCode/SQLITE_NOTICE``: a notice, for the error log.
    public static let SQLITE_NOTICE = ResultCode.SQLITE_NOTICE
    /// ``ResultCode/SQLITE_WARNING``: a warning, for the error log.
    public static let SQLITE_WARNING = ResultCode.SQLITE_WARNING
    /// ``ResultCode/SQLITE_ROW``: `sqlite3_step` has a row ready.
    public static let SQLITE_ROW = ResultCode.SQLITE_ROW
    /// ``ResultCode/SQLITE_DONE``: `sqlite3_step` has finished.
    public static let SQLITE_DONE = ResultCode.SQLITE_DONE
    /// ``ResultCode/SQLITE_IOERR_READ``: an I/O error while reading.
    public static let SQLITE_IOERR_READ = ResultCode.SQLITE_IOERR_READ
    /// ``ResultCode/SQLITE_IOERR_SHORT_READ``: a read returned fewer bytes than asked for.
    public static let SQLITE_IOERR_SHORT_READ = ResultCode.SQLITE_IOERR_SHORT_READ
    /// ``ResultCode/SQLITE_IOERR_WRITE``: an I/O error while writing.
    public static let SQLITE_IOERR_WRITE = ResultCode.SQLITE_IOERR_WRITE
    /// ``ResultCode/SQLITE_IOERR_FSYNC``: an I/O error while flushing to disk.
    public static let SQLITE_IOERR_FSYNC = ResultCode.SQLITE_IOERR_FSYNC
    /// ``ResultCode/SQLITE_IOERR_TRUNCATE``: an I/O error while truncating a file.
    public static let SQLITE_IOERR_TRUNCATE = ResultCode.SQLITE_IOERR_TRUNCATE
    /// ``ResultCode/SQLITE_IOERR_LOCK``: an I/O error while locking a file.
    public static let SQLITE_IOERR_LOCK = ResultCode.SQLITE_IOERR_LOCK
    /// ``ResultCode/SQLITE_LOCKED_SHAREDCACHE``: a table is locked by another connection of a shared cache.
    public static let SQLITE_LOCKED_SHAREDCACHE = ResultCode.SQLITE_LOCKED_SHAREDCACHE
    /// ``ResultCode/SQLITE_BUSY_RECOVERY``: another connection is recovering the WAL file.
    public static let SQLITE_BUSY_RECOVERY = ResultCode.SQLITE_BUSY_RECOVERY
    /// ``ResultCode/SQLITE_BUSY_SNAPSHOT``: a read transaction's WAL snapshot is too old to start writing.
    public static let SQLITE_BUSY_SNAPSHOT = ResultCode.SQLITE_BUSY_SNAPSHOT
    /// ``ResultCode/SQLITE_CANTOPEN_NOTEMPDIR``: no temporary directory can be found.
    public static let SQLITE_CANTOPEN_NOTEMPDIR = ResultCode.SQLITE_CANTOPEN_NOTEMPDIR
    /// ``ResultCode/SQLITE_CANTOPEN_ISDIR``: the path is a directory.
    public static let SQLITE_CANTOPEN_ISDIR = ResultCode.SQLITE_CANTOPEN_ISDIR
    /// ``ResultCode/SQLITE_CORRUPT_VTAB``: a virtual table's content is damaged.
    public static let SQLITE_CORRUPT_VTAB = ResultCode.SQLITE_CORRUPT_VTAB
    /// ``ResultCode/SQLITE_READONLY_RECOVERY``: the WAL file needs recovery, and the connection is read-only.
    public static let SQLITE_READONLY_RECOVERY = ResultCode.SQLITE_READONLY_RECOVERY
    /// ``ResultCode/SQLITE_READONLY_CANTLOCK``: a read-only connection cannot lock the shared-memory file.
    public static let SQLITE_READONLY_CANTLOCK = ResultCode.SQLITE_READONLY_CANTLOCK
    /// ``ResultCode/SQLITE_READONLY_ROLLBACK``: a hot journal needs rolling back, and the connection is read-only.
    public static let SQLITE_READONLY_ROLLBACK = ResultCode.SQLITE_READONLY_ROLLBACK
    /// ``ResultCode/SQLITE_READONLY_DBMOVED``: the database file was moved or deleted while open.
    public static let SQLITE_READONLY_DBMOVED = ResultCode.SQLITE_READONLY_DBMOVED
    /// ``ResultCode/SQLITE_ABORT_ROLLBACK``: a statement was aborted because its transaction rolled back.
    public static let SQLITE_ABORT_ROLLBACK = ResultCode.SQLITE_ABORT_ROLLBACK
    /// ``ResultCode/SQLITE_CONSTRAINT_CHECK``: a CHECK constraint failed.
    public static let SQLITE_CONSTRAINT_CHECK = ResultCode.SQLITE_CONSTRAINT_CHECK
    /// ``ResultCode/SQLITE_CONSTRAINT_DATATYPE``: a value does not fit a STRICT table's column type.
    public static let SQLITE_CONSTRAINT_DATATYPE = ResultCode.SQLITE_CONSTRAINT_DATATYPE
    /// ``ResultCode/SQLITE_CONSTRAINT_COMMITHOOK``: a commit hook refused the commit.
    public static let SQLITE_CONSTRAINT_COMMITHOOK = ResultCode.SQLITE_CONSTRAINT_COMMITHOOK
    /// ``ResultCode/SQLITE_CONSTRAINT_FOREIGNKEY``: a foreign key constraint failed.
    public static let SQLITE_CONSTRAINT_FOREIGNKEY = ResultCode.SQLITE_CONSTRAINT_FOREIGNKEY
    /// ``ResultCode/SQLITE_CONSTRAINT_FUNCTION``: an SQL function reported a constraint error.
    public static let SQLITE_CONSTRAINT_FUNCTION = ResultCode.SQLITE_CONSTRAINT_FUNCTION
    /// ``ResultCode/SQLITE_CONSTRAINT_NOTNULL``: a NOT NULL constraint failed.
    public static let SQLITE_CONSTRAINT_NOTNULL = ResultCode.SQLITE_CONSTRAINT_NOTNULL
    /// ``ResultCode/SQLITE_CONSTRAINT_PRIMARYKEY``: a PRIMARY KEY constraint failed.
    public static let SQLITE_CONSTRAINT_PRIMARYKEY = ResultCode.SQLITE_CONSTRAINT_PRIMARYKEY
    /// ``ResultCode/SQLITE_CONSTRAINT_TRIGGER``: a trigger raised an error (`RAISE`).
    public static let SQLITE_CONSTRAINT_TRIGGER = ResultCode.SQLITE_CONSTRAINT_TRIGGER
    /// ``ResultCode/SQLITE_CONSTRAINT_UNIQUE``: a UNIQUE constraint failed.
    public static let SQLITE_CONSTRAINT_UNIQUE = ResultCode.SQLITE_CONSTRAINT_UNIQUE
    /// ``ResultCode/SQLITE_CONSTRAINT_VTAB``: a virtual table reported a constraint error.
    public static let SQLITE_CONSTRAINT_VTAB = ResultCode.SQLITE_CONSTRAINT_VTAB
    /// ``ResultCode/SQLITE_CONSTRAINT_ROWID``: a rowid is not unique.
    public static let SQLITE_CONSTRAINT_ROWID = ResultCode.SQLITE_CONSTRAINT_ROWID
}

