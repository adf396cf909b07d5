import Foundation
import SecureStore
import XCTest

final class StatementTests: SecureStoreTestCase {
    private var dbQueue: DatabaseQueue!

    override func setUpWithError() throws {
        try super.setUpWithError()
        dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, score INTEGER)")
        }
    }

    func testPositionalAndNamedArguments() throws {
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO player (name, score) VALUES (?, ?)", arguments: ["Arthur", 100])
            try db.execute(sql: "INSERT INTO player (name, score) VALUES (:name, :score)", arguments: ["name": "Barbara", "score": 200])
            try db.execute(sql: "INSERT INTO player (name, score) VALUES ($name, @score)", arguments: ["name": "Craig", "score": nil])
            try db.execute(sql: "UPDATE player SET score = :s WHERE score = :s OR name = ?", arguments: StatementArguments(["Craig"]) + ["s": 5])
            XCTAssertEqual(try Row.fetchAll(db, sql: "SELECT name, score FROM player ORDER BY id"),
                           [["name": "Arthur", "score": 100], ["name": "Barbara", "score": 200], ["name": "Craig", "score": 5]])
        }
    }

    func testHostileStringsAreBoundNotSpliced() throws {
        let hostile = "Robert'); DROP TABLE player; --"
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO player (name) VALUES (?)", arguments: [hostile])
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT name FROM player WHERE name = ?", arguments: [hostile]), hostile)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'player'"), 1)
        }
    }

    func testWrongArgumentsAreErrors() throws {
        try dbQueue.write { db in
            XCTAssertThrowsError(try db.execute(sql: "INSERT INTO player (name) VALUES (?)", arguments: ["a", "b"])) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_MISUSE)
                XCTAssertTrue("\(error)".contains("wrong number of statement arguments: 2"), "\(error)")
            }
            XCTAssertThrowsError(try db.execute(sql: "INSERT INTO player (name, score) VALUES (?, ?)", arguments: ["a"]))
            XCTAssertThrowsError(try db.execute(sql: "INSERT INTO player (name) VALUES (:name)", arguments: ["nom": "a"])) { error in
                XCTAssertTrue("\(error)".contains("missing statement argument: name"), "\(error)")
            }
            let statement = try db.makeStatement(sql: "SELECT ?, :b")
            XCTAssertNoThrow(try statement.validateArguments([1, 2]))
            XCTAssertNoThrow(try statement.validateArguments(StatementArguments([1]) + ["b": 2]))
            XCTAssertThrowsError(try statement.validateArguments([1, 2, 3]))
        }
    }

    func testSeveralStatementsShareArgumentsInOrder() throws {
        try dbQueue.write { db in
            try db.execute(sql: """
                INSERT INTO player (name) VALUES (?);
                -- a comment between statements
                INSERT INTO player (name, score) VALUES (?, ?);
                """, arguments: ["one", "two", 2])
            XCTAssertEqual(try String.fetchAll(db, sql: "SELECT name FROM player ORDER BY id"), ["one", "two"])
        }
    }

    func testMakeStatementRefusesSeveralStatements() throws {
        try dbQueue.write { db in
            XCTAssertThrowsError(try db.makeStatement(sql: "SELECT 1; SELECT 2")) { error in
                XCTAssertTrue("\(error)".contains("Multiple statements found"), "\(error)")
            }
            XCTAssertNoThrow(try db.makeStatement(sql: "SELECT 1; -- trailing comment\n"))
            XCTAssertThrowsError(try db.makeStatement(sql: "  "))
            XCTAssertThrowsError(try db.makeStatement(sql: "SELEKT 1")) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_ERROR)
                XCTAssertEqual((error as? DatabaseError)?.sql, "SELEKT 1")
            }
        }
    }

    func testPreparedStatementBindStepReset() throws {
        try dbQueue.write { db in
            let insert = try db.makeStatement(sql: "INSERT INTO player (name, score) VALUES (?, ?)")
            for (index, name) in ["a", "b", "c"].enumerated() {
                try insert.execute(arguments: [name, index])
            }
            let select = try db.makeStatement(sql: "SELECT name FROM player WHERE score >= ? ORDER BY score")
            XCTAssertEqual(select.columnNames, ["name"])
            XCTAssertEqual(select.columnCount, 1)
            XCTAssertTrue(select.isReadonly)
            XCTAssertFalse(insert.isReadonly)
            try select.setArguments([1])
            XCTAssertTrue(try select.step())
            XCTAssertEqual(try Row.fetchOne(select), ["name": "b"])
            select.reset()
            XCTAssertEqual(try String.fetchAll(select), ["b", "c"])
            XCTAssertEqual(try String.fetchAll(select, arguments: [2]), ["c"])
            XCTAssertEqual(select.arguments, [2])
        }
    }

    /// Text and blobs are bound without a copy while `execute` runs; any
    /// later use of the statement must see the same values again.
    func testArgumentsOutliveInPlaceBinding() throws {
        let text = String(repeating: "long text, not a small string ", count: 8)
        let blob = Data((0..<200).map { UInt8($0) })
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE pair (t TEXT, b BLOB)")
            let insert = try db.makeStatement(sql: "INSERT INTO pair (t, b) VALUES (?, ?)")
            try insert.execute(arguments: [text, blob])
            try insert.execute() // the previous arguments, again
            let rows = try Row.fetchAll(db, sql: "SELECT t, b FROM pair")
            XCTAssertEqual(rows.count, 2)
            for row in rows {
                XCTAssertEqual(row["t"] as String, text)
                XCTAssertEqual(row["b"] as Data, blob)
            }
            let select = try db.makeStatement(sql: "SELECT ? || '!'")
            try select.execute(arguments: [text])
            XCTAssertEqual(try String.fetchOne(select), text + "!")
            XCTAssertTrue(try select.step())
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT ?", arguments: [text]), text)
            // Empty text and blobs are values, not NULL.
            try insert.execute(arguments: ["", Data()])
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM pair WHERE t = '' AND b = x''"), 1)
        }
    }

    func testCachedStatementsAreReused() throws {
        try dbQueue.write { db in
            let first = try db.cachedStatement(sql: "SELECT name FROM player")
            let second = try db.cachedStatement(sql: "SELECT name FROM player")
            XCTAssertTrue(first === second)
            XCTAssertFalse(try db.makeStatement(sql: "SELECT name FROM player") === first)
        }
    }

    func testNestedFetchesOfTheSameSQLDoNotInterfere() throws {
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO player (name) VALUES ('a'), ('b')")
            var pairs: [String] = []
            let outer = try String.fetchCursor(db, sql: "SELECT name FROM player ORDER BY name")
            while let name = try outer.next() {
                let all = try String.fetchAll(db, sql: "SELECT name FROM player ORDER BY name")
                pairs.append(name + all.joined())
            }
            XCTAssertEqual(pairs, ["aab", "bab"])
        }
    }

    func testConnectionFacts() throws {
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO player (name) VALUES ('a'), ('b')")
            XCTAssertEqual(db.changesCount, 2)
            XCTAssertEqual(db.lastInsertedRowID, 2)
            try db.execute(sql: "UPDATE player SET score = 1")
            XCTAssertEqual(db.changesCount, 2)
            XCTAssertGreaterThanOrEqual(db.totalChangesCount, 4)
        }
    }

    /// A literal without arguments leaves its parameters to the fetch or
    /// execute that follows, as in GRDB.
    func testLiteralStatementsTakeTheirArgumentsLater() throws {
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO player (name) VALUES ('Arthur'), ('Barbara')")
            let select = try db.makeStatement(literal: "SELECT name FROM player WHERE name = ?")
            XCTAssertEqual(try String.fetchAll(select, arguments: ["Arthur"]), ["Arthur"])
            let cached = try db.cachedStatement(literal: "SELECT name FROM player WHERE name = :name")
            XCTAssertEqual(try String.fetchAll(cached, arguments: ["name": "Barbara"]), ["Barbara"])
            let insert = try db.makeStatement(literal: "INSERT INTO player (name) VALUES (?)")
            try insert.execute(arguments: ["Charles"])
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM player"), 3)
            // A literal with arguments binds them, and checks them at once.
            let name = "Arthur"
            XCTAssertEqual(try String.fetchAll(db.makeStatement(literal: "SELECT name FROM player WHERE name = \(name)")), ["Arthur"])
            XCTAssertThrowsError(try db.makeStatement(literal: "SELECT \(1), \(2) + ?"))
        }
    }

    /// The errors of a multi-statement execute count arguments as GRDB's:
    /// too few names what the failing statement had left; too many, every
    /// statement having run, names no SQL.
    func testMultiStatementArgumentErrorsCountAsGRDB() throws {
        try dbQueue.write { db in
            let twoInserts = "INSERT INTO player (name) VALUES (?); INSERT INTO player (name) VALUES (?);"
            XCTAssertThrowsError(try db.execute(sql: twoInserts, arguments: ["a"])) { error in
                let error = error as? DatabaseError
                XCTAssertEqual(error?.resultCode, .SQLITE_MISUSE)
                XCTAssertEqual(error?.message, "wrong number of statement arguments: 0")
                XCTAssertEqual(error?.sql, "INSERT INTO player (name) VALUES (?)")
            }
            XCTAssertThrowsError(try db.execute(sql: twoInserts, arguments: ["b", "c", "d"])) { error in
                XCTAssertEqual((error as? DatabaseError)?.message, "wrong number of statement arguments: 3")
                XCTAssertEqual("\(error)", "SQLite error 21: wrong number of statement arguments: 3")
            }
            XCTAssertEqual(try String.fetchAll(db, sql: "SELECT name FROM player ORDER BY id"), ["a", "b", "c"])
            XCTAssertThrowsError(try db.makeStatement(sql: "SELECT 1; SELECT 2")) { error in
                XCTAssertEqual((error as? DatabaseError)?.message, """
                    Multiple statements found. To execute multiple statements, \
                    use Database.execute(sql:) or Database.allStatements(sql:) instead.
                    """)
            }
        }
    }
}
