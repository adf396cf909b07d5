import Foundation
import SecureStore
import XCTest

final class SchemaTests: TracedQueueTestCase {

    func testCreateTableSQL() throws {
        try dbQueue.inDatabase { db in
            try db.create(table: "test") { t in
                t.primaryKey("id", .integer)
                t.column("name", .text)
            }
            XCTAssertEqual(traced.last, "CREATE TABLE \"test\" (\"id\" INTEGER PRIMARY KEY, \"name\" TEXT)")
            try db.create(table: "test2", options: [.temporary, .ifNotExists, .withoutRowID]) { t in t.primaryKey("id", .integer) }
            XCTAssertEqual(traced.last, "CREATE TEMPORARY TABLE IF NOT EXISTS \"test2\" (\"id\" INTEGER PRIMARY KEY) WITHOUT ROWID")
            try db.create(table: "auto") { t in t.autoIncrementedPrimaryKey("id", onConflict: .fail) }
            XCTAssertEqual(traced.last, "CREATE TABLE \"auto\" (\"id\" INTEGER PRIMARY KEY ON CONFLICT FAIL AUTOINCREMENT)")
            try db.create(table: "untyped") { t in t.column("a"); t.column("b") }
            XCTAssertEqual(traced.last, "CREATE TABLE \"untyped\" (\"a\", \"b\")")
            try db.create(table: "columns") { t in
                t.column("a", .integer).notNull().unique(onConflict: .replace)
                t.column("b", .integer).check { $0 > 0 }.check(sql: "b <> 2")
                t.column("c", .integer).defaults(to: 1)
                t.column("d", .double).defaults(to: 1.0)
                t.column("e", .text).defaults(to: "O'Brien").collate(.nocase)
                t.column("f", .blob).defaults(to: Data("foo".utf8))
                t.column("g", .datetime).defaults(sql: "CURRENT_TIMESTAMP")
                t.column("h", .boolean).notNull().defaults(to: false)
            }
            XCTAssertEqual(traced.last, """
                CREATE TABLE "columns" (\
                "a" INTEGER NOT NULL UNIQUE ON CONFLICT REPLACE, \
                "b" INTEGER CHECK ("b" > 0) CHECK (b <> 2), \
                "c" INTEGER DEFAULT 1, \
                "d" DOUBLE DEFAULT 1.0, \
                "e" TEXT DEFAULT 'O''Brien' COLLATE NOCASE, \
                "f" BLOB DEFAULT X'666F6F', \
                "g" DATETIME DEFAULT CURRENT_TIMESTAMP, \
                "h" BOOLEAN NOT NULL DEFAULT 0)
                """)
            try db.create(table: "parent") { t in
                t.primaryKey("name", .text)
                t.column("email", .text).unique()
            }
            try db.create(table: "child") { t in
                t.column("parentName", .text).references("parent", onDelete: .cascade, onUpdate: .cascade).indexed()
                t.column("parentEmail", .text).references("parent", column: "email", onDelete: .restrict, deferred: true)
                t.column("a", .text)
                t.column("b", .text)
                t.uniqueKey(["a", "b"], onConflict: .fail)
                t.primaryKey(["parentName", "a"])
                t.foreignKey(["a"], references: "parent", columns: ["name"], onDelete: .setNull)
                t.check(Column("a") != Column("b"))
            }
            let statements = traced.all.suffix(2)
            XCTAssertEqual(Array(statements), [
                """
                CREATE TABLE "child" (\
                "parentName" TEXT REFERENCES "parent"("name") ON DELETE CASCADE ON UPDATE CASCADE, \
                "parentEmail" TEXT REFERENCES "parent"("email") ON DELETE RESTRICT DEFERRABLE INITIALLY DEFERRED, \
                "a" TEXT, "b" TEXT, \
                PRIMARY KEY ("parentName", "a"), \
                UNIQUE ("a", "b") ON CONFLICT FAIL, \
                FOREIGN KEY ("a") REFERENCES "parent"("name") ON DELETE SET NULL, \
                CHECK ("a" <> "b"))
                """,
                "CREATE INDEX \"child_on_parentName\" ON \"child\"(\"parentName\")",
            ])
            try db.create(index: "child_on_b", on: "child", columns: ["b"], unique: true, ifNotExists: true, condition: Column("b") != nil)
            XCTAssertEqual(traced.last, "CREATE UNIQUE INDEX IF NOT EXISTS \"child_on_b\" ON \"child\"(\"b\") WHERE \"b\" IS NOT NULL")
        }
    }

