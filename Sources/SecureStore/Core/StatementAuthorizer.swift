internal import CSQLCipher

/// Why a statement may not run inside a migration: it would end the
/// migration's transaction early, or change the key, the cipher settings,
/// the journal mode or foreign-key enforcement behind the migrator's back.
///
/// SQLite's authorizer classifies each statement as it is compiled, from
/// what SQLite itself is about to do, not from the statement's text.
public struct StatementRefusal: Sendable, Hashable, CustomStringConvertible {
    /// The kinds of statements that break a migration's atomicity.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// `BEGIN`, `COMMIT`, `END`, `ROLLBACK`: the migration's transaction
        /// would end (or fail to nest) before its history row is written.
        case transaction
        /// `ATTACH` or `DETACH`: another database file would change outside
        /// the migration's transaction.
        case attach
        /// `VACUUM`: rewrites the file, and cannot run in a transaction.
        case vacuum
        /// `PRAGMA key`, `rekey` and the cipher settings: the operator's
        /// key would stop opening the file.
        case cipherPragma = "cipher-pragma"
        /// `PRAGMA journal_mode = ...`.
        case journalMode = "journal-mode"
        /// `PRAGMA foreign_keys = ...`: the migrator checks foreign keys
        /// itself at the end of each step.
        case foreignKeys = "foreign-keys"
    }

    /// What the statement does.
    public var kind: Kind

    /// What SQLite reported, e.g. `COMMIT` or `PRAGMA rekey`.
    public var action: String

    /// The statement as it may be shown: a key pragma's value is a
    /// secret, so only its name is (`PRAGMA rekey = ...`).
    public func displayed(_ statement: String) -> String {
        kind == .cipherPragma ? action : SQLText.droppingLeadingComments(statement).trimmedSQLStatement
    }

    /// A sentence that says why the statement is refused.
    public var description: String {
        switch kind {
        case .transaction:
            return "\(action) is not allowed in a migration: a migration runs in one transaction with its history row, and \(action) would end it early (SAVEPOINT, RELEASE and ROLLBACK TO are allowed)"
        case .attach:
            return "\(action) is not allowed in a migration: changes to another database file would escape the migration's transaction"
        case .vacuum:
            return "VACUUM is not allowed in a migration: it cannot run inside the migration's transaction; run it afterwards"
        case .cipherPragma:
            return "\(action) is not allowed in a migration: it would change the key or the cipher settings, and the operator's key would no longer open the file (use `migrate-tool rekey`)"
        case .journalMode:
            return "\(action) is not allowed in a migration: the journal mode is the application's choice, not a migration's"
        case .foreignKeys:
            return "\(action) is not allowed in a migration: the migrator turns foreign keys off and checks them itself at the end of each step"
        }
    }
}

/// Classifies every statement as SQLite compiles it, through
/// `sqlite3_set_authorizer`:
/// - statements that change the schema or begin and end transactions, so
///   that the schema cache is dropped or checked when they run;
/// - statements that would break a migration's atomicity
///   (``StatementRefusal``): while a migration runs they are refused
///   (SQLITE_DENY), so that SQLite never executes them — SQLCipher's key
///   pragmas act when they are compiled, not when they are stepped.
///
/// One per connection; the callback only runs on the connection's queue.
final class StatementAuthorizer {
    let schemaCache: SchemaCache

    /// True while a migration step runs.
    var guardsMigration = false

    /// True while SQL is compiled only to learn whether it holds a
    /// statement: every action is denied, so that nothing runs at compile
    /// time (SQLCipher's key pragmas act when compiled).
    var deniesEverything = false

    // What the authorizer saw of the statement being compiled.
    private(set) var schemaEffect = SchemaCache.Effect.none
    private(set) var refusal: StatementRefusal?
    private(set) var sawAction = false
    /// The (table, column) pairs the statement reads; an empty column
    /// for a read of the whole table (`COUNT(*)`).
    private(set) var reads: [(table: String, column: String)] = []
    /// The kinds of changes the statement may make, for transaction
    /// observers: one per table and kind, updated columns merged.
    private(set) var eventKinds: [DatabaseEventKind] = []
    /// How the statement begins or ends a transaction or savepoint.
    private(set) var transactionEffect: Statement.TransactionEffect?
    /// True when the statement deletes rows of a table.
    private(set) var canDeleteRows = false
    /// True while compiling a `DROP TABLE` or `DROP VIEW`: SQLite then asks
    /// about deleting its rows, and SQLITE_IGNORE there would skip the drop.
    private var dropsTable = false

