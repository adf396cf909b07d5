import Foundation
import SecureStore
import TestSupport
import XCTest

final class TransactionTests: SecureStoreTestCase {
    private struct Boom: Error {}
    private var dbQueue: DatabaseQueue!

    override func setUpWithError() throws {
        try super.setUpWithError()
        dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (a INTEGER)") }
    }

    private func count() throws -> Int {
        try dbQueue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") ?? -1 }
    }

    /// One date per transaction, a new one outside: commit, rollback, and a
    /// rollback SQLite makes on its own (ON CONFLICT ROLLBACK).
    func testTransactionDateIsTheSameWithinATransaction() throws {
        let ticks = Locked(0)
        var config = keyedConfiguration(passphrase: "secret")
        config.transactionClock = .custom { _ in
            var tick = 0
            ticks.mutate { $0 += 1; tick = $0 }
            return Date(timeIntervalSince1970: Double(tick))
        }
        let dates = try DatabaseQueue(path: path("dates.sqlite"), configuration: config).writeWithoutTransaction { db -> [Double] in
            var seconds: [Double] = []
            func note() throws { seconds.append(try db.transactionDate.timeIntervalSince1970) }
            try note()
            try db.execute(sql: "BEGIN")
            try note(); try note()
            try db.execute(sql: "COMMIT")
            try note()
            try db.execute(sql: "BEGIN")
            try note()
            try db.execute(sql: "ROLLBACK")
            try db.execute(sql: "CREATE TABLE u (id INTEGER PRIMARY KEY ON CONFLICT ROLLBACK); BEGIN; INSERT INTO u VALUES (1)")
            try note(); try note()
            try? db.execute(sql: "INSERT INTO u VALUES (1)")   // fails, and SQLite rolls back
            XCTAssertFalse(db.isInsideTransaction)
            try note()
            return seconds
        }
        XCTAssertEqual(dates, [1, 2, 2, 3, 4, 5, 5, 6])
    }

    func testWriteCommitsOrRollsBackAsAWhole() throws {
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        XCTAssertThrowsError(try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO t VALUES (2)")
            throw Boom()
        })
        XCTAssertEqual(try count(), 1)
        let value = try dbQueue.write { db in
            XCTAssertTrue(db.isInsideTransaction)
            return 42
        }
        XCTAssertEqual(value, 42)
    }

    func testInTransactionCompletions() throws {
        try dbQueue.inDatabase { db in
            XCTAssertFalse(db.isInsideTransaction)
            try db.inTransaction {
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                return .rollback
            }
            try db.inTransaction(.exclusive) {
                try db.execute(sql: "INSERT INTO t VALUES (2)")
                return .commit
            }
            XCTAssertThrowsError(try db.inTransaction {
                try db.execute(sql: "INSERT INTO t VALUES (3)")
                throw Boom()
            })
            XCTAssertFalse(db.isInsideTransaction)
        }
        XCTAssertEqual(try dbQueue.read { try Int.fetchAll($0, sql: "SELECT a FROM t") }, [2])
    }

    func testSavepointsNest() throws {
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            try db.inSavepoint {
                try db.execute(sql: "INSERT INTO t VALUES (2)")
                return .rollback
            }
            XCTAssertThrowsError(try db.inSavepoint {
                try db.execute(sql: "INSERT INTO t VALUES (3)")
                throw Boom()
            })
            try db.inSavepoint {
                try db.execute(sql: "INSERT INTO t VALUES (4)")
                try db.inSavepoint {
                    try db.execute(sql: "INSERT INTO t VALUES (5)")
                    return .rollback
                }
                return .commit
            }
            XCTAssertTrue(db.isInsideTransaction)
        }
        XCTAssertEqual(try dbQueue.read { try Int.fetchAll($0, sql: "SELECT a FROM t ORDER BY a") }, [1, 4])
    }

    func testSavepointOutsideATransactionIsATransaction() throws {
        try dbQueue.inDatabase { db in
            try db.inSavepoint {
                XCTAssertTrue(db.isInsideTransaction)
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                return .commit
            }
            XCTAssertFalse(db.isInsideTransaction)
        }
        XCTAssertEqual(try count(), 1)
    }

    func testFailedCommitRollsBack() throws {
        try dbQueue.inDatabase { db in
            try db.execute(sql: """
                CREATE TABLE parent (id INTEGER PRIMARY KEY);
                CREATE TABLE child (parentId INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
                """)
            XCTAssertThrowsError(try db.inTransaction {
                try db.execute(sql: "INSERT INTO child VALUES (99)")
                return .commit
            }) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_CONSTRAINT)
            }
            XCTAssertFalse(db.isInsideTransaction)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM child"), 0)
        }
    }

    func testReadIsReadOnly() throws {
        XCTAssertThrowsError(try dbQueue.read { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }) { error in
            XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_READONLY)
        }
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        XCTAssertEqual(try count(), 1)
    }
}
