// The yardstick's test harness: the helpers GRDB 7.10's own tests call
// (their GRDBTestCase uses GRDB's internal API), written for SecureStore's
// public API. Every database the helpers make is encrypted.
//
// scripts/grdb-yardstick.sh copies this file next to GRDB's test files in a
// scratch package outside the project; GRDB's files are never committed.

import CSQLCipher
import Foundation
import SecureStore
import XCTest

/// The passphrase of every database the harness makes.
let yardstickPassphrase = "secret"

/// The last message of SQLite's error log (`Database.logError`).
struct SQLiteDiagnostic {
    var resultCode: ResultCode
    var message: String
}

private let diagnosticLock = NSLock()
nonisolated(unsafe) private var lastDiagnostic: SQLiteDiagnostic?

var lastSQLiteDiagnostic: SQLiteDiagnostic? {
    diagnosticLock.withLock { lastDiagnostic }
}

let logErrorSetup: Void = {
    Database.logError = { code, message in
        // SecureStore's own warning about the pinned count below is not
        // SQLite's diagnostic, which GRDB's tests read.
        guard !(code == .SQLITE_WARNING && message.contains("weak key derivation")) else { return }
        diagnosticLock.withLock { lastDiagnostic = SQLiteDiagnostic(resultCode: code, message: message) }
    }
}()

#if SWIFT_PACKAGE
let testBundle = Bundle.module
#endif

class GRDBTestCase: XCTestCase {
    /// Encrypted, and traced into ``sqlQueries``.
    var dbConfiguration: Configuration!

    private var directory: URL!
    private let queries = QueryLog()

    /// The statements run so far, with their arguments expanded.
    var sqlQueries: [String] { queries.all }

    /// The last statement run, trigger comments left out.
    var lastSQLQuery: String? { sqlQueries.last { !$0.hasPrefix("--") } }

    override func setUp() {
        super.setUp()
        _ = logErrorSetup
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("GRDBTestCase-\(UUID().uuidString)", isDirectory: true)
        var config = Configuration()
        // SQLCipher 3.4.1's default 64,000 iterations, as before SecureStore
        // gave new files 1,300,000 (1.4 s per open): the suite opens
        // thousands of files. SQLCipher 4's defaults on 4.x.
        if SQLCipherLibrary.majorVersion == 3 { config.cipherSettings = CipherSettings(kdfIterations: 64000) }
        config.prepareDatabase { [queries] db in
            db.trace { queries.append($0.expandedDescription) }
            try db.usePassphrase(yardstickPassphrase)
        }
        dbConfiguration = config
        clearSQLQueries()
    }

    override func tearDown() {
        super.tearDown()
        try? FileManager.default.removeItem(at: directory)
    }

    func clearSQLQueries() { queries.clear() }

    private func databasePath(_ filename: String?) throws -> String {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent(filename ?? UUID().uuidString).path
    }

    func makeDatabaseQueue(filename: String? = nil) throws -> DatabaseQueue {
        try makeDatabaseQueue(filename: filename, configuration: dbConfiguration)
    }

    func makeDatabaseQueue(filename: String? = nil, configuration: Configuration) throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: databasePath(filename), configuration: configuration)
        try setup(queue)
        return queue
    }

    func makeDatabasePool(filename: String? = nil) throws -> DatabasePool {
        try makeDatabasePool(filename: filename, configuration: dbConfiguration)
    }

    func makeDatabasePool(filename: String? = nil, configuration: Configuration) throws -> DatabasePool {
        let pool = try DatabasePool(path: databasePath(filename), configuration: configuration)
        try setup(pool)
        return pool
    }

    /// Called on each new database; subclasses override it.
    func setup(_ dbWriter: some DatabaseWriter) throws { }

    func assertNoError(file: StaticString = #file, line: UInt = #line, _ test: () throws -> Void) {
        do { try test() } catch { XCTFail("unexpected error: \(error)", file: file, line: line) }
    }

    func assertDidExecute(sql: String, file: StaticString = #file, line: UInt = #line) {
        XCTAssertTrue(sqlQueries.contains(sql), "Did not execute \(sql)", file: file, line: line)
    }

    func assert(_ record: some EncodableRecord, isEncodedIn row: Row, file: StaticString = #file, line: UInt = #line) throws {
        let encoded = try record.databaseDictionary
        var stored: [String: DatabaseValue] = [:]
        for (column, value) in row where stored[column] == nil { stored[column] = value }
        XCTAssertEqual(encoded, stored, file: file, line: line)
    }

    /// Equal SQL, but for surrounding white space and semicolons.
    func assertEqualSQL(_ lhs: String, _ rhs: String, file: StaticString = #file, line: UInt = #line) {
        XCTAssertEqual(lhs.trimmedForComparison, rhs.trimmedForComparison, file: file, line: line)
    }

    /// The SQL a request runs.
    func assertEqualSQL(_ db: Database, _ request: some FetchRequest, _ sql: String,
                        file: StaticString = #file, line: UInt = #line) throws {
        _ = try request.makeStatement(db).makeCursor().next()
        assertEqualSQL(lastSQLQuery!, sql, file: file, line: line)
    }

    /// The SQL of an expression, selected.
    func assertEqualSQL(_ db: Database, _ expression: some SQLExpressible, _ sql: String,
                        file: StaticString = #file, line: UInt = #line) throws {
        let request: SQLRequest<Row> = "SELECT \(expression)"
        try assertEqualSQL(db, request, "SELECT \(sql)", file: file, line: line)
    }

    func assertEqualSQL(_ reader: some DatabaseReader, _ request: some FetchRequest, _ sql: String,
                        file: StaticString = #file, line: UInt = #line) throws {
        try reader.unsafeRead { db in try assertEqualSQL(db, request, sql, file: file, line: line) }
    }

    func sql(_ reader: some DatabaseReader, _ request: some FetchRequest) -> String {
        try! reader.unsafeRead { db in
            _ = try request.makeStatement(db).makeCursor().next()
            return lastSQLQuery!
        }
    }
}

/// The traced statements, shared with the connections' trace closures.
final class QueryLog: @unchecked Sendable {
    private let lock = NSLock()
    private var queries: [String] = []
    var all: [String] { lock.withLock { queries } }
    func append(_ query: String) { lock.withLock { queries.append(query) } }
    func clear() { lock.withLock { queries.removeAll() } }
}

extension String {
    fileprivate var trimmedForComparison: String {
        trimmingCharacters(in: CharacterSet.whitespacesAndNewlines.union(CharacterSet(charactersIn: ";")))
    }
}

extension FetchRequest {
    /// The statement of the request.
    func makeStatement(_ db: Database) throws -> Statement {
        try makePreparedRequest(db, forSingleResult: false).statement
    }

    /// The SQL and arguments of the request.
    func build(_ db: Database) throws -> (sql: String, arguments: StatementArguments) {
        let statement = try makeStatement(db)
        return (statement.sql, statement.arguments)
    }
}

extension Statement {
    /// A cursor of the statement's rows.
    func makeCursor(arguments: StatementArguments? = nil) throws -> RowCursor {
        try Row.fetchCursor(self, arguments: arguments)
    }
}