    /// The connection's transaction observers, once there are some.
    var broker: DatabaseObservationBroker?

    /// True once a statement assigned a cipher setting (`PRAGMA kdf_iter =
    /// ...`, `PRAGMA cipher_compatibility = ...`) since `prepareDatabase`
    /// started (`runSetups` resets it): only then may a key the pool
    /// derived miss the connection's settings (`derivedKeyMissesSettings`).
    var assignedCipherSetting = false

    /// True once a statement that writes ran in the current transaction:
    /// `changePassphrase` would commit its changes early.
    private(set) var transactionHasWrites = false

    init(schemaCache: SchemaCache) {
        self.schemaCache = schemaCache
    }

    /// Called before each compilation.
    func reset() {
        schemaEffect = .none
        refusal = nil
        sawAction = false
        reads.removeAll(keepingCapacity: true)
        eventKinds.removeAll()
        transactionEffect = nil
        canDeleteRows = false
        dropsTable = false
    }

    /// Called when a classified statement starts running.
    func statementWillRun(_ statement: Statement) throws {
        if guardsMigration, let refusal = statement.refusal {
            throw StatementRefusalError(refusal: refusal, sql: statement.sql)
        }
        schemaCache.statementWillRun(statement.schemaEffect)
        // A write sets the flag whatever the transaction; anything else
        // clears it once no transaction is open, a question put to SQLite
        // only while the flag is set.
        if statement.isWrite {
            transactionHasWrites = true
        } else if transactionHasWrites, sqlite3_get_autocommit(sqlite3_db_handle(statement.sqliteStatement)) != 0 {
            transactionHasWrites = false
        }
        broker?.statementWillExecute(statement)
    }

    /// Called when a classified statement is done.
    func statementDidRun(_ statement: Statement) throws {
        try broker?.statementDidExecute(statement)
    }

    /// Called when a classified statement fails; throws the error that
    /// replaces SQLite's (an observer that refused the commit).
    func statementDidFail(_ statement: Statement) throws {
        try broker?.statementDidFail(statement)
    }

    private func recordChange(_ kind: DatabaseEventKind) {
        if case let .update(table, columns) = kind,
           let index = eventKinds.firstIndex(where: { if case .update(let other, _) = $0 { return other == table } else { return false } }),
           case let .update(_, existing) = eventKinds[index] {
            eventKinds[index] = .update(tableName: table, columnNames: existing.union(columns))
        } else if !eventKinds.contains(kind) {
            eventKinds.append(kind)
        }
    }

