import Foundation
import SecureStore
import XCTest

/// SQL that SQLite added after 3.15.2, on an encrypted file: generated
/// columns (3.31), STRICT tables (3.37), WITHOUT ROWID tables, window
/// functions through SQL literals (3.25) and aggregate FILTER clauses
/// (3.30). Below the version a feature needs, SecureStore throws an error
/// that names it before anything reaches the database.
final class ModernSQLTests: TracedQueueTestCase {
    private func require(_ version: Int32, _ feature: String) throws {
        guard Database.sqliteLibVersionNumber >= version else {
            throw XCTSkip("\(feature) needs a newer SQLite than \(Database.sqliteLibVersion) (testOlderSQLiteNamesTheVersion covers it)")
        }
    }

    func testOlderSQLiteNamesTheVersion() throws {
        guard Database.sqliteLibVersionNumber < 3_037_000 else {
            throw XCTSkip("SQLite \(Database.sqliteLibVersion) has STRICT tables and generated columns: the other tests cover them")
        }
        try dbQueue.write { db in
            XCTAssertThrowsError(try db.create(table: "t", options: [.strict]) { $0.column("a", .integer) }) { error in
                XCTAssertTrue("\(error)".contains("STRICT tables needs SQLite 3.37 or later"), "\(error)")
            }
            XCTAssertThrowsError(try db.create(table: "t") { t in
                t.column("a", .integer)
                t.column("b", .integer).generatedAs(sql: "a * 2")
            }) { error in
                XCTAssertTrue("\(error)".contains("generated columns needs SQLite 3.31 or later"), "\(error)")
            }
            XCTAssertFalse(try db.tableExists("t"))
            XCTAssertThrowsError(try Int.fetchOne(db, Table("sqlite_master").select(max(Column("rootpage"), filter: Column("type") == "table")))) { error in
                XCTAssertTrue("\(error)".contains("FILTER clauses of aggregate functions needs SQLite 3.30"), "\(error)")
            }
        }
    }

    func testGeneratedColumnsAndStrictTables() throws {
        try require(3_037_000, "STRICT tables")
        try dbQueue.write { db in
            try db.create(table: "item", options: [.strict]) { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("price", .integer).notNull()
                t.column("quantity", .integer).notNull()
                t.column("total", .integer).generatedAs(Column("price") * Column("quantity"), .stored)
            }
            try db.execute(sql: "INSERT INTO item(price, quantity) VALUES (3, 4)")
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT total FROM item"), 12)
            // STRICT: a text that is not an integer is refused.
            XCTAssertThrowsError(try db.execute(sql: "INSERT INTO item(price, quantity) VALUES ('three', 4)")) { error in
                XCTAssertEqual((error as? DatabaseError)?.extendedResultCode, .SQLITE_CONSTRAINT_DATATYPE, "\(error)")
            }
        }
        XCTAssertTrue(traced.allStatements().contains("""
            CREATE TABLE "item" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "price" INTEGER NOT NULL, \
            "quantity" INTEGER NOT NULL, "total" INTEGER GENERATED ALWAYS AS ("price" * "quantity") STORED) STRICT
            """), traced.allStatements().joined(separator: "\n"))
    }

    func testWithoutRowIDTable() throws {
        try dbQueue.write { db in
            try db.create(table: "setting", options: [.withoutRowID]) { t in
                t.primaryKey("key", .text)
                t.column("value", .text)
            }
            try db.execute(sql: "INSERT INTO setting VALUES ('theme', 'dark')")
            XCTAssertThrowsError(try db.execute(sql: "SELECT rowid FROM setting"))
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'theme'"), "dark")
        }
    }

    func testWindowFunctionsThroughSQLLiteralsAndAggregateFilter() throws {
        try require(3_030_000, "window functions and FILTER")
        try dbQueue.write { db in
            try db.create(table: "score") { t in
                t.column("player", .text)
                t.column("points", .integer)
            }
            try db.execute(sql: "INSERT INTO score VALUES ('a', 10), ('b', 30), ('a', 20), ('b', 5)")
            let ranked = try Row.fetchAll(db, Table("score").select(
                Column("player"), Column("points"),
                SQL("RANK() OVER (PARTITION BY player ORDER BY points DESC)").sqlExpression.forKey("rank"))
                .order(Column("player"), Column("points").desc))
            XCTAssertEqual(ranked.map { [$0["player"] as String, "\($0["points"] as Int)", "\($0["rank"] as Int)"] },
                           [["a", "20", "1"], ["a", "10", "2"], ["b", "30", "1"], ["b", "5", "2"]])
            let big = try Int.fetchOne(db, Table("score").select(max(Column("points"), filter: Column("player") == "a")))
            XCTAssertEqual(big, 20)
        }
        XCTAssertTrue(traced.allStatements().contains("SELECT MAX(\"points\") FILTER (WHERE \"player\" = 'a') FROM \"score\""),
                      traced.allStatements().joined(separator: "\n"))
    }

    /// As GRDB: from SQLite 3.29, `"foo"` is an identifier only, unless
    /// `acceptsDoubleQuotedStringLiterals`; SQLite 3.15.2 always reads a
    /// double-quoted unknown identifier as a string.
    func testDoubleQuotedStringLiterals() throws {
        var accepting = keyedConfiguration(passphrase: "secret")
        accepting.acceptsDoubleQuotedStringLiterals = true
        XCTAssertEqual(try DatabaseQueue(path: path("accepting.db"), configuration: accepting)
            .read { try String.fetchOne($0, sql: #"SELECT "foo""#) }, "foo")
        let refusing = try makeEncryptedQueue("refusing.db")
        if Database.sqliteLibVersionNumber >= 3_029_000 {
            XCTAssertThrowsError(try refusing.read { try String.fetchOne($0, sql: #"SELECT "foo""#) }) { error in
                XCTAssertTrue("\(error)".contains("no such column: \"foo\""), "\(error)")
            }
        } else {
            XCTAssertEqual(try refusing.read { try String.fetchOne($0, sql: #"SELECT "foo""#) }, "foo")
        }
    }
}
