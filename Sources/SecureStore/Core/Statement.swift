internal import CSQLCipher

/// A prepared SQL statement.
///
/// ```swift
/// let statement = try db.makeStatement(sql: "INSERT INTO player (name) VALUES (?)")
/// for name in ["Arthur", "Barbara"] {
///     try statement.execute(arguments: [name])
/// }
/// ```
///
/// A statement belongs to the connection that prepared it and must only be
/// used inside that connection's `read` or `write` closure.
public final class Statement {
    /// The SQL text of this statement.
    public let sql: String

    /// The underlying SQLite statement handle.
    public let sqliteStatement: SQLiteStatement

    /// The arguments last set with ``setArguments(_:)`` or `execute`.
    /// Setting arguments that do not fit the statement stops the program,
    /// as in GRDB: use ``setArguments(_:)`` to get an error instead.
    public var arguments: StatementArguments {
        get { boundArguments }
        set {
            do { try setArguments(newValue) } catch { preconditionFailure("\(error)") }
        }
    }
    private var boundArguments = StatementArguments()

    let publicStatementArguments: Bool

    /// Set for statements that begin or end transactions or change the
    /// schema: running them invalidates the connection's schema cache.
    var schemaEffect = SchemaCache.Effect.none
    /// Set for statements that a migration may not run: a statement
    /// compiled before a migration started is refused when stepped in it.
    var refusal: StatementRefusal?
    /// Set when one of the two above is, or when the statement may write:
    /// the connection's authorizer follows it as it runs (``step()``);
    /// ordinary reads skip it. A flag, not a reference to the authorizer:
    /// the database's `let` is read through the unretained database,
    /// where a reference kept here was retained and released at each
    /// execution.
    var isFollowedByAuthorizer = false

    /// What the statement reads, as the authorizer reported it.
    var reads: [(table: String, column: String)] = []

    /// How a statement begins or ends a transaction or savepoint.
    enum TransactionEffect: Equatable {
        case beginTransaction
        case commitTransaction
        case rollbackTransaction
        case beginSavepoint(String)
        case releaseSavepoint(String)
        case rollbackSavepoint(String)
    }

    /// The kinds of changes the statement may make, as the authorizer
    /// reported them.
    var authorizerEventKinds: [DatabaseEventKind] = []
    /// How the statement begins or ends a transaction or savepoint.
    var transactionEffect: TransactionEffect?
    /// True when the statement deletes rows.
    var canDeleteRows = false
    /// True when the statement may write (not a transaction statement).
    var isWrite = false
    /// True when running the statement drops the schema cache.
    var invalidatesDatabaseSchemaCache: Bool { schemaEffect == .schemaChange }

    /// The tables, columns and rows the statement reads: what an
    /// observation of it tracks. A request of the query interface narrows
    /// it to the rows its filter names and adds its prefetched
    /// associations; binding other arguments undoes that.
    public var databaseRegion: DatabaseRegion {
        get { regionOverride ?? authorizedRegion }
        set { regionOverride = newValue }
    }
    private var regionOverride: DatabaseRegion?
    private var programRegion: DatabaseRegion?

    /// The tables and columns SQLite's authorizer reported when the
    /// statement compiled.
    var authorizedRegion: DatabaseRegion {
        get {
            if reads.isEmpty && isWrite == false {
                // SQLite 3.15.2 reports no read for `SELECT COUNT(*) FROM t`:
                // the tables the program opens tell.
                if let programRegion { return programRegion }
                let region = tablesOpenedByProgram()
                programRegion = region
                return region
            }
            return reads.reduce(into: DatabaseRegion()) { region, read in
                region.formUnion(read.column.isEmpty
                    ? DatabaseRegion(table: read.table)
                    : DatabaseRegion(table: read.table, columns: [read.column]))
            }
        }
    }