    func testIntrospection() throws {
        try dbQueue.inDatabase { db in
            try db.create(table: "team") { t in t.autoIncrementedPrimaryKey("id") }
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull().unique()
                t.column("teamId", .integer).references("team", onDelete: .cascade).indexed()
            }
            try db.create(table: "pair") { t in
                t.column("a", .text)
                t.column("b", .text)
                t.primaryKey(["a", "b"])
            }
            XCTAssertTrue(try db.tableExists("PLAYER"))
            XCTAssertFalse(try db.tableExists("nope"))
            XCTAssertEqual(try db.columns(in: "player").map(\.name), ["id", "name", "teamId"])
            XCTAssertEqual(try db.columns(in: "player")[1].isNotNull, true)
            XCTAssertEqual(try db.primaryKey("player").columns, ["id"])
            XCTAssertEqual(try db.primaryKey("player").rowIDColumn, "id")
            XCTAssertEqual(try db.primaryKey("pair").columns, ["a", "b"])
            XCTAssertNil(try db.primaryKey("pair").rowIDColumn)
            let indexes = try db.indexes(on: "player")
            XCTAssertEqual(indexes.map(\.columns), [["teamId"], ["name"]])
            XCTAssertEqual(indexes.map(\.isUnique), [false, true])
            let keys = try db.foreignKeys(on: "player")
            XCTAssertEqual(keys.map(\.destinationTable), ["team"])
            XCTAssertEqual(keys.first?.onDelete, "CASCADE")
            XCTAssertThrowsError(try db.columns(in: "nope"))
            let version = try db.schemaVersion()
            try db.drop(table: "pair")
            XCTAssertGreaterThan(try db.schemaVersion(), version)
            try db.execute(sql: "PRAGMA foreign_keys = OFF; INSERT INTO player (name, teamId) VALUES ('x', 42); PRAGMA foreign_keys = ON")
            XCTAssertThrowsError(try db.checkForeignKeys()) { error in
                XCTAssertEqual((error as? DatabaseError)?.extendedResultCode, .SQLITE_CONSTRAINT_FOREIGNKEY)
                XCTAssertEqual((error as? DatabaseError)?.message,
                               "FOREIGN KEY constraint violation - from player(teamId) to team(id), in [id:1 name:\"x\" teamId:42]")
            }
            XCTAssertEqual(try Array(db.foreignKeyViolations(in: "player")).map(\.originRowID), [1])
            XCTAssertEqual(try db.foreignKeys(on: "player").first?.mapping.map(\.destination), ["id"], "the implicit key is resolved")
        }
    }

    /// An unqualified name is looked up as SQLite resolves it: temp, then
    /// main, then the attached databases; a schema name, in any case,
    /// looks in that schema only.
    func testTablesAreFoundInTempThenMainThenAttachedSchemas() throws {
        try dbQueue.inDatabase { db in
            try db.execute(sql: """
                CREATE TABLE shadowed (id INTEGER PRIMARY KEY, a TEXT);
                CREATE TEMP TABLE shadowed (code TEXT PRIMARY KEY, b TEXT, c TEXT);
                CREATE VIEW plain AS SELECT id FROM main.shadowed;
                ATTACH ':memory:' AS aux;
                CREATE TABLE aux.remote (x INTEGER, y INTEGER, PRIMARY KEY (y, x)) WITHOUT ROWID;
                CREATE TABLE aux.shadowed (z TEXT);
                """)
            XCTAssertEqual(try db.columns(in: "SHADOWED").map(\.name), ["code", "b", "c"])
            XCTAssertEqual(try db.primaryKey("shadowed").columns, ["code"])
            XCTAssertEqual(try db.primaryKey("shadowed", in: "Main").columns, ["id"])
            XCTAssertEqual(try db.primaryKey("shadowed", in: "main").rowIDColumn, "id")
            XCTAssertEqual(try db.columns(in: "shadowed", in: "MAIN").map(\.name), ["id", "a"])
            XCTAssertEqual(try db.columns(in: "shadowed", in: "TEMP").map(\.name), ["code", "b", "c"])
            XCTAssertEqual(try db.columns(in: "shadowed", in: "aux").map(\.name), ["z"])
            XCTAssertEqual(try db.primaryKey("shadowed", in: "AUX").columns, ["rowid"])
            XCTAssertEqual(try db.primaryKey("remote").columns, ["y", "x"])
            XCTAssertNil(try db.primaryKey("remote").rowIDColumn)
            XCTAssertEqual(try db.columns(in: "Remote", in: "Aux").map(\.name), ["x", "y"])
            XCTAssertEqual(try db.columns(in: "plain").map(\.name), ["id"])
            XCTAssertThrowsError(try db.primaryKey("plain")) { error in
                XCTAssertEqual((error as? DatabaseError)?.message, "database view plain has no primary key")
            }
            XCTAssertThrowsError(try db.primaryKey("remote", in: "main")) { error in
                XCTAssertEqual((error as? DatabaseError)?.message, "no such table: remote")
            }
            XCTAssertThrowsError(try db.columns(in: "shadowed", in: "nowhere")) { error in
                XCTAssertEqual((error as? DatabaseError)?.message, "no such schema: nowhere")
            }
        }
    }

    func testAddRenameAndDropColumnsKeepDataIndexesTriggersAndForeignKeys() throws {
        var config = keyedConfiguration(passphrase: "secret")
        config.foreignKeysEnabled = false
        let queue = try DatabaseQueue(path: path("alter.sqlite"), configuration: config)
        try queue.write { db in
            try db.create(table: "team") { t in t.primaryKey("id", .integer) }
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull().check { length($0) > 0 }
                t.column("nick", .text).collate(.nocase)
                t.column("legacy", .text).defaults(to: "old")
                t.column("teamId", .integer).references("team", onDelete: .cascade).indexed()
            }
            try db.create(table: "member") { t in t.column("playerId", .integer).references("player") }
            try db.execute(sql: """
                CREATE TRIGGER player_nick AFTER UPDATE OF nick ON player BEGIN SELECT 1; END;
                INSERT INTO team VALUES (1);
                INSERT INTO player (name, nick, teamId) VALUES ('Arthur', 'art', 1), ('Barbara', 'barb', 1);
                INSERT INTO member VALUES (1);
                """)
            try db.alter(table: "player") { t in
                t.add(column: "score", .integer).notNull().defaults(to: 0)
                t.rename(column: "nick", to: "nickname")
                t.drop(column: "legacy")
            }
            XCTAssertEqual(try db.columns(in: "player").map(\.name), ["id", "name", "nickname", "teamId", "score"])
            XCTAssertEqual(try Row.fetchAll(db, sql: "SELECT id, name, nickname, teamId, score FROM player ORDER BY id"),
                           [["id": 1, "name": "Arthur", "nickname": "art", "teamId": 1, "score": 0],
                            ["id": 2, "name": "Barbara", "nickname": "barb", "teamId": 1, "score": 0]])
            // Index, trigger, collation, check, foreign key and AUTOINCREMENT survive.
            XCTAssertEqual(try db.indexes(on: "player").map(\.name), ["player_on_teamId"])
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'player_nick'")?.contains("\"nickname\""), true)
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT name FROM player WHERE nickname = 'ART'"), "Arthur")
            XCTAssertThrowsError(try db.execute(sql: "INSERT INTO player (name) VALUES ('')"))
            XCTAssertEqual(try db.foreignKeys(on: "player").first?.destinationTable, "team")
            XCTAssertEqual(try db.foreignKeys(on: "member").first?.destinationTable, "player", "references from other tables still point at player")
            XCTAssertTrue(try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'player'")?.contains("AUTOINCREMENT") == true)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM member"), 1)
            try db.checkForeignKeys()

            // Refusals leave the table as it was.
            XCTAssertThrowsError(try db.alter(table: "player") { t in t.drop(column: "teamId") }) { error in
                XCTAssertTrue("\(error)".contains("player_on_teamId"), "\(error)")
            }
            XCTAssertThrowsError(try db.alter(table: "player") { t in
                t.add(column: "temp", .text)
                t.drop(column: "missing")
            })
            XCTAssertEqual(try db.columns(in: "player").map(\.name), ["id", "name", "nickname", "teamId", "score"])
        }
    }

    func testRebuildRefusesWhenForeignKeysWouldCascade() throws {
        try dbQueue.write { db in
            try db.create(table: "team") { t in
                t.primaryKey("id", .integer)
                t.column("old", .text)
            }
            try db.create(table: "player") { t in t.column("teamId", .integer).references("team", onDelete: .cascade) }
            try db.execute(sql: "INSERT INTO team VALUES (1, 'x'); INSERT INTO player VALUES (1)")
            if Database.sqliteLibVersionNumber >= 3_035_000 {
                // SQLite's own DROP COLUMN: no rebuild, so nothing cascades.
                try db.alter(table: "team") { t in t.drop(column: "old") }
                XCTAssertEqual(try db.columns(in: "team").map(\.name), ["id"])
            } else {
                XCTAssertThrowsError(try db.alter(table: "team") { t in t.drop(column: "old") }) { error in
                    XCTAssertTrue("\(error)".contains("foreign keys are on"), "\(error)")
                }
            }
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM player"), 1)
        }
    }

    func testRebuildInsideAMigration() throws {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "team") { t in
                t.primaryKey("id", .integer)
                t.column("old", .text)
            }
            try db.create(table: "player") { t in t.column("teamId", .integer).references("team", onDelete: .cascade) }
            try db.execute(sql: "INSERT INTO team VALUES (1, 'x'); INSERT INTO player VALUES (1)")
        }
        migrator.registerMigration("v2") { db in
            try db.alter(table: "team") { t in t.drop(column: "old") }
        }
        try migrator.migrate(dbQueue)
        XCTAssertEqual(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM player") }, 1, "no cascade")
        XCTAssertEqual(try dbQueue.read { try $0.columns(in: "team").map(\.name) }, ["id"])
    }
}

extension TraceBox {
    var all: [String] { allStatements() }
}
