import Foundation
import SecureStore
import XCTest

/// Text and blob arguments are bound from the statement's own copies, or
/// from SQLite's when a binding outgrows the statement's buffer (the next
/// binding gets a larger one). These tests rebind one statement many times,
/// with values of growing sizes, and read every row back.
final class StatementBindingTests: SecureStoreTestCase {
    func testRebindingTextAndBlobsOfEverySize() throws {
        let dbQueue = try makeEncryptedQueue()
        // Sizes around the first buffer (64 bytes) and its doublings.
        let sizes = [0, 1, 15, 16, 63, 64, 65, 127, 200, 1000, 5000, 3, 0, 70_000, 10]
        let characters = Array("abcdéf€🔐xyz")
        func text(_ size: Int, _ seed: Int) -> String {
            String((0..<size).map { i in characters[(i + seed) % characters.count] })
        }
        func blob(_ size: Int, _ seed: Int) -> Data { Data((0..<size).map { UInt8(truncatingIfNeeded: $0 * 7 + seed) }) }
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT, b BLOB, c TEXT)")
            let insert = try db.makeStatement(sql: "INSERT INTO t (id, a, b, c) VALUES (?, ?, ?, ?)")
            for (id, size) in sizes.enumerated() {
                try insert.execute(arguments: [id, text(size, id), blob(size, id), text(size / 2, id + 1)])
            }
            // Named and positional values together, several texts.
            let named = try db.makeStatement(sql: "INSERT INTO t (id, a, b, c) VALUES (:id, ?, :b, ?)")
            try named.execute(arguments: StatementArguments([text(300, 1), text(2, 2)]) + ["id": 100, "b": blob(90, 3)])
        }
        try dbQueue.read { db in
            for (id, size) in sizes.enumerated() {
                let row = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT a, b, c, typeof(a), typeof(b) FROM t WHERE id = ?", arguments: [id]))
                XCTAssertEqual(row[0] as String, text(size, id), "row \(id)")
                XCTAssertEqual(row[1] as Data, blob(size, id), "row \(id)")
                XCTAssertEqual(row[2] as String, text(size / 2, id + 1), "row \(id)")
                XCTAssertEqual(row[3] as String, "text", "an empty string is text, not NULL")
                XCTAssertEqual(row[4] as String, "blob", "an empty blob is a blob, not NULL")
            }
            let row = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT a, b, c FROM t WHERE id = 100"))
            XCTAssertEqual(row[0] as String, text(300, 1))
            XCTAssertEqual(row[1] as Data, blob(90, 3))
            XCTAssertEqual(row[2] as String, text(2, 2))
        }
    }

    /// A bound text is read at every step of a cursor, and by a later
    /// execution without new arguments.
    func testBoundValuesStayValidWhileTheStatementRuns() throws {
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (name TEXT)")
            let insert = try db.makeStatement(sql: "INSERT INTO t (name) VALUES (?)")
            try insert.execute(arguments: [String(repeating: "long name ", count: 10)])
            try insert.execute()  // the same arguments again
            try insert.execute(arguments: ["short"])
            for _ in 0..<200 { try insert.execute() }
        }
        try dbQueue.read { db in
            let statement = try db.makeStatement(sql: "SELECT count(*) FROM t WHERE name = ?")
            XCTAssertEqual(try Int.fetchOne(statement, arguments: [String(repeating: "long name ", count: 10)]), 2)
            XCTAssertEqual(try Int.fetchOne(statement, arguments: ["short"]), 201)
            // Each step compares every row with the bound value.
            let cursor = try Row.fetchCursor(db, sql: "SELECT name FROM t WHERE name <> ? ORDER BY rowid", arguments: ["short"])
            var count = 0
            while let row = try cursor.next() {
                XCTAssertEqual(row[0] as String, String(repeating: "long name ", count: 10))
                count += 1
            }
            XCTAssertEqual(count, 2)
        }
    }

    /// After a failed step, the statement runs again with new arguments.
    func testRebindingAfterAFailedExecution() throws {
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (name TEXT UNIQUE)")
            let insert = try db.makeStatement(sql: "INSERT INTO t (name) VALUES (?)")
            try insert.execute(arguments: ["a"])
            XCTAssertThrowsError(try insert.execute(arguments: ["a"]))
            try insert.execute(arguments: ["b"])
            XCTAssertEqual(try String.fetchAll(db, sql: "SELECT name FROM t ORDER BY name"), ["a", "b"])
        }
    }

    /// An array literal of each length keeps its values in order, nil as
    /// NULL: up to six, the literal builds its values array as a literal of
    /// its own, one case per length; longer ones append.
    func testArrayLiteralsOfEveryLengthKeepTheirValuesInOrder() throws {
        let name: String? = "Arthur"
        let none: Int? = nil
        let literals: [StatementArguments] = [
            [],
            [1],
            [1, "two"],
            [1, "two", 3.5],
            [1, "two", 3.5, none],
            [1, "two", 3.5, none, name],
            [1, "two", 3.5, none, name, Data([6])],
            [1, "two", 3.5, none, name, Data([6]), 7],
            [1, "two", 3.5, none, name, Data([6]), 7, "eight"],
        ]
        let all: [DatabaseValue] = [
            1.databaseValue, "two".databaseValue, 3.5.databaseValue, .null,
            "Arthur".databaseValue, Data([6]).databaseValue, 7.databaseValue, "eight".databaseValue,
        ]
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.read { db in
            for (count, arguments) in literals.enumerated() {
                XCTAssertEqual(arguments.values, Array(all.prefix(count)), "literal of \(count)")
                XCTAssertTrue(arguments.namedValues.isEmpty)
                guard count > 0 else { continue }
                // Bound, each value comes back in its own column.
                let sql = "SELECT " + Array(repeating: "?", count: count).joined(separator: ", ")
                let row = try XCTUnwrap(Row.fetchOne(db, sql: sql, arguments: arguments))
                XCTAssertEqual(row.databaseValues, Array(all.prefix(count)), "literal of \(count), bound")
            }
        }
    }
}