    /// The tables whose b-trees (or indexes) the statement's program opens
    /// for reading, as `EXPLAIN` shows them (`OpenRead` root pages).
    private func tablesOpenedByProgram() -> DatabaseRegion {
        let connection = sqlite3_db_handle(sqliteStatement)
        var explain: OpaquePointer?
        defer { sqlite3_finalize(explain) }
        guard sqlite3_prepare_v2(connection, "EXPLAIN " + sql, -1, &explain, nil) == SQLITE_OK, let explain else { return DatabaseRegion() }
        var pages: Set<[Int64]> = []
        while sqlite3_step(explain) == SQLITE_ROW {
            guard let opcode = sqlite3_column_text(explain, 1), String(cString: opcode) == "OpenRead" else { continue }
            pages.insert([sqlite3_column_int64(explain, 3), sqlite3_column_int64(explain, 4)])  // root page, schema
        }
        var region = DatabaseRegion()
        for page in pages {
            let master = page[1] == 1 ? "sqlite_temp_master" : page[1] == 0 ? "sqlite_master" : nil
            guard let master else { return .fullDatabase }  // an attached schema: be safe
            var lookup: OpaquePointer?
            defer { sqlite3_finalize(lookup) }
            guard sqlite3_prepare_v2(connection, "SELECT tbl_name FROM \(master) WHERE rootpage = ?", -1, &lookup, nil) == SQLITE_OK,
                  let lookup else { return .fullDatabase }
            sqlite3_bind_int64(lookup, 1, page[0])
            if sqlite3_step(lookup) == SQLITE_ROW, let table = sqlite3_column_text(lookup, 0) {
                region.formUnion(DatabaseRegion(table: String(cString: table)))
            }
        }
        return region
    }

    /// The connection that prepared the statement. A statement is only
    /// used inside an access to its connection, which outlives it there.
    var database: Database { unmanagedDatabase.takeUnretainedValue() }

    /// The same connection, for the calls of every step: through
    /// `_withUnsafeGuaranteedRef` they retain and release nothing (an
    /// `unowned(unsafe)` reference is retained around each call).
    private let unmanagedDatabase: Unmanaged<Database>

    init(database: Database, sqliteStatement: SQLiteStatement, sql: String, publicStatementArguments: Bool) {
        unmanagedDatabase = Unmanaged.passUnretained(database)
        self.sqliteStatement = sqliteStatement
        self.sql = sql
        self.publicStatementArguments = publicStatementArguments
    }

    deinit {
        sqlite3_finalize(sqliteStatement)
        // After finalize: SQLite no longer points into the copies. Zeroed,
        // as they may hold secrets.
        if let argumentBytes {
            argumentBytes.initializeMemory(as: UInt8.self, repeating: 0, count: argumentBytesCapacity)
            argumentBytes.deallocate()
        }
    }

    // Runtime exclusivity checks on these per-execution fields cost more
    // than the work they guard; they are only touched by the short,
    // non-reentrant methods of this class.

    /// True once stepped and not reset since: binding needs a reset first.
    @exclusivity(unchecked) private var isStepped = false

    /// Copies of the text and blob arguments, bound with SQLITE_STATIC.
    /// Letting SQLite copy them (SQLITE_TRANSIENT) costs a malloc and a
    /// free per argument per execution. The copies live until the next
    /// binding or the statement's end, as SQLite's own would. A binding
    /// that does not fit lets SQLite copy what is left, and the next one
    /// starts with a buffer large enough.
    @exclusivity(unchecked) private var argumentBytes: UnsafeMutableRawPointer?
    @exclusivity(unchecked) private var argumentBytesCapacity = 0
    @exclusivity(unchecked) private var argumentBytesUsed = 0
    /// The bytes the current binding copies or would copy: when they do not
    /// fit, the next binding starts with a larger buffer.
    @exclusivity(unchecked) private var argumentBytesWanted = 0

    /// Starts a binding at the front of the argument buffer, made larger
    /// first if the previous binding did not fit. Called before any value
    /// of a new binding is bound: parameters that still point into a
    /// replaced buffer are all re-bound before the next step.
    ///
    /// The buffer is not sized by a first pass over the values: reading a
    /// string out of an argument array copies it (a retain and a release).
    private func startArgumentBytes() {
        defer {
            argumentBytesUsed = 0
            argumentBytesWanted = 0
        }
        guard argumentBytesWanted > argumentBytesCapacity || argumentBytes == nil else { return }
        let capacity = max(argumentBytesWanted, 2 * argumentBytesCapacity, 64)
        if let argumentBytes {
            argumentBytes.initializeMemory(as: UInt8.self, repeating: 0, count: argumentBytesCapacity)
            argumentBytes.deallocate()
        }
        argumentBytes = .allocate(byteCount: capacity, alignment: 16)
        argumentBytesCapacity = capacity
    }

