import Foundation
import SecureStore
import XCTest

/// `interrupt()` on encrypted queues and pools: a long statement started on
/// another thread throws SQLITE_INTERRUPT, and the connection works after.
final class InterruptTests: SecureStoreTestCase {
    /// A statement that runs for minutes unless interrupted.
    private static let longQuery = """
        WITH RECURSIVE c(x) AS (VALUES(1) UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000)
        SELECT count(*) FROM c
        """

    /// Runs `access` on another thread, calls `interrupt` until it ends,
    /// and returns the error it threw.
    private func interruptedError(interrupt: () -> Void, _ access: @escaping @Sendable (DispatchSemaphore) throws -> Void) -> (any Error)? {
        let started = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let outcome = InterruptOutcome()
        DispatchQueue.global().async {
            do { try access(started) } catch { outcome.error = error }
            finished.signal()
        }
        started.wait()
        // An interrupt reaches statements that are running: repeat it until
        // the statement that starts after the signal has stopped.
        let deadline = Date().addingTimeInterval(60)
        while finished.wait(timeout: .now() + .milliseconds(20)) == .timedOut {
            if Date() > deadline {
                XCTFail("the statement was not interrupted within 60 s")
                return nil
            }
            interrupt()
        }
        return outcome.error
    }

    func testInterruptStopsAReadOfAQueueAndTheQueueWorksAfter() throws {
        let dbQueue = try makeEncryptedQueue()
        let error = interruptedError(interrupt: dbQueue.interrupt) { started in
            try dbQueue.read { db in
                started.signal()
                _ = try Int.fetchOne(db, sql: Self.longQuery)
            }
        }
        let dbError = try XCTUnwrap(error as? DatabaseError, "\(String(describing: error))")
        XCTAssertEqual(dbError.resultCode, .SQLITE_INTERRUPT)
        XCTAssertTrue(dbError.isInterruptionError)
        XCTAssertEqual(try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT 1") }, 1)
    }

    func testAnInterruptedWriteIsRolledBack() throws {
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (x INTEGER)") }
        let error = interruptedError(interrupt: dbQueue.interrupt) { started in
            try dbQueue.write { db in
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                started.signal()
                try db.execute(sql: "INSERT INTO t " + Self.longQuery)
            }
        }
        XCTAssertTrue((error as? DatabaseError)?.isInterruptionError ?? false, "\(String(describing: error))")
        XCTAssertEqual(try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }, 0)
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        XCTAssertEqual(try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT x FROM t") }, 2)
    }

    func testInterruptStopsAReaderOfAPool() throws {
        let dbPool = try DatabasePool(path: path("pool.sqlite"), configuration: keyedConfiguration(passphrase: "secret"))
        try dbPool.write { db in try db.execute(sql: "CREATE TABLE t (x INTEGER)") }
        let error = interruptedError(interrupt: dbPool.interrupt) { started in
            try dbPool.read { db in
                started.signal()
                _ = try Int.fetchOne(db, sql: Self.longQuery)
            }
        }
        XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_INTERRUPT, "\(String(describing: error))")
        XCTAssertEqual(try dbPool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }, 0)
    }

    func testInterruptWithNothingRunningChangesNothing() throws {
        let dbQueue = try makeEncryptedQueue()
        dbQueue.interrupt()
        XCTAssertEqual(try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT 1") }, 1)
        try dbQueue.close()
        dbQueue.interrupt()   // a closed connection is never reached
    }

    /// SQLite's FTS5 bug (<https://sqlite.org/forum/forumpost/137c7662b3>,
    /// GRDB issue 1838): after an interrupt in a transaction that wrote to
    /// an FTS5 table, the connection stays interrupted and the rollback
    /// fails too, which would leave the transaction open (and stop the
    /// program at the end of the access). The rollback leaves that state
    /// and runs again.
    func testInterruptedWritesToAnFTS5TableRollBackAndTheConnectionWorksAfter() throws {
        let dbQueue = try makeEncryptedQueue()
        guard try dbQueue.read(FTS5.isAvailable(in:)) else {
            throw XCTSkip("SQLite \(Database.sqliteLibVersion) has no FTS5, where the bug lives")
        }
        try dbQueue.write { db in try db.execute(sql: "CREATE VIRTUAL TABLE documents USING fts5(content)") }
        // Interrupted, then rolled back by the caller.
        try dbQueue.inDatabase { db in
            try db.inTransaction {
                try db.execute(sql: "INSERT INTO documents(content) VALUES ('rolled back')")
                dbQueue.interrupt()
                return .rollback
            }
        }
        // Interrupted before the commit.
        do {
            try dbQueue.write { db in
                try db.execute(sql: "INSERT INTO documents(content) VALUES ('interrupted')")
                dbQueue.interrupt()
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_INTERRUPT {
            // The bug: the commit is interrupted too.
        }
        XCTAssertEqual(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM documents") }, 0)
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO documents(content) VALUES ('kept')") }
        XCTAssertEqual(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM documents") }, 1)
    }
}

private final class InterruptOutcome: @unchecked Sendable {
    var error: (any Error)?
}
