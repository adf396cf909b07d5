import Foundation
import SecureStore
import TestSupport
import XCTest

final class RowTests: SecureStoreTestCase {
    func testSubscriptsByIndexAndCaseInsensitiveName() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.read { db in
            let row = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT 1 AS id, 'Arthur' AS Name, NULL AS score, 2 AS ID"))
            XCTAssertEqual(row.count, 4)
            XCTAssertEqual(row.columnNames, ["id", "Name", "score", "ID"])
            XCTAssertEqual(row[0] as Int, 1)
            XCTAssertEqual(row["name"] as String, "Arthur")
            XCTAssertEqual(row["NAME"] as String?, "Arthur")
            XCTAssertNil(row["score"] as Int?)
            XCTAssertNil(row["missing"] as Int?)
            XCTAssertEqual(row["ID"] as Int, 1, "the leftmost column wins")
            XCTAssertEqual(row[3] as Int, 2)
            XCTAssertEqual(row["id"] as? Int64, 1)
            XCTAssertNil(row["score"])
            XCTAssertTrue(row.hasColumn("SCORE"))
            XCTAssertFalse(row.hasColumn("missing"))
            XCTAssertTrue(row.hasNull(atIndex: 2))
            XCTAssertThrowsError(try row.decode(Int.self, forColumn: "score"))
            XCTAssertThrowsError(try row.decode(Int.self, forColumn: "missing")) { error in
                XCTAssertTrue("\(error)".contains("no column named \"missing\""), "\(error)")
            }
            XCTAssertThrowsError(try row.decode(Int.self, atIndex: 9))
            XCTAssertEqual(row.description, "[id:1 Name:\"Arthur\" score:NULL ID:2]")
        }
    }

    func testRowsFromCursorsAreReusedAndCopiesAreStable() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.read { db in
            let cursor = try Row.fetchCursor(db, sql: "SELECT 1 AS n UNION ALL SELECT 2")
            let first = try XCTUnwrap(cursor.next())
            let copy = first.copy()
            let second = try XCTUnwrap(cursor.next())
            XCTAssertTrue(first === second)
            XCTAssertEqual(copy["n"] as Int, 1)
            XCTAssertEqual(second["n"] as Int, 2)
            XCTAssertNil(try cursor.next())
            XCTAssertNil(try cursor.next())
        }
    }

    /// `Array(cursor)` of an empty cursor on many threads at once: the
    /// empty array's storage is one global, which must not be written
    /// (ThreadSanitizer reported it from `Row.fetchAll` of empty results in
    /// concurrent migrations; this test fails under `--sanitize=thread`
    /// without the fix).
    func testEmptyArraysFromCursorsOnManyThreadsAtOnce() throws {
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<500 {
                let rows = (try? Array(AnyCursor([Row]()))) ?? [Row()]
                if !rows.isEmpty { failures.withLock { $0 += 1 } }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, 0)
        let dbQueue = try DatabaseQueue()
        XCTAssertEqual(try dbQueue.read { db in try Row.fetchAll(db, sql: "SELECT 1 WHERE 0") }, [])
    }

    func testDictionaryLiteralsAndEquality() {
        let row: Row = ["a": 1, "b": "x", "c": nil]
        XCTAssertEqual(row, ["a": 1, "b": "x", "c": nil])
        XCTAssertNotEqual(row, ["b": "x", "a": 1, "c": nil], "column order matters")
        XCTAssertEqual(Array(row.map(\.0)), ["a", "b", "c"])
        XCTAssertEqual(Row(["k": 2]), ["k": 2])
    }

    /// `Array(cursor)` iterates through the cursor's `forEach`, as GRDB's
    /// does, so that a cursor which implements `forEach` apart from
    /// `next()` gives what its `forEach` yields. Its `next()` here yields
    /// nothing, so reading from it gives an empty array.
    func testArrayOfACursorIteratesItsForEach() throws {
        final class PushCursor: Cursor {
            private(set) var nextCalls = 0
            func next() -> Int? {
                nextCalls += 1
                return nil
            }
            func forEach(_ body: (Int) throws -> Void) throws {
                for element in [3, 1, 2] { try body(element) }
            }
        }
        let cursor = PushCursor()
        XCTAssertEqual(try Array(cursor), [3, 1, 2])
        XCTAssertEqual(cursor.nextCalls, 0)
        // The library's own fetches still read their cursors' elements as
        // `forEach` yields them.
        let dbQueue = try DatabaseQueue()
        try dbQueue.read { db in
            XCTAssertEqual(try Int.fetchAll(db, sql: "SELECT 3 UNION ALL SELECT 1 UNION ALL SELECT 2"), [3, 1, 2])
            XCTAssertEqual(try Array(Int.fetchCursor(db, sql: "SELECT 3 UNION ALL SELECT 1")), [3, 1])
        }
    }

    func testCursorOperations() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.read { db in
            let sql = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10) SELECT i FROM n"
            XCTAssertEqual(try Array(Int.fetchCursor(db, sql: sql).filter { $0 % 2 == 0 }.map { $0 * 10 }), [20, 40, 60, 80, 100])
            XCTAssertEqual(try Int.fetchCursor(db, sql: sql).reduce(0, +), 55)
            XCTAssertEqual(try Int.fetchCursor(db, sql: sql).first { $0 > 3 }, 4)
            XCTAssertTrue(try Int.fetchCursor(db, sql: sql).contains(7))
            XCTAssertFalse(try Int.fetchCursor(db, sql: sql).contains(70))
            XCTAssertEqual(try Array(Int.fetchCursor(db, sql: sql).prefix(3)), [1, 2, 3])
            XCTAssertEqual(try Array(Int.fetchCursor(db, sql: sql).compactMap { $0 > 8 ? String($0) : nil }), ["9", "10"])
            var seen: [Int] = []
            try Int.fetchCursor(db, sql: sql).forEach { seen.append($0) }
            XCTAssertEqual(seen.count, 10)
            XCTAssertEqual(try Set(Int.fetchCursor(db, sql: sql)).count, 10)
            XCTAssertEqual(try Dictionary(grouping: Int.fetchCursor(db, sql: sql), by: { $0 % 2 })[0]?.count, 5)
            XCTAssertTrue(try Int.fetchCursor(db, sql: sql).allSatisfy { $0 > 0 })
            XCTAssertEqual(try Array(AnyCursor(Int.fetchCursor(db, sql: sql))).count, 10)
        }
    }

    func testAbandonedCursorReleasesItsStatement() throws {
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1), (2)")
        }
        try dbQueue.read { db in
            let cursor = try Row.fetchCursor(db, sql: "SELECT a FROM t")
            _ = try cursor.next()
        }
        // A statement still stepping would keep a read lock and block this.
        try dbQueue.write { db in try db.execute(sql: "DROP TABLE t") }
    }

    /// Copied rows share chunks of values (1, 2, 4 ... 256 rows each): rows
    /// kept from a large fetch, after the others are gone, still read their
    /// own values, and so do records decoded from them.
    func testRowsKeptFromALargeFetchKeepTheirValues() throws {
        struct Item: Decodable, FetchableRecord { var id: Int64; var name: String; var score: Double? }
        let dbQueue = try makeEncryptedQueue()
        let kept: [Row] = try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, score REAL)")
            for id in 1...1_000 {
                try db.execute(sql: "INSERT INTO item VALUES (?, ?, ?)",
                               arguments: [id, "item number \(id) with a long name", id % 3 == 0 ? nil : Double(id) / 2])
            }
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM item ORDER BY id")
            return stride(from: 0, to: rows.count, by: 97).map { rows[$0] }
        }
        XCTAssertEqual(kept.count, 11)
        for row in kept {
            let id: Int64 = row["id"]
            XCTAssertEqual(row["name"] as String, "item number \(id) with a long name")
            XCTAssertEqual(row["score"] as Double?, id % 3 == 0 ? nil : Double(id) / 2)
            let item = try Item(row: row)
            XCTAssertEqual(item.id, id)
            XCTAssertEqual(item.name, "item number \(id) with a long name")
            XCTAssertEqual(row.copy(), row)
        }
        XCTAssertEqual(Row().count, 0)
        XCTAssertEqual(Row(["a": 1]).databaseValues, [1.databaseValue])
    }
}
