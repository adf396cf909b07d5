import Dispatch
import Foundation
import SecureStore
import XCTest

final class DatabaseQueueTests: SecureStoreTestCase {
    func testJournalModeAndTargetQueues() throws {
        var config = keyedConfiguration(passphrase: "secret")
        config.journalMode = .wal
        let target = DispatchQueue(label: "target", qos: .utility)
        let key = DispatchSpecificKey<String>()
        target.setSpecific(key: key, value: "target")
        config.targetQueue = target
        XCTAssertEqual(config.readQoS, .utility)
        XCTAssertEqual(config.writeQoS, .utility)
        config.writeTargetQueue = DispatchQueue(label: "writes", qos: .background)
        XCTAssertEqual(config.writeQoS, .background)
        config.writeTargetQueue = nil

        let dbQueue = try DatabaseQueue(path: path("wal.db"), configuration: config)
        XCTAssertEqual(try dbQueue.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }, "wal")
        XCTAssertEqual(try dbQueue.read { try Int.fetchOne($0, sql: "PRAGMA synchronous") }, 1)
        // The connection's queue runs on the target queue.
        XCTAssertEqual(try dbQueue.read { _ in DispatchQueue.getSpecific(key: key) }, "target")

        // The default stays SQLite's rollback journal.
        let plain = try makeEncryptedQueue("default.db")
        XCTAssertEqual(try plain.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }, "delete")
    }

    /// New database files are private whatever the umask; their WAL and
    /// shared-memory files follow; an existing file keeps its mode.
    func testNewDatabaseFilesAreCreatedPrivate() throws {
        let previous = umask(0o022)
        defer { umask(previous) }
        func mode(_ name: String) throws -> Int {
            try FileManager.default.attributesOfItem(atPath: path(name))[.posixPermissions] as! Int
        }
        let dbQueue = try makeEncryptedQueue("queue.db")
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (a)") }
        XCTAssertEqual(try mode("queue.db"), 0o600)
        let dbPool = try DatabasePool(path: path("pool.db"), configuration: keyedConfiguration(passphrase: "secret"))
        try dbPool.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1)") }
        _ = try dbPool.read { db in try Int.fetchOne(db, sql: "SELECT a FROM t") }
        XCTAssertEqual(try mode("pool.db"), 0o600)
        XCTAssertEqual(try mode("pool.db-wal"), 0o600)
        XCTAssertEqual(try mode("pool.db-shm"), 0o600)
        // An existing file is the owner's business: its mode stays.
        _ = FileManager.default.createFile(atPath: path("shared.db"), contents: nil, attributes: [.posixPermissions: 0o640])
        _ = try makeEncryptedQueue("shared.db")
        XCTAssertEqual(try mode("shared.db"), 0o640)
    }

    func testManyConcurrentTasksWriteEveryRow() async throws {
        let dbQueue = try makeEncryptedQueue()
        try await dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (task INTEGER, n INTEGER)") }
        let tasks = 40, rowsPerTask = 25
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    for n in 0..<rowsPerTask {
                        try await dbQueue.write { db in
                            try db.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [task, n])
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let (count, distinct) = try await dbQueue.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM t"),
             try Int.fetchOne(db, sql: "SELECT count(DISTINCT task * 1000 + n) FROM t"))
        }
        XCTAssertEqual(count, tasks * rowsPerTask)
        XCTAssertEqual(distinct, tasks * rowsPerTask)
    }

    func testManyThreadsShareOneQueue() throws {
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (n INTEGER)") }
        let errors = ErrorBox()
        DispatchQueue.concurrentPerform(iterations: 200) { n in
            do {
                try dbQueue.write { db in try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [n]) }
                _ = try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }
            } catch {
                errors.append(error)
            }
        }
        XCTAssertTrue(errors.isEmpty)
        XCTAssertEqual(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT sum(n) FROM t") }, (0..<200).reduce(0, +))
    }

    func testReentrantAccessThrowsInsteadOfDeadlocking() throws {
        let dbQueue = try DatabaseQueue()
        XCTAssertThrowsError(try dbQueue.write { _ in try dbQueue.read { _ in 1 } }) { error in
            XCTAssertTrue("\(error)".contains("not reentrant"), "\(error)")
        }
        XCTAssertEqual(try dbQueue.write { _ in try dbQueue.unsafeReentrantRead { _ in 1 } }, 1)
    }

    /// writeWithoutTransaction and inDatabase rethrow only their closure's
    /// errors, as GRDB's do: code that calls them without `try` compiles,
    /// and a closed connection throws from its first statement.
    /// With allowsUnsafeTransactions, a transaction may span accesses.
    func testUnsafeTransactionsSpanAccessesWhenAllowed() throws {
        var config = keyedConfiguration(passphrase: "unsafe")
        config.allowsUnsafeTransactions = true
        let dbQueue = try DatabaseQueue(path: path("unsafe.db"), configuration: config)
        try dbQueue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE t (a)")
            try db.beginTransaction()
            try db.execute(sql: "INSERT INTO t VALUES (1)")
        }
        XCTAssertTrue(dbQueue.inDatabase { $0.isInsideTransaction })
        try dbQueue.inDatabase { db in try db.commit() }
        XCTAssertEqual(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") }, 1)
    }

    func testReleaseMemoryKeepsTheDatabaseUsable() throws {
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1)") }
        dbQueue.releaseMemory()
        XCTAssertEqual(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT a FROM t") }, 1)
        var config = keyedConfiguration(passphrase: "pool")
        config.maximumReaderCount = 2
        let dbPool = try DatabasePool(path: path("pool.db"), configuration: config)
        try dbPool.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (2)") }
        XCTAssertEqual(try dbPool.read { try Int.fetchOne($0, sql: "SELECT a FROM t") }, 2)
        dbPool.releaseMemory()
        dbPool.releaseMemoryEventually()
        XCTAssertEqual(try dbPool.read { try Int.fetchOne($0, sql: "SELECT a FROM t") }, 2, "a reader opens again, keyed")
    }

    func testEraseAndVacuumThroughTheWriter() throws {
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (a); CREATE INDEX t_a ON t(a); CREATE VIEW v AS SELECT a FROM t; INSERT INTO t VALUES (1)")
        }
        try dbQueue.vacuum()
        try dbQueue.erase()
        XCTAssertEqual(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM sqlite_master") }, 0)
        if Database.sqliteLibVersionNumber >= 3_027_000 {
            try dbQueue.vacuum(into: path("copy.db"))
            XCTAssertFalse(Database.hasPlaintextHeader(path: path("copy.db")), "an encrypted copy")
        } else {
            XCTAssertThrowsError(try dbQueue.vacuum(into: path("copy.db")), "VACUUM INTO needs SQLite 3.27")
            XCTAssertFalse(FileManager.default.fileExists(atPath: path("copy.db")))
        }
        try dbQueue.close()
        XCTAssertNil(try fileBytes(path("db.sqlite")).range(of: Data("SQLite format 3".utf8)), "still encrypted")
    }

    func testAsyncEraseAndVacuum() async throws {
        let dbPool = try DatabasePool(path: path("pool.db"), configuration: keyedConfiguration(passphrase: "pool"))
        try await dbPool.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1)") }
        try await dbPool.vacuum()
        try await dbPool.erase()
        let count = try await dbPool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM sqlite_master") }
        XCTAssertEqual(count, 0)
    }

    /// Type-erased readers and writers forward to what they wrap, pools
    /// and their observations included.
    func testAnyDatabaseReaderAndWriter() throws {
        let dbPool = try DatabasePool(path: path("any.db"), configuration: keyedConfiguration(passphrase: "any"))
        let writer = AnyDatabaseWriter(dbPool)
        try writer.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1)") }
        XCTAssertEqual(writer.path, dbPool.path)
        let reader = AnyDatabaseReader(writer)
        XCTAssertEqual(try reader.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") }, 1)
        let values = LockedValues()
        let changed = expectation(description: "2 rows observed")
        let cancellable = ValueObservation.tracking { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") ?? 0 }
            // A serial queue: a concurrent one may run the initial value's
            // delivery after the change's, and `last` would then be 1.
            .start(in: reader, scheduling: .async(onQueue: DispatchQueue(label: "any-reader"))) { _ in } onChange: { count in
                values.append(count)
                if count == 2 { changed.fulfill() }
            }
        try writer.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        wait(for: [changed], timeout: 10)
        cancellable.cancel()
        XCTAssertEqual(values.all.last, 2)
        try writer.close()
    }

    func testWriteWithoutTransactionRethrows() throws {
        let dbQueue = try DatabaseQueue()
        let count = dbQueue.writeWithoutTransaction { _ in 42 }
        XCTAssertEqual(count, 42)
        XCTAssertEqual(dbQueue.inDatabase { _ in "no try" }, "no try")
        try dbQueue.close()
        XCTAssertThrowsError(try dbQueue.writeWithoutTransaction { db in try db.execute(sql: "SELECT 1") })
        XCTAssertThrowsError(try dbQueue.unsafeReentrantWrite { db in try db.execute(sql: "SELECT 1") })
    }

    func testInMemoryDatabase() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1)") }
        XCTAssertEqual(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT a FROM t") }, 1)
        XCTAssertEqual(dbQueue.path, ":memory:")
    }

    func testClosedQueueThrows() throws {
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.close()
        XCTAssertThrowsError(try dbQueue.read { _ in 1 }) { error in
            XCTAssertTrue("\(error)".contains("Connection is closed"), "\(error)")
        }
    }

    func testReadonlyConfiguration() throws {
        try makeEncryptedQueue().write { db in try db.execute(sql: "CREATE TABLE t (a)") }
        var config = keyedConfiguration(passphrase: "secret")
        config.readonly = true
        let dbQueue = try DatabaseQueue(path: path("db.sqlite"), configuration: config)
        XCTAssertThrowsError(try dbQueue.write { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }) { error in
            XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_READONLY)
        }
        // A write access that writes nothing succeeds, as in GRDB: its
        // transaction is deferred on a read-only connection.
        XCTAssertEqual(try dbQueue.write { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }, 0)
        XCTAssertThrowsError(try DatabaseQueue(path: path("missing.sqlite"), configuration: config)) { error in
            XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_CANTOPEN)
            XCTAssertTrue("\(error)".contains("missing.sqlite"), "\(error)")
        }
    }

    func testStatementArgumentLimitAndExtendedCodes() throws {
        let dbQueue = try makeEncryptedQueue()
        let limit = try dbQueue.read { db in db.maximumStatementArgumentCount }
        // SQLITE_MAX_VARIABLE_NUMBER: 999 up to SQLite 3.32, 32766 since.
        XCTAssertEqual(limit, Database.sqliteLibVersionNumber >= 3_032_000 ? 32766 : 999)
        // One argument more than the limit is refused by SQLite itself.
        let placeholders = Array(repeating: "?", count: limit + 1).joined(separator: ",")
        XCTAssertThrowsError(try dbQueue.read { db in
            try Row.fetchAll(db, sql: "SELECT \(placeholders)", arguments: StatementArguments(Array(repeating: 1, count: limit + 1)))
        })
        XCTAssertEqual(DatabaseError.SQLITE_CONSTRAINT_DATATYPE.rawValue, 3091)
    }

    func testForeignKeysAreEnforcedByDefault() throws {
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE p (id INTEGER PRIMARY KEY); CREATE TABLE c (pid REFERENCES p(id))")
        }
        XCTAssertThrowsError(try dbQueue.write { db in try db.execute(sql: "INSERT INTO c VALUES (1)") }) { error in
            XCTAssertEqual((error as? DatabaseError)?.extendedResultCode, .SQLITE_CONSTRAINT_FOREIGNKEY)
        }
        var config = keyedConfiguration(passphrase: "secret")
        config.foreignKeysEnabled = false
        let unchecked = try DatabaseQueue(path: path("db.sqlite"), configuration: config)
        try unchecked.write { db in try db.execute(sql: "INSERT INTO c VALUES (1)") }
    }

    func testBusyTimeoutWaitsForAnotherConnection() throws {
        var config = keyedConfiguration(passphrase: "secret")
        config.busyMode = .timeout(5)
        let first = try DatabaseQueue(path: path("db.sqlite"), configuration: config)
        let second = try DatabaseQueue(path: path("db.sqlite"), configuration: config)
        try first.write { db in try db.execute(sql: "CREATE TABLE t (a)") }
        let released = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            try? first.write { db in
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                released.signal()
                Thread.sleep(forTimeInterval: 0.2)
            }
            done.signal()
        }
        released.wait()
        try second.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        done.wait()
        XCTAssertEqual(try second.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") }, 2)

        var impatient = keyedConfiguration(passphrase: "secret")
        impatient.busyMode = .immediateError
        let third = try DatabaseQueue(path: path("db.sqlite"), configuration: impatient)
        try first.inDatabase { db in
            try db.beginTransaction(.immediate)
            XCTAssertThrowsError(try third.write { db in try db.execute(sql: "INSERT INTO t VALUES (3)") }) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_BUSY)
            }
            try db.rollback()
        }
    }

    func testConfigurationLabelAndPrepareDatabaseRunOnOpen() throws {
        var config = keyedConfiguration(passphrase: "secret")
        config.label = "main"
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA user_version = 7") }
        let dbQueue = try DatabaseQueue(path: path("db.sqlite"), configuration: config)
        try dbQueue.read { db in
            XCTAssertEqual(db.description, "main")
            XCTAssertEqual(try Int.fetchOne(db, sql: "PRAGMA user_version"), 7)
        }
    }

    /// A queue's read is a transaction, as GRDB's: two fetches in it see the
    /// same database, whatever another connection commits between them.
    func testReadIsIsolatedFromOtherConnections() throws {
        var config = keyedConfiguration(passphrase: "secret")
        config.journalMode = .wal
        let dbQueue = try DatabaseQueue(path: path("isolated.db"), configuration: config)
        let other = try DatabaseQueue(path: path("isolated.db"), configuration: config)
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1)") }
        let counts = try dbQueue.read { db -> [Int] in
            XCTAssertTrue(db.isInsideTransaction)
            let first = try Int.fetchOne(db, sql: "SELECT count(*) FROM t")!
            try other.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
            return [first, try Int.fetchOne(db, sql: "SELECT count(*) FROM t")!]
        }
        XCTAssertEqual(counts, [1, 1], "the read saw another connection's commit")
        XCTAssertEqual(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") }, 2)
        // The read's transaction is not a write: the other connection's
        // writes go on meanwhile, and the read still forbids its own.
        try dbQueue.read { db in
            try other.write { db in try db.execute(sql: "INSERT INTO t VALUES (3)") }
            XCTAssertThrowsError(try db.execute(sql: "INSERT INTO t VALUES (4)"))
        }
        XCTAssertEqual(try other.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") }, 3)
    }

    func testAsyncReadIsATransaction() async throws {
        let dbQueue = try makeEncryptedQueue()
        let isInsideTransaction = try await dbQueue.read { db in db.isInsideTransaction }
        XCTAssertTrue(isInsideTransaction)
    }
}

/// Collects errors from concurrent closures.
final class ErrorBox: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [any Error] = []
    func append(_ error: any Error) { lock.withLock { errors.append(error) } }
    var isEmpty: Bool { lock.withLock { errors.isEmpty } }
}

/// Values appended from observation callbacks.
private final class LockedValues: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int] = []
    func append(_ value: Int) { lock.withLock { values.append(value) } }
    var all: [Int] { lock.withLock { values } }
}