    /// Binds text or blob bytes: from a copy in the argument buffer
    /// (SQLITE_STATIC), or, when the buffer is full, from a copy SQLite
    /// makes (SQLITE_TRANSIENT).
    func bindBytes(_ bytes: UnsafeRawBufferPointer, at index: CInt, asText: Bool) -> CInt {
        argumentBytesWanted += bytes.count
        let address: UnsafeRawPointer
        let destructor: sqlite3_destructor_type?
        if argumentBytesUsed + bytes.count <= argumentBytesCapacity {
            // startArgumentBytes ran first: the buffer exists.
            let target = argumentBytes.unsafelyUnwrapped + argumentBytesUsed
            if let base = bytes.baseAddress { target.copyMemory(from: base, byteCount: bytes.count) }
            argumentBytesUsed += bytes.count
            address = UnsafeRawPointer(target)
            destructor = nil  // SQLITE_STATIC
        } else {
            // Never a nil address, which would bind NULL.
            address = bytes.baseAddress ?? UnsafeRawPointer(Statement.emptyBytes)
            destructor = unsafeBitCast(-1, to: sqlite3_destructor_type.self)  // SQLITE_TRANSIENT
        }
        let count = CInt(bytes.count)
        return asText
            ? sqlite3_bind_text(sqliteStatement, index, address.assumingMemoryBound(to: CChar.self), count, destructor)
            : sqlite3_bind_blob(sqliteStatement, index, address, count, destructor)
    }

    // MARK: Columns

    /// The number of columns in the rows this statement produces.
    public var columnCount: Int {
        // Asked for every column of every row: cached for one fetch. A
        // schema change can re-prepare `SELECT *` with another count, so
        // each new fetch forgets it.
        if let count = cachedColumnCount { return count }
        let count = Int(sqlite3_column_count(sqliteStatement))
        cachedColumnCount = count
        return count
    }
    private var cachedColumnCount: Int?

    func forgetColumnCount() { cachedColumnCount = nil }

    /// The names of the columns in the rows this statement produces.
    public private(set) lazy var columnNames: [String] = (0..<CInt(columnCount)).map(columnName(at:))

    func columnName(at index: CInt) -> String {
        sqlite3_column_name(sqliteStatement, index).map { String(cString: $0) } ?? ""
    }

    /// Column indexes by lowercased name: the first column wins, as column
    /// lookup is case-insensitive.
    private lazy var caseInsensitiveIndexes: [String: Int] = {
        var indexes: [String: Int] = [:]
        for (index, name) in columnNames.enumerated() where indexes[name.lowercased()] == nil {
            indexes[name.lowercased()] = index
        }
        return indexes
    }()

    /// Exact names that resolve to the same column as a case-insensitive
    /// lookup would, so that the common exact lookup skips lowercasing.
    private lazy var exactIndexes: [String: Int] = {
        var indexes: [String: Int] = [:]
        for (index, name) in columnNames.enumerated() where caseInsensitiveIndexes[name.lowercased()] == index {
            indexes[name] = index
        }
        return indexes
    }()

    /// For each column: true when no column to its left has the same name
    /// ignoring case (so that an exact match is the answer).
    private lazy var isLeftmostOfItsName: [Bool] = columnNames.indices.map { exactIndexes[columnNames[$0]] == $0 }

    /// The index of the leftmost column with this name, ignoring case.
    public func index(ofColumn name: String) -> Int? {
        // A few columns are scanned faster than a name is hashed; this runs
        // for every property of every decoded record.
        let names = columnNames
        if names.count <= 16 {
            for index in names.indices where names[index] == name {
                if isLeftmostOfItsName[index] { return index }
                break
            }
        }
        return exactIndexes[name] ?? caseInsensitiveIndexes[name.lowercased()]
    }

    /// True if the statement does not write to the database.
    public var isReadonly: Bool { sqlite3_stmt_readonly(sqliteStatement) != 0 }

    // MARK: Arguments

