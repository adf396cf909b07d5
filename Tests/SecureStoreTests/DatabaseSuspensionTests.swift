import Foundation
import SecureStore
import TestSupport
import XCTest

/// Suspension through `Database.suspendNotification` and aborted
/// transactions, as GRDB 7.10 has them, on encrypted files.
final class DatabaseSuspensionTests: SecureStoreTestCase {
    private func suspendingConfiguration() -> Configuration {
        var config = keyedConfiguration(passphrase: "secret")
        config.observesSuspensionNotifications = true
        return config
    }

    private func post(_ name: Notification.Name) {
        NotificationCenter.default.post(name: name, object: nil)
    }

    override func tearDownWithError() throws {
        post(Database.resumeNotification)
        try super.tearDownWithError()
    }

    func testASuspendedQueueRefusesWritesUntilResumed() throws {
        let dbQueue = try DatabaseQueue(path: path("queue.sqlite"), configuration: suspendingConfiguration())
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (a)") }
        post(Database.suspendNotification)
        XCTAssertThrowsError(try dbQueue.write { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }) { error in
            let error = error as? DatabaseError
            XCTAssertEqual(error?.resultCode, .SQLITE_ABORT)
            XCTAssertEqual(error?.message, "Database is suspended")
        }
        // A rollback journal: even reads take a lock, and are refused.
        XCTAssertThrowsError(try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") })
        post(Database.resumeNotification)
        // The refused read left the connection writable (SQLite applies
        // `PRAGMA query_only` as it compiles it, before the refusal).
        XCTAssertEqual(try dbQueue.inDatabase { try Int.fetchOne($0, sql: "PRAGMA query_only") }, 0)
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        XCTAssertEqual(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") }, 1)
    }

    func testASuspendedPoolStillReads() throws {
        let dbPool = try DatabasePool(path: path("pool.sqlite"), configuration: suspendingConfiguration())
        try dbPool.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1)") }
        post(Database.suspendNotification)
        XCTAssertThrowsError(try dbPool.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }) { error in
            XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_ABORT, "\(error)")
        }
        XCTAssertEqual(try dbPool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") }, 1)
        post(Database.resumeNotification)
        try dbPool.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        XCTAssertEqual(try dbPool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") }, 2)
    }

    func testSuspensionInterruptsARunningWriteAndReleasesItsLock() throws {
        let dbQueue = try DatabaseQueue(path: path("queue.sqlite"), configuration: suspendingConfiguration())
        let started = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let firstCall = Locked(true)
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (a)")
            // Holds the first row of the write until the test has suspended.
            db.add(function: DatabaseFunction("hold", argumentCount: 1, pure: false) { values in
                if firstCall.value {
                    firstCall.value = false
                    started.signal()
                    _ = proceed.wait(timeout: .now() + 30)
                }
                return values[0]
            })
        }
        let outcome = Locked<String>("")
        let done = expectation(description: "write ended")
        DispatchQueue.global().async {
            do {
                try dbQueue.write { db in
                    try db.execute(sql: """
                        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
                        INSERT INTO t SELECT hold(i) FROM n
                        """)
                }
                outcome.value = "committed"
            } catch let error as DatabaseError {
                outcome.value = "\(error.resultCode)"
            } catch {
                outcome.value = "\(error)"
            }
            done.fulfill()
        }
        XCTAssertEqual(started.wait(timeout: .now() + 30), .success)
        post(Database.suspendNotification)
        proceed.signal()
        wait(for: [done], timeout: 30)
        XCTAssertEqual(outcome.value, "\(ResultCode.SQLITE_INTERRUPT)")
        // The lock is gone: another connection writes at once.
        let other = try DatabaseQueue(path: path("queue.sqlite"), configuration: keyedConfiguration(passphrase: "secret"))
        try other.write { db in try db.execute(sql: "INSERT INTO t VALUES (-1)") }
        XCTAssertEqual(try other.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") }, 1)
    }

    func testAQueueWithoutTheOptionIgnoresTheNotifications() throws {
        let dbQueue = try makeEncryptedQueue()
        post(Database.suspendNotification)
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1)") }
    }

    func testAnAbortedTransactionFailsTheRestOfItsBlock() throws {
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (a UNIQUE)") }
        XCTAssertThrowsError(try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            // SQLite rolls the whole transaction back.
            XCTAssertThrowsError(try db.execute(sql: "INSERT OR ROLLBACK INTO t VALUES (1)"))
            XCTAssertFalse(db.isInsideTransaction)
            XCTAssertThrowsError(try db.execute(sql: "INSERT INTO t VALUES (2)")) { error in
                let error = error as? DatabaseError
                XCTAssertEqual(error?.resultCode, .SQLITE_ABORT)
                XCTAssertEqual(error?.message, "Transaction was aborted")
                XCTAssertEqual(error?.sql, "INSERT INTO t VALUES (2)")
            }
        }) { error in
            // The end of the block says so too, not "cannot commit".
            XCTAssertEqual((error as? DatabaseError)?.message, "Transaction was aborted", "\(error)")
        }
        // Nothing of the block ran outside a transaction, and the queue works.
        XCTAssertEqual(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") }, 0)
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO t VALUES (3)") }
        XCTAssertEqual(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") }, 1)
    }
}
