import Foundation
import SecureStore
import XCTest

/// Snapshots of an encrypted pool, and reentrant reads of a pool.
final class DatabaseSnapshotTests: SecureStoreTestCase {
    private func makePool() throws -> DatabasePool {
        let dbPool = try DatabasePool(path: path("pool.sqlite"), configuration: keyedConfiguration(passphrase: "secret"))
        try dbPool.write { db in
            try db.execute(sql: "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2)")
        }
        return dbPool
    }

    private func count(_ reader: some DatabaseReader) throws -> Int? {
        try reader.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }
    }

    @MainActor func testASnapshotKeepsSeeingTheDatabaseAsItWasWhenMade() throws {
        let dbPool = try makePool()
        let snapshot = try dbPool.makeSnapshot()
        try dbPool.write { db in try db.execute(sql: "INSERT INTO t VALUES (3)") }
        XCTAssertEqual(try count(snapshot), 2)
        XCTAssertEqual(try count(dbPool), 3)
        try dbPool.write { db in try db.execute(sql: "DELETE FROM t") }
        XCTAssertEqual(try count(snapshot), 2)
        // A second snapshot sees the last commit.
        XCTAssertEqual(try count(dbPool.makeSnapshot()), 0)
        // Snapshots do not write.
        XCTAssertThrowsError(try snapshot.read { db in try db.execute(sql: "INSERT INTO t VALUES (4)") })
        // An observation of a snapshot delivers its one value.
        let values = ValuesBox()
        let cancellable = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }
            .start(in: snapshot, scheduling: .immediate, onError: { XCTFail("\($0)") }, onChange: { values.append($0) })
        XCTAssertEqual(values.all, [2])
        cancellable.cancel()
        try snapshot.close()
        XCTAssertThrowsError(try count(snapshot))
        // The pool is not affected.
        XCTAssertEqual(try count(dbPool), 0)
    }

    func testAsyncReadsOfASnapshot() async throws {
        let dbPool = try makePool()
        let snapshot = try dbPool.makeSnapshot()
        try await dbPool.write { db in try db.execute(sql: "INSERT INTO t VALUES (3)") }
        let read = try await snapshot.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }
        let unsafeRead = try await snapshot.unsafeRead { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }
        XCTAssertEqual(read, 2)
        XCTAssertEqual(unsafeRead, 2)
    }

    func testReentrantReadsOfAPoolRunOnTheConnectionOfTheAccess() throws {
        let dbPool = try makePool()
        try dbPool.write { db1 in
            try db1.execute(sql: "INSERT INTO t VALUES (3)")
            try dbPool.unsafeReentrantRead { db2 in
                // The writer's connection: it sees the uncommitted row.
                XCTAssertTrue(db1 === db2)
                XCTAssertEqual(try Int.fetchOne(db2, sql: "SELECT count(*) FROM t"), 3)
            }
        }
        try dbPool.read { db1 in
            try dbPool.unsafeReentrantRead { db2 in
                try dbPool.unsafeReentrantRead { db3 in
                    XCTAssertTrue(db1 === db2)
                    XCTAssertTrue(db2 === db3)
                }
            }
        }
    }

    /// GRDB's `asyncConcurrentRead`: called from a write access, the read
    /// sees the database as it was when the call returned, in a transaction
    /// of its own, while the writer goes on.
    func testAsyncConcurrentReadSeesTheDatabaseAsOfTheCall() throws {
        let dbPool = try makePool()
        let seen = ValuesBox()
        let done = expectation(description: "read")
        let readerMayGo = DispatchSemaphore(value: 0)
        try dbPool.writeWithoutTransaction { db in
            try db.execute(sql: "INSERT INTO t VALUES (3)")
            dbPool.asyncConcurrentRead { dbResult in
                readerMayGo.wait()
                do {
                    let db = try dbResult.get()
                    XCTAssertTrue(db.isInsideTransaction)
                    seen.append(try Int.fetchOne(db, sql: "SELECT count(*) FROM t"))
                } catch {
                    XCTFail("\(error)")
                }
                done.fulfill()
            }
            try db.execute(sql: "DELETE FROM t")
            readerMayGo.signal()
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(seen.all, [3])
        XCTAssertEqual(try count(dbPool), 0)
    }

    private final class ValuesBox: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [Int?] = []
        func append(_ value: Int?) { lock.withLock { values.append(value) } }
        var all: [Int?] { lock.withLock { values } }
    }
}