    /// Checks that the arguments fit the statement's parameters, without
    /// binding them.
    public func validateArguments(_ arguments: StatementArguments) throws {
        var positional = arguments.values[...]
        for index in stride(from: CInt(1), through: CInt(parameterCount), by: 1) {
            if let name = parameterName(at: index), arguments.namedValues[name] != nil { continue }
            guard positional.popFirst() != nil else { throw missingArgument(at: index, arguments) }
        }
        if !positional.isEmpty { throw wrongArgumentCount(arguments) }
    }

    /// Binds the arguments, replacing the previous ones.
    public func setArguments(_ arguments: consuming StatementArguments) throws {
        if arguments.namedValues.isEmpty, arguments.values.count == parameterCount {
            // The hot path: one positional value per parameter, without
            // the slice the general path keeps (a retain and a release
            // of the values per execution). Taken (`consuming`), the
            // arguments move into `boundArguments`: kept without a retain.
            if let code = bindExactly(arguments.values) { throw bindingError(code, copy arguments) }
            boundArguments = consume arguments
            return
        }
        var positional = arguments.values[...]
        try bind(&positional, named: arguments.namedValues, reporting: copy arguments)
        if !positional.isEmpty { throw wrongArgumentCount(copy arguments) }
    }

    /// Binds the arguments without checking for left-over positional values.
    public func setUncheckedArguments(_ arguments: StatementArguments) {
        var positional = arguments.values[...]
        try? bind(&positional, named: arguments.namedValues, reporting: arguments)
    }

    var parameterCount: Int { Int(sqlite3_bind_parameter_count(sqliteStatement)) }

    private func parameterName(at index: CInt) -> String? {
        guard let name = sqlite3_bind_parameter_name(sqliteStatement, index) else { return nil }
        // `?NNN` parameters are positional; `:a`, `$a` and `@a` are named "a".
        guard name.pointee != CChar(UInt8(ascii: "?")) else { return nil }
        return String(cString: name + 1)
    }

    /// Binds every parameter, taking positional values from the front of
    /// `positional` (so that a multi-statement execute can share them).
    func bind(
        _ positional: inout ArraySlice<DatabaseValue>,
        named: [String: DatabaseValue],
        reporting arguments: StatementArguments
    ) throws {
        startBinding()
        let count = parameterCount
        if named.isEmpty, positional.count >= count {
            if let code = positional.prefix(count).withUnsafeBufferPointer({ bindInPlace($0) }) {
                throw bindingError(code, arguments)
            }
            positional = positional.dropFirst(count)
            boundArguments = arguments
            return
        }
        do {
            let available = positional.count
            startArgumentBytes()
            for index in stride(from: CInt(1), through: CInt(count), by: 1) {
                let value: DatabaseValue
                // Without named values, skip the name lookup (the hot path
                // of inserts).
                if !named.isEmpty, let name = parameterName(at: index), let namedValue = named[name] {
                    value = namedValue
                } else if let next = positional.popFirst() {
                    value = next
                } else {
                    sqlite3_clear_bindings(sqliteStatement)
                    throw missingArgument(at: index, arguments, available: available)
                }
                let code = bind(value, at: index)
                if code != SQLITE_OK {
                    sqlite3_clear_bindings(sqliteStatement)
                    throw bindingError(code, arguments)
                }
            }
        }
        boundArguments = arguments
    }

    /// Starts a binding of one value at a time (`bind(_:at:)`, or
    /// `bind(integer:at:)`, `bind(real:at:)` and `bind(text:at:)`).
    func startBindingOneByOne() {
        startBinding()
        startArgumentBytes()
    }

    /// Before a new binding: forgets the region it may have been given,
    /// and resets a stepped statement.
    @inline(__always)
    private func startBinding() {
        regionOverride = nil
        if isStepped {
            sqlite3_reset(sqliteStatement)
            isStepped = false
        }
    }

    /// Runs the statement bound one value at a time. A failure reports
    /// `arguments()`, made only then.
    func executeBoundOneByOne(arguments: () throws -> [DatabaseValue]) throws {
        try runBound { StatementArguments(values: (try? arguments()) ?? []) }
    }

