import Foundation
import Synchronization
internal import CSQLCipher

/// A connection to an SQLCipher database.
///
/// You get one inside the closures of ``DatabaseQueue`` (and other
/// ``DatabaseWriter`` types); never keep it beyond them.
///
/// ```swift
/// try dbQueue.write { db in
///     try db.execute(sql: "INSERT INTO player (name) VALUES (?)", arguments: ["Arthur"])
///     let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player")
/// }
/// ```
public final class Database {
    /// The configuration the connection was opened with.
    public let configuration: Configuration

    /// The path of the database file, or `:memory:`.
    public let path: String

    /// The raw SQLite connection handle.
    public let sqliteConnection: OpaquePointer

    /// The label of the connection: for the connections of queues and
    /// pools, the configuration's label (or SecureStore's default one) with
    /// the connection's role, as in GRDB (`MyDB.writer`, `MyDB.reader.2`);
    /// for other connections, the configuration's label or the path.
    public let description: String

    /// True once a key was given (the file is encrypted).
    public internal(set) var isKeyed = false

    /// The schema source in effect: the configuration's
    /// (``Configuration/schemaSource``), none while a migration runs, or
    /// the one given to ``withSchemaSource(_:execute:)``.
    public internal(set) var schemaSource: (any DatabaseSchemaSource)?

    var isClosed = false
    /// SecureStore's read lock on the file, held while the connection is
    /// open (see ``DatabaseFileLock``).
    private let fileLock: DatabaseFileLock?
    /// True for a connection to a file (not to memory): a statement that
    /// starts a transaction checks that the file is still the one opened.
    let watchesFileMoves: Bool
    private var statementCache: [String: Statement] = [:]
    let schemaCache = SchemaCache()
    /// The record types whose `around` persistence callbacks are the
    /// defaults, which the records' writes then skip.
    let defaultAroundCallbacks = DefaultAroundCallbacks()
    /// The encoder of the records whose values this connection binds to
    /// its cached INSERTs as they are encoded.
    let bindingEncoder = RecordEncoder.Binding()
    /// Classifies statements as they compile (schema changes,
    /// transactions, statements a migration may not run).
    let authorizer: StatementAuthorizer
    private var busyCallbackBox: BusyCallbackBox?
    var traceBox: TraceBox?
    /// In a pool, the passphrase `prepareDatabase` gave, so that a
    /// passphrase change can map it to the new one.
    var lastPassphrase: SecretBytes?
    /// The KDF of the key the pool derived for this connection, until
    /// `prepareDatabase` has run.
    var derivedKeyParameters: KeyDerivation.Parameters?
    /// The `-wal` and `-shm` files absent before the key check, when the
    /// key did not open the file (`removeFilesOfFailedProbes`).
    var filesOfFailedProbes: [String] = []
    /// The file format that keying applies over the configuration's
    /// settings (a `cipher_compatibility` level, an iteration count, or
    /// both): set while the open tries other formats, for a new file keyed
    /// with a passphrase, and in a pool's readers once the writer found one.
    var cipherFormatOverride: CipherSettings?
    /// The other file formats the open tried after the configuration's
    /// settings failed.
    var cipherFormatsTried: [CipherSettings] = []
    /// The date of the current transaction, once asked for (or the error
    /// the clock threw).
    var transactionDateResult: Result<Date, any Error>?
    var readOnlyDepth = 0

    /// The SQLite version of the library in use, e.g. 3015002 for 3.15.2.
    /// Gate newer SQL features on it.
    public static var sqliteLibVersionNumber: CInt { sqlite3_libversion_number() }

    /// The SQLite version of the library in use, e.g. "3.15.2".
    public static var sqliteLibVersion: String { String(cString: sqlite3_libversion()) }