    /// Installs the callback. The connection keeps an unretained pointer:
    /// `unregister` must run before this object goes away.
    func register(on connection: OpaquePointer) {
        sqlite3_set_authorizer(connection, { context, action, first, second, _, _ in
            guard let context else { return SQLITE_OK }
            return Unmanaged<StatementAuthorizer>.fromOpaque(context).takeUnretainedValue()
                .authorize(action, first, second)
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    static func unregister(on connection: OpaquePointer) {
        sqlite3_set_authorizer(connection, nil, nil)
    }

    private func authorize(_ action: CInt, _ first: UnsafePointer<CChar>?, _ second: UnsafePointer<CChar>?) -> CInt {
        sawAction = true
        if deniesEverything { return SQLITE_DENY }
        switch action {
        case SQLITE_READ:
            if let first, let second { reads.append((String(cString: first), String(cString: second))) }
        case SQLITE_INSERT:
            if let first, let table = Self.observableTable(first) { recordChange(.insert(tableName: table)) }
        case SQLITE_UPDATE:
            if let first, let second, let table = Self.observableTable(first) {
                recordChange(.update(tableName: table, columnNames: [String(cString: second)]))
            }
        case SQLITE_DELETE:
            if let first, let table = Self.observableTable(first) {
                recordChange(.delete(tableName: table))
                canDeleteRows = true
                // SQLITE_IGNORE turns off the truncate optimization, which
                // deletes all rows without telling the update hook. Not for
                // a DROP TABLE: SQLite would silently not drop the table.
                if !dropsTable, broker?.observesDeletions(on: table) == true { return SQLITE_IGNORE }
            }
        case SQLITE_CREATE_INDEX...SQLITE_DROP_VIEW, SQLITE_ALTER_TABLE, SQLITE_CREATE_VTABLE, SQLITE_DROP_VTABLE:
            schemaEffect = .schemaChange
            if [SQLITE_DROP_TABLE, SQLITE_DROP_TEMP_TABLE, SQLITE_DROP_VTABLE, SQLITE_DROP_VIEW, SQLITE_DROP_TEMP_VIEW].contains(action) {
                dropsTable = true
            }
        case SQLITE_ATTACH:
            schemaEffect = .schemaChange
            return refuse(.attach, "ATTACH")
        case SQLITE_DETACH:
            schemaEffect = .schemaChange
            return refuse(.attach, "DETACH")
        case SQLITE_TRANSACTION:
            if schemaEffect == .none { schemaEffect = .transaction }
            let verb = first.map { String(cString: $0) } ?? "BEGIN"
            switch verb {
            case "BEGIN": transactionEffect = .beginTransaction
            case "COMMIT": transactionEffect = .commitTransaction
            default: transactionEffect = .rollbackTransaction
            }
            return refuse(.transaction, verb)
        case SQLITE_SAVEPOINT:
            if schemaEffect == .none { schemaEffect = .transaction }
            if let first, let second {
                let name = String(cString: second)
                switch String(cString: first) {
                case "BEGIN": transactionEffect = .beginSavepoint(name)
                case "RELEASE": transactionEffect = .releaseSavepoint(name)
                default: transactionEffect = .rollbackSavepoint(name)
                }
            }
        case SQLITE_PRAGMA:
            guard let first else { break }
            if let kind = Self.refusedPragma(String(cString: first), assigns: second != nil) {
                if kind == .cipherPragma, second != nil { assignedCipherSetting = true }
                let name = String(cString: first).lowercased()
                return refuse(kind, "PRAGMA \(name)" + (second == nil ? "" : " = ..."))
            }
        default:
            break
        }
        return SQLITE_OK
    }

    /// The table of a change, unless it is one of SQLite's own (the
    /// schema), whose changes the update hook never reports.
    private static func observableTable(_ name: UnsafePointer<CChar>) -> String? {
        let table = String(cString: name)
        return Database.isSQLiteInternalTable(table) ? nil : table
    }

    /// Records the refusal, and denies the statement while a migration runs.
    private func refuse(_ kind: StatementRefusal.Kind, _ action: String) -> CInt {
        if refusal == nil { refusal = StatementRefusal(kind: kind, action: action) }
        return guardsMigration ? SQLITE_DENY : SQLITE_OK
    }

    /// Pragmas that change the key, the cipher settings, the journal mode
    /// or foreign-key enforcement. Reading a setting is fine; assigning is
    /// not. `cipher_migrate` rewrites the file without an argument.
    static func refusedPragma(_ name: String, assigns: Bool) -> StatementRefusal.Kind? {
        let name = name.lowercased()
        switch name {
        case "key", "rekey", "hexkey", "hexrekey", "textkey", "textrekey", "cipher_migrate", "cipher_add_random":
            return .cipherPragma
        case "kdf_iter", "fast_kdf_iter":
            return assigns ? .cipherPragma : nil
        case "journal_mode":
            return assigns ? .journalMode : nil
        case "foreign_keys":
            return assigns ? .foreignKeys : nil
        default:
            return assigns && name.hasPrefix("cipher") ? .cipherPragma : nil
        }
    }
}

extension Database {
    /// Runs `body` with the statements that break a migration's atomicity
    /// refused (``StatementRefusal``), and the calls that change the key.
    package func guardingMigration<T>(_ body: () throws -> T) throws -> T {
        let wasGuarding = authorizer.guardsMigration
        authorizer.guardsMigration = true
        defer { authorizer.guardsMigration = wasGuarding }
        return try body()
    }

    /// Throws when a migration runs: keys change through `migrate-tool
    /// rekey` or ``changePassphrase(_:)-swift.method`` outside migrations.
    func checkNotGuardingMigration(_ action: String) throws {
        guard authorizer.guardsMigration else { return }
        throw StatementRefusalError(refusal: StatementRefusal(kind: .cipherPragma, action: action), sql: nil)
    }

    /// The refusal of a statement that compiled without the authorizer
    /// seeing any action: VACUUM is the one such statement that matters,
    /// and SQLite's own program for it (`EXPLAIN`) tells it apart.
    func refusalOfActionlessStatement(_ handle: OpaquePointer) -> StatementRefusal? {
        guard let text = sqlite3_sql(handle) else { return nil }
        var explain: OpaquePointer?
        defer { sqlite3_finalize(explain) }
        let guarding = authorizer.guardsMigration
        authorizer.guardsMigration = false
        defer { authorizer.guardsMigration = guarding }
        guard sqlite3_prepare_v2(sqliteConnection, "EXPLAIN " + String(cString: text), -1, &explain, nil) == SQLITE_OK,
              let explain else { return nil }
        while sqlite3_step(explain) == SQLITE_ROW {
            if let opcode = sqlite3_column_text(explain, 1), String(cString: opcode) == "Vacuum" {
                return StatementRefusal(kind: .vacuum, action: "VACUUM")
            }
        }
        return nil
    }
}

/// Thrown when a statement is refused while a migration runs. The
/// migrator turns it into ``MigrationError/forbiddenStatement(identifier:path:line:statement:reason:)``.
package struct StatementRefusalError: Error, CustomStringConvertible {
    package var refusal: StatementRefusal
    /// The statement, as ``StatementRefusal/displayed(_:)`` shows it.
    package var sql: String?

    init(refusal: StatementRefusal, sql: String?) {
        self.refusal = refusal
        self.sql = sql.map(refusal.displayed)
    }

    package var description: String {
        "not authorized: " + refusal.description + (sql.map { " - while executing `\($0.trimmedSQLStatement)`" } ?? "")
    }
}

extension Database {
    /// The statements of an SQL script, as SQLite's own tokenizer splits
    /// them (`sqlite3_complete`: string literals, comments and trigger
    /// bodies are handled), with the UTF-8 offset where each starts.
    package static func statements(inScript sql: String) -> [(offset: Int, sql: String)] {
        let bytes = Array(sql.utf8)
        var result: [(Int, String)] = []
        var start = 0
        func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
        for index in bytes.indices where bytes[index] == UInt8(ascii: ";") {
            let candidate = Array(bytes[start...index]) + [0]
            let complete = candidate.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { sqlite3_complete($0.baseAddress) != 0 }
            }
            guard complete else { continue }
            result.append((start, text(start..<(index + 1))))
            start = index + 1
        }
        if start < bytes.count { result.append((start, text(start..<bytes.count))) }
        return result.filter { SQLText.containsStatement($0.1) }
    }

    /// The statements of an SQL script that a migration may not run, found
    /// by compiling each one on a scratch in-memory connection with the
    /// migration guard on (refused statements never run there either).
    /// Statements that do not compile without the real schema are skipped:
    /// the statements refused here never depend on it.
    package static func refusals(inScript sql: String) throws -> [(offset: Int, sql: String, refusal: StatementRefusal)] {
        let scratch = try Database(path: ":memory:", configuration: Configuration())
        defer { try? scratch.close() }
        var found: [(Int, String, StatementRefusal)] = []
        for (offset, statement) in statements(inScript: sql) {
            do {
                _ = try scratch.guardingMigration { try scratch.makeStatement(sql: statement) }
            } catch let error as StatementRefusalError {
                found.append((offset, error.refusal.displayed(statement), error.refusal))
            } catch {
                continue
            }
        }
        return found
    }
}