    /// Binds one value per parameter, in order: `values.count` is the
    /// parameter count. Returns nil, or the code of the binding that failed
    /// (no parameter is left bound), which the caller reports with its
    /// arguments: a closure that made them here would cost a retain and a
    /// release of `values` on every execution.
    private func bindExactly(_ values: [DatabaseValue]) -> CInt? {
        startBinding()
        return values.withUnsafeBufferPointer { bindInPlace($0) }
    }

    /// Binds `values` to the first parameters, read in place: a copy of
    /// each value would retain and release its string or blob. Returns nil,
    /// or the code of the binding that failed.
    private func bindInPlace(_ values: UnsafeBufferPointer<DatabaseValue>) -> CInt? {
        startArgumentBytes()
        guard let base = values.baseAddress else { return nil }
        for offset in 0..<values.count {
            let code = bind(valueAt: base + offset, at: CInt(offset + 1))
            if code != SQLITE_OK {
                sqlite3_clear_bindings(sqliteStatement)
                return code
            }
        }
        return nil
    }

    /// The error of a binding that failed with `code`.
    private func bindingError(_ code: CInt, _ arguments: StatementArguments) -> DatabaseError {
        DatabaseError(connection: sqlite3_db_handle(sqliteStatement), code: code, sql: sql, arguments: arguments,
                      publicStatementArguments: publicStatementArguments)
    }

    /// A valid address for zero bytes.
    nonisolated(unsafe) private static let emptyBytes = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)

    /// Binds `value` to parameter `index`: SQLite's code.
    func bind(_ value: DatabaseValue, at index: CInt) -> CInt {
        withUnsafePointer(to: value) { bind(valueAt: $0, at: index) }
    }

    /// Binds the value at `value`, read where it is: a value passed as an
    /// argument is a copy, which retains and releases its string or blob.
    private func bind(valueAt value: UnsafePointer<DatabaseValue>, at index: CInt) -> CInt {
        switch value.pointee.storage {
        case .null, .int64, .double:
            return value.pointee.bind(to: sqliteStatement, at: index)
        case .string(let string):
            return bind(text: string, at: index)
        case .blob(let data):
            // A NULL pointer would bind NULL: an empty BLOB needs another.
            guard !data.isEmpty else { return sqlite3_bind_blob(sqliteStatement, index, Statement.emptyBytes, 0, nil) }
            return data.withUnsafeBytes { bindBytes($0, at: index, asText: false) }
        }
    }

    /// `available`: the positional values this statement could take (in a
    /// multi-statement execute, those the previous statements left), the
    /// count GRDB reports.
    private func missingArgument(at index: CInt, _ arguments: StatementArguments, available: Int? = nil) -> DatabaseError {
        let what = parameterName(at: index).map { "missing statement argument: \($0)" }
            ?? "wrong number of statement arguments: \(available ?? arguments.values.count)"
        return DatabaseError(resultCode: .SQLITE_MISUSE, message: what, sql: sql, arguments: arguments,
                             publicStatementArguments: publicStatementArguments)
    }

    private func wrongArgumentCount(_ arguments: StatementArguments) -> DatabaseError {
        DatabaseError(resultCode: .SQLITE_MISUSE,
                      message: "wrong number of statement arguments: \(arguments.values.count)",
                      sql: sql, arguments: arguments, publicStatementArguments: publicStatementArguments)
    }

    // MARK: Execution

    /// Runs the statement to completion, with new arguments if given.
    public func execute(arguments: consuming StatementArguments? = nil) throws {
        if let arguments = arguments.take() { try setArguments(arguments) } else { reset() }
        defer { reset() }
        while try step() {}
    }

    /// Runs the statement with exactly these positional values (records'
    /// INSERT statements).
    ///
    /// The values are not kept as the statement's ``arguments``: what is
    /// bound is a copy (in the statement's argument buffer, or SQLite's),
    /// and wrapping the values in `StatementArguments` to keep them would
    /// cost an atomic retain and release of their array for every row. An
    /// error names them all the same.
    func execute(values: [DatabaseValue]) throws {
        guard values.count == parameterCount else {
            // Too few values: a missing argument; too many: the count.
            let arguments = StatementArguments(values: values)
            var positional = values[...]
            try bind(&positional, named: [:], reporting: arguments)
            throw wrongArgumentCount(arguments)
        }
        if let code = bindExactly(values) { throw bindingError(code, StatementArguments(values: values)) }
        try runBound { StatementArguments(values: values) }
    }

    /// Runs the bound statement to its end, then resets it. An error
    /// without arguments gets `arguments()`, made only then.
    @inline(__always)
    private func runBound(reporting arguments: () -> StatementArguments) throws {
        if !boundArguments.isEmpty { boundArguments = StatementArguments() }
        defer { reset() }
        do {
            while try step() {}
        } catch let error as DatabaseError where error.arguments?.isEmpty == true {
            throw DatabaseError(resultCode: error.extendedResultCode, message: error.message, sql: error.sql,
                                arguments: arguments(), publicStatementArguments: error.publicStatementArguments)
        }
    }

    /// Advances to the next row: true if a row is available, false when the
    /// statement is done.
    @discardableResult
    public func step() throws -> Bool {
        if !isStepped {
            try unmanagedDatabase._withUnsafeGuaranteedRef { try $0.checkStatementMayStart(self) }
            try withAuthorizer { try $0.statementWillRun(self) }
            if database.isRecordingSelectedRegion { database.selectedRegion.formUnion(databaseRegion) }
        }
        isStepped = true
        switch sqlite3_step(sqliteStatement) {
        case SQLITE_ROW:
            return true
        case SQLITE_DONE:
            unmanagedDatabase._withUnsafeGuaranteedRef { $0.forgetTransactionDateAfterTransaction() }
            try withAuthorizer { try $0.statementDidRun(self) }
            return false
        case let code:
            let error = DatabaseError(connection: sqlite3_db_handle(sqliteStatement), code: code,
                                      sql: sql, arguments: arguments,
                                      publicStatementArguments: publicStatementArguments)
            // sqlite3_reset returns the same error, and makes the statement
            // reusable at once.
            reset()
            database.forgetTransactionDateAfterTransaction()
            try withAuthorizer { try $0.statementDidFail(self) }
            throw error
        }
    }

    /// Runs `body` with the connection's authorizer if it follows this
    /// statement, reached through the unretained database (no retain).
    @inline(__always)
    private func withAuthorizer(_ body: (StatementAuthorizer) throws -> Void) rethrows {
        guard isFollowedByAuthorizer else { return }
        try unmanagedDatabase._withUnsafeGuaranteedRef { try body($0.authorizer) }
    }

    /// Resets the statement so that it can run again; bindings are kept.
    public func reset() {
        sqlite3_reset(sqliteStatement)
        isStepped = false
    }

    /// True while a step has started and the statement was not reset.
    var isBusy: Bool { sqlite3_stmt_busy(sqliteStatement) != 0 }
}