    /// Opens a connection, runs the configuration's `prepareDatabase`
    /// functions (where the key is given), and checks that the file can be
    /// read: a wrong key fails here, with `SQLITE_NOTADB`, not later.
    init(path: String, configuration: Configuration, checksKey: Bool = true, label: String? = nil) throws {
        // The library's line is known (and its process-wide settings made)
        // before the first connection opens.
        let line = SQLCipherLibrary.line
        var handle: OpaquePointer?
        // A new database file is private (0600), whatever the umask; its
        // journal and WAL files take its mode. An existing file keeps its own.
        if !configuration.readonly, Self.isFileBacked(path), !FileManager.default.fileExists(atPath: path) {
            try? PrivateFile.createEmpty(path)   // SQLite reports what goes wrong (no such directory...)
        }
        // Other processes learn that the file is open here before SQLite
        // opens it (and a replacement of it under way is waited for).
        let fileLock = configuration.takesFileLock && Self.isFileBacked(path)
            ? try DatabaseFileLock.shared(on: path, waitingUpTo: configuration.fileLockTimeout) : nil
        self.fileLock = fileLock
        if let expected = configuration.expectedFile, (fileLock?.file ?? FileIdentity(path: path)) != expected {
            fileLock?.release()
            throw DatabaseError(resultCode: .SQLITE_READONLY_DBMOVED, message: """
                the database file \(path) was replaced, moved or deleted after the pool opened it (a restore, a rekey, \
                or another program): close the pool and open it again
                """)
        }
        let flags = (configuration.readonly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE))
            | SQLITE_OPEN_NOMUTEX // serialized by DatabaseQueue and friends
            | (path.hasPrefix("file:") ? SQLITE_OPEN_URI : 0)  // `file:name?mode=memory&cache=shared`
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let error = DatabaseError(connection: handle, code: code)
            sqlite3_close_v2(handle)
            fileLock?.release()
            throw DatabaseError(resultCode: error.extendedResultCode,
                                message: "\(error.message ?? "unable to open database file"): \(path)")
        }
        self.sqliteConnection = handle
        self.authorizer = StatementAuthorizer(schemaCache: schemaCache)
        self.path = path
        self.configuration = configuration
        self.schemaSource = configuration.schemaSource
        self.description = label ?? configuration.label ?? path
        self.cipherFormatOverride = configuration.keyCache?.detectedFormat
        self.watchesFileMoves = Self.isFileBacked(path)
        _ = line
        do {
            try setUp(checksKey: checksKey)
        } catch {
            closeConnection()
            removeFilesOfFailedProbes()
            throw error
        }
    }

    private func setUp(checksKey: Bool) throws {
        sqlite3_extended_result_codes(sqliteConnection, 1)
        authorizer.register(on: sqliteConnection)
        addDefaultFunctionsAndCollations()
        try setUpBusyMode()
        setUpDoubleQuotedStringLiterals()
        do {
            try prepareCipher()
            try runSetups()
            // cipher_migrate must run before the first read: it opens with
            // checksKey false, and nothing else of setUp reads.
            guard checksKey else { return }
            try verifyReadableDetectingFormat()
            try writeFirstPageOfEmptyFile()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw unreadableFileError()
        }
        if configuration.foreignKeysEnabled {
            try execute(sql: "PRAGMA foreign_keys = ON")
        }
    }

    /// SQLite 3.29 and later can refuse double-quoted string literals
    /// (`"text"`), which hide misspelled column names; GRDB refuses them
    /// unless ``Configuration/acceptsDoubleQuotedStringLiterals``. Older
    /// SQLite always accepts them.
    private func setUpDoubleQuotedStringLiterals() {
        guard Database.sqliteLibVersionNumber >= 3_029_000 else { return }
        let accepts: CInt = configuration.acceptsDoubleQuotedStringLiterals ? 1 : 0
        _ = securestore_db_config_int(sqliteConnection, SQLITE_DBCONFIG_DQS_DML, accepts)
        _ = securestore_db_config_int(sqliteConnection, SQLITE_DBCONFIG_DQS_DDL, accepts)
    }

    /// Runs the configuration's `prepareDatabase` functions, where the key
    /// is given; once more when the pool derived the key with another KDF
    /// than the one they leave the connection with.
    func runSetups() throws {
        authorizer.assignedCipherSetting = false
        for setup in configuration.setups { try setup(self) }
        if try derivedKeyMissesSettings() {
            for setup in configuration.setups { try setup(self) }
        }
    }

    private func setUpBusyMode() throws {
        switch configuration.busyMode {
        case .immediateError:
            break
        case .timeout(let seconds):
            sqlite3_busy_timeout(sqliteConnection, CInt(min(seconds * 1000, Double(CInt.max))))
        case .callback(let callback):
            let box = BusyCallbackBox(callback)
            busyCallbackBox = box
            sqlite3_busy_handler(sqliteConnection, { context, tries in
                guard let context else { return 0 }
                let box = Unmanaged<BusyCallbackBox>.fromOpaque(context).takeUnretainedValue()
                return box.callback(Int(tries)) ? 1 : 0
            }, Unmanaged.passUnretained(box).toOpaque())
        }
    }

    deinit {
        closeConnection()
    }

    /// Closes the connection. Later use throws "connection is closed".
    func close() throws {
        guard !isClosed else { return }
        releaseStatementsAndHooks()
        let code = interruptLock.withLock {
            isClosed = true
            return sqlite3_close_v2(sqliteConnection)
        }
        fileLock?.release()
        if code != SQLITE_OK { throw DatabaseError(connection: nil, code: code) }
    }

    private func closeConnection() {
        guard !isClosed else { return }
        releaseStatementsAndHooks()
        // close_v2 defers the close while statements are alive elsewhere.
        interruptLock.withLock {
            isClosed = true
            _ = sqlite3_close_v2(sqliteConnection)
        }
        fileLock?.release()
    }

    /// Set when the task of the async access that runs now is cancelled
    /// (from any thread); statements that start afterwards throw
    /// `CancellationError` (see ``AccessCancellation``).
    private let accessCancelled = Atomic<Bool>(false)
    /// Above zero while statements run that a cancelled access still
    /// needs (the end of its transaction).
    private var cancellationExemptions = 0
    /// Set between ``suspend()`` and ``resume()`` (any thread): statements
    /// that could take a lock throw (see `Database+Suspension.swift`).
    let suspension = Atomic<Bool>(false)
    /// The journal mode the last check of a suspended connection read (nil
    /// until one did), under GRDB's internal name. Checks read it afresh.
    var journalModeCache: String?
    /// True inside the block of ``inTransaction(_:_:)`` or
    /// ``inSavepoint(_:)``: a transaction that ends without the block
    /// ending it was aborted (``checkForAbortedTransaction(sql:arguments:)``).
    var isInsideTransactionBlock = false

    /// Marks the access that runs now as cancelled, and interrupts its
    /// running statements. Any thread.
    func cancelAccess() {
        accessCancelled.store(true, ordering: .relaxed)
        interrupt()
    }

    /// Forgets the cancellation when the access ends (on the connection's queue).
    func endAccessCancellation() {
        accessCancelled.store(false, ordering: .relaxed)
    }

    /// Throws `CancellationError` when a statement starts in a cancelled access.
    @inline(__always)
    func checkAccessCancellation() throws {
        if accessCancelled.load(ordering: .relaxed), cancellationExemptions == 0 { throw CancellationError() }
    }

    /// True while `uncancellable` runs: the end of an access (a commit, a
    /// rollback, `query_only` set back), which neither a cancellation nor a
    /// suspension stops.
    var runsUncancellableStatements: Bool { cancellationExemptions > 0 }

    /// Runs `body`, whose statements run even in a cancelled access.
    func uncancellable<T>(_ body: () throws -> T) rethrows -> T {
        cancellationExemptions += 1
        defer { cancellationExemptions -= 1 }
        return try body()
    }

    /// Held while the connection closes and while it is interrupted, so
    /// that `interrupt()`, called from any thread, never reaches a closed
    /// connection.
    private let interruptLock = NSLock()

    /// Stops the statements running on this connection (`sqlite3_interrupt`),
    /// from any thread; nothing once the connection is closed.
    func interrupt() {
        interruptLock.withLock {
            if !isClosed { sqlite3_interrupt(sqliteConnection) }
        }
    }

    /// Frees the memory SQLite can do without: the cached statements and
    /// what `sqlite3_db_release_memory` frees (page cache pages not in use).
    ///
    /// ```swift
    /// try dbQueue.inDatabase { db in db.releaseMemory() }
    /// ```
    public func releaseMemory() {
        guard !isClosed else { return }
        statementCache.removeAll()
        sqlite3_db_release_memory(sqliteConnection)
    }

    /// Before sqlite3_close_v2: a statement that outlives this object keeps
    /// the connection alive, and must not call back into freed memory.
    private func releaseStatementsAndHooks() {
        statementCache.removeAll()
        schemaCache.clear()
        bindingEncoder.releaseInsert()
        StatementAuthorizer.unregister(on: sqliteConnection)
        authorizer.broker?.uninstallHooks(sqliteConnection)
        authorizer.broker = nil
    }

    /// The transaction observers of the connection; made on first use.
    var observationBroker: DatabaseObservationBroker {
        if let broker = authorizer.broker { return broker }
        let broker = DatabaseObservationBroker(self)
        authorizer.broker = broker
        return broker
    }

    /// Drops the cached statements that delete rows: whether they turn
    /// off the truncate optimization depends on the observers, decided
    /// when they compile.
    func dropCachedStatementsThatDelete() {
        statementCache = statementCache.filter { !$0.value.canDeleteRows }
    }

    /// Set by a dump while it prints a request's prefetched associations:
    /// the prefetcher hands it each association's request before fetching.
    var prefetchObserver: ((_ request: QueryInterfaceRequest<Row>, _ keyPath: [String]) throws -> Void)?

    /// True while ``recordingSelection(_:_:)`` runs.
    var isRecordingSelectedRegion = false
    /// The region read by the statements run while recording.
    var selectedRegion = DatabaseRegion()

    /// Runs `body`, and adds to `region` what its statements read: how an
    /// observation learns what to observe.
    public func recordingSelection<T>(_ region: inout DatabaseRegion, _ body: () throws -> T) rethrows -> T {
        let wasRecording = isRecordingSelectedRegion
        let outerRegion = selectedRegion
        isRecordingSelectedRegion = true
        selectedRegion = DatabaseRegion()
        defer {
            region.formUnion(selectedRegion)
            isRecordingSelectedRegion = wasRecording
            selectedRegion = wasRecording ? outerRegion.union(selectedRegion) : DatabaseRegion()
        }
        return try body()
    }

    /// True on a read-only connection, and inside a read-only access.
    public var isReadOnly: Bool { configuration.readonly || readOnlyDepth > 0 }

    func checkOpen() throws {
        if isClosed { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "Connection is closed") }
    }

    // MARK: Facts about the connection

    /// The largest number of arguments a statement takes (999 with SQLite
    /// 3.15.2's default limit).
    public var maximumStatementArgumentCount: Int {
        Int(sqlite3_limit(sqliteConnection, SQLITE_LIMIT_VARIABLE_NUMBER, -1))
    }

    /// The rowid of the last successful INSERT on this connection.
    public var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(sqliteConnection) }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changesCount: Int { Int(sqlite3_changes(sqliteConnection)) }

    /// Rows changed since the connection opened.
    public var totalChangesCount: Int { Int(sqlite3_total_changes(sqliteConnection)) }

    /// The last error code of the connection.
    public var lastErrorCode: ResultCode { ResultCode(rawValue: sqlite3_extended_errcode(sqliteConnection)) }

    /// The last error message of the connection.
    public var lastErrorMessage: String? { String(cString: sqlite3_errmsg(sqliteConnection)) }

    // MARK: Statements

    /// Prepares one statement. More than one statement in `sql` is an
    /// error: use ``execute(sql:arguments:)`` for those.
    public func makeStatement(sql: String) throws -> Statement {
        try checkOpen()
        return try sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            guard let statement = try prepare(text, tail: &tail, sqlForErrors: { sql }, arguments: nil) else {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "empty statement", sql: sql)
            }
            if let tail, try containsStatement(tail) {
                throw DatabaseError(
                    resultCode: .SQLITE_MISUSE,
                    message: """
                        Multiple statements found. To execute multiple statements, \
                        use Database.execute(sql:) or Database.allStatements(sql:) instead.
                        """,
                    sql: sql)
            }
            return statement
        }
    }

    /// Compiles the first statement of `text`; nil for white space and
    /// comments. The authorizer classifies the statement while SQLite
    /// compiles it; a statement refused during a migration throws
    /// ``StatementRefusalError``.
    func prepare(
        _ text: UnsafePointer<CChar>, tail: inout UnsafePointer<CChar>?,
        sqlForErrors: () -> String, arguments: StatementArguments?
    ) throws -> Statement? {
        var handle: OpaquePointer?
        authorizer.reset()
        let code = sqlite3_prepare_v2(sqliteConnection, text, -1, &handle, &tail)
        guard code == SQLITE_OK else {
            if authorizer.guardsMigration, let refusal = authorizer.refusal {
                // After a refusal, the tail is the end of the refused statement.
                let length = tail.map { text.distance(to: $0) } ?? 0
                let sql = length > 0
                    ? String(decoding: UnsafeRawBufferPointer(start: text, count: length), as: UTF8.self)
                    : sqlForErrors()
                throw StatementRefusalError(refusal: refusal, sql: sql)
            }
            throw DatabaseError(connection: sqliteConnection, code: code, sql: sqlForErrors(), arguments: arguments,
                                publicStatementArguments: configuration.publicStatementArguments)
        }
        guard let handle else { return nil }
        var refusal = authorizer.refusal
        if !authorizer.sawAction { refusal = refusalOfActionlessStatement(handle) }
        let statement = Statement(database: self, sqliteStatement: handle, sql: String(cString: sqlite3_sql(handle)).trimmedSQLStatement,
                                  publicStatementArguments: configuration.publicStatementArguments)
        if authorizer.guardsMigration, let refusal {
            throw StatementRefusalError(refusal: refusal, sql: statement.sql)
        }
        statement.reads = authorizer.reads
        let effect = authorizer.schemaEffect
        statement.authorizerEventKinds = authorizer.eventKinds
        statement.transactionEffect = authorizer.transactionEffect
        statement.canDeleteRows = authorizer.canDeleteRows
        statement.isWrite = statement.transactionEffect == nil && sqlite3_stmt_readonly(handle) == 0
        // Statements that may write, change the schema or a transaction
        // are followed as they run (the schema cache, migrations, and
        // transaction observers); reads run unwatched.
        if effect != .none || refusal != nil || statement.transactionEffect != nil
            || !statement.authorizerEventKinds.isEmpty || sqlite3_stmt_readonly(handle) == 0 {
            statement.schemaEffect = effect
            statement.refusal = refusal
            statement.isFollowedByAuthorizer = true
        }
        return statement
    }

    /// A prepared statement kept for reuse by this connection: the cheap way
    /// to run the same SQL many times.
    public func cachedStatement(sql: String) throws -> Statement {
        if let statement = statementCache[sql] {
            try checkOpen()
            return statement
        }
        let statement = try makeStatement(sql: sql)
        statementCache[sql] = statement
        return statement
    }

    /// The cached statement, unless a live cursor is still stepping it.
    @usableFromInline
    func cachedStatementForFetch(sql: String) throws -> Statement {
        let statement = try cachedStatement(sql: sql)
        return statement.isBusy ? try makeStatement(sql: sql) : statement
    }

    /// True if `text` holds more than white space and comments. The
    /// authorizer denies every action meanwhile: compiling `PRAGMA rekey`
    /// would rekey the database.
    private func containsStatement(_ text: UnsafePointer<CChar>) throws -> Bool {
        var handle: OpaquePointer?
        authorizer.deniesEverything = true
        defer {
            authorizer.deniesEverything = false
            sqlite3_finalize(handle)
        }
        let code = sqlite3_prepare_v2(sqliteConnection, text, -1, &handle, nil)
        return code != SQLITE_OK || handle != nil
    }

    /// Runs one or more SQL statements, separated by semicolons.
    /// Positional arguments are consumed in order across the statements.
    ///
    /// ```swift
    /// try db.execute(sql: """
    ///     CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
    ///     INSERT INTO player (name) VALUES (?);
    ///     """, arguments: ["Arthur"])
    /// ```
    public func execute(sql: String, arguments: StatementArguments = StatementArguments()) throws {
        do {
            try executeStatements(sql: sql, arguments: arguments)
        } catch let failure as StatementFailure {
            throw failure.error
        }
    }

    /// Runs the statements of an SQL script; a failure tells the UTF-8
    /// offset of the statement that failed, so that the caller can name the
    /// line of a migration file.
    package func executeScript(_ sql: String) throws(StatementFailure) {
        do {
            try executeStatements(sql: sql, arguments: StatementArguments())
        } catch let failure as StatementFailure {
            throw failure
        } catch {
            throw StatementFailure(offset: 0, error: error)
        }
    }

    private func executeStatements(sql: String, arguments: StatementArguments) throws {
        try checkOpen()
        var positional = arguments.values[...]
        try sql.withCString { text in
            var next: UnsafePointer<CChar>? = text
            while let start = next, start.pointee != 0 {
                let offset = text.distance(to: start)
                let statement: Statement
                do {
                    guard let prepared = try prepare(start, tail: &next, sqlForErrors: { String(cString: start) },
                                                     arguments: arguments) else { continue } // white space or a comment
                    statement = prepared
                } catch {
                    throw StatementFailure(offset: offset, error: error)
                }
                do {
                    try statement.bind(&positional, named: arguments.namedValues, reporting: arguments)
                    try statement.execute(arguments: nil)
                } catch {
                    throw StatementFailure(offset: offset, error: error)
                }
            }
        }
        if !positional.isEmpty {
            // Every statement ran: the error names no SQL, as GRDB's.
            throw DatabaseError(resultCode: .SQLITE_MISUSE,
                                message: "wrong number of statement arguments: \(arguments.values.count)",
                                arguments: arguments,
                                publicStatementArguments: configuration.publicStatementArguments)
        }
    }
}

/// A statement of a multi-statement SQL text failed.
package struct StatementFailure: Error {
    /// The UTF-8 offset where the failing statement starts (leading white
    /// space and comments included).
    package var offset: Int
    /// The error of the statement.
    package var error: any Error
}

/// Keeps a busy callback alive for the C busy handler.
private final class BusyCallbackBox {
    let callback: Database.BusyCallback
    init(_ callback: @escaping Database.BusyCallback) { self.callback = callback }
}

extension Database {
    /// A function that receives SQLite's error log.
    public typealias LogErrorFunction = @Sendable (_ resultCode: ResultCode, _ message: String) -> Void

    /// Receives the errors and warnings SQLite logs (`SQLITE_CONFIG_LOG`),
    /// whatever the connection. Set it once, before the first connection
    /// opens: SQLite accepts the log callback only before it initializes.
    ///
    /// ```swift
    /// Database.logError = { resultCode, message in
    ///     NSLog("%@", "SQLite error \(resultCode): \(message)")
    /// }
    /// ```
    ///
    /// Messages may hold SQL, never statement arguments or keys.
    public static var logError: LogErrorFunction? {
        get { ErrorLog.shared.function }
        set { ErrorLog.shared.set(newValue) }
    }
}

/// The process-wide SQLite error log.
///
/// `@unchecked Sendable`: `function` is behind `lock`.
private final class ErrorLog: @unchecked Sendable {
    static let shared = ErrorLog()
    private let lock = NSLock()
    private var stored: Database.LogErrorFunction?
    private var registered = false

    var function: Database.LogErrorFunction? { lock.withLock { stored } }

    func set(_ function: Database.LogErrorFunction?) {
        lock.withLock {
            stored = function
            guard !registered else { return }
            registered = true
            _ = securestore_register_error_log { _, code, message in
                guard let function = ErrorLog.shared.function else { return }
                function(ResultCode(rawValue: code), message.map { String(cString: $0) } ?? "")
            }
        }
    }
}