extension Statement: CustomStringConvertible {
    /// The statement's SQL.
    public var description: String { sql }
}

extension DatabaseError {
    /// SQLite's own messages of the codes a function may hide.
    private static let codesByMessage: [String: CInt] = Dictionary(
        [ResultCode.SQLITE_FULL, .SQLITE_IOERR, .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_NOTADB, .SQLITE_CORRUPT]
            .map { (String(cString: sqlite3_errstr($0.rawValue)), $0.rawValue) },
        uniquingKeysWith: { first, _ in first })

    /// The one place that turns a failed SQLite call into an error: it reads
    /// the connection's extended code and message.
    init(connection: OpaquePointer?, code: CInt, sql: String? = nil,
         arguments: StatementArguments? = nil, publicStatementArguments: Bool = false) {
        var extended = code
        var message: String?
        if let connection {
            let connectionCode = sqlite3_extended_errcode(connection)
            // Keep the detail only when it belongs to this failure.
            if connectionCode & 0xFF == code & 0xFF { extended = connectionCode }
            message = String(cString: sqlite3_errmsg(connection))
        } else {
            message = String(cString: sqlite3_errstr(code))
        }
        // SQL functions such as sqlcipher_export report a failed write as
        // a plain SQLITE_ERROR with the message of the real code: restore
        // the code, so that a full disk is told from a failed statement.
        if extended == ResultCode.SQLITE_ERROR.rawValue, let message, let real = DatabaseError.codesByMessage[message] {
            extended = real
        }
        self.init(resultCode: ResultCode(rawValue: extended), message: message, sql: sql,
                  arguments: arguments, publicStatementArguments: publicStatementArguments)
    }
}
