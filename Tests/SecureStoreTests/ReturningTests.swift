import Foundation
import SecureStore
import TestSupport
import XCTest

/// RETURNING and UPSERT, on the SQLCipher line whose SQLite has them (SQLite
/// 3.35 and later: SQLCipher 4): the SQL GRDB writes, the rows returned, the
/// callbacks, on an encrypted file. On SQLite 3.15.2 every method throws an
/// error that names the version it needs, before anything changes.
final class ReturningTests: TracedQueueTestCase {
    private struct Player: Codable, Equatable, FetchableRecord, MutablePersistableRecord, Identifiable {
        var id: Int64?
        var name: String
        var score: Int
        mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
    }

    /// A record that logs its callbacks.
    private struct Logged: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "player"
        static let log = Locked<[String]>([])
        var id: Int64
        var name: String
        var score: Int
        func willSave(_ db: Database) throws { Self.log.value.append("willSave") }
        func willInsert(_ db: Database) throws { Self.log.value.append("willInsert") }
        func didInsert(_ inserted: InsertionSuccess) { Self.log.value.append("didInsert \(inserted.rowID)") }
        func willUpdate(_ db: Database, columns: Set<String>) throws { Self.log.value.append("willUpdate") }
        func didUpdate(_ updated: PersistenceSuccess) { Self.log.value.append("didUpdate") }
        func didSave(_ saved: PersistenceSuccess) { Self.log.value.append("didSave") }
    }

    override func setUpSchema(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, score INTEGER NOT NULL DEFAULT 0);
            INSERT INTO player (name, score) VALUES ('Arthur', 10), ('Barbara', 20), ('Craig', 30);
            """)
    }

    private func requireReturning() throws {
        guard Database.sqliteLibVersionNumber >= 3_035_000 else {
            throw XCTSkip("RETURNING needs SQLite 3.35; this SQLCipher runs SQLite \(Database.sqliteLibVersion) (testMethodsThatNeedReturningThrowBelowSQLite335 covers it)")
        }
    }

    func testMethodsThatNeedReturningThrowBelowSQLite335() throws {
        guard Database.sqliteLibVersionNumber < 3_035_000 else {
            throw XCTSkip("SQLite \(Database.sqliteLibVersion) has RETURNING: the other tests of this class cover it")
        }
        try dbQueue.write { db in
            var player = Player(id: nil, name: "Dan", score: 1)
            for call in [
                { _ = try player.insertAndFetch(db) },
                { _ = try player.saveAndFetch(db) },
                { _ = try Player.filter(Column("score") > 0).deleteAndFetchAll(db) },
                { _ = try Player.all().updateAndFetchAll(db, [Column("score").set(to: 0)]) },
            ] as [() throws -> Void] {
                XCTAssertThrowsError(try call()) { error in
                    XCTAssertTrue("\(error)".contains("RETURNING needs SQLite 3.35 or later; this SQLCipher runs SQLite 3.15.2"), "\(error)")
                }
            }
            XCTAssertThrowsError(try player.upsert(db)) { error in
                XCTAssertTrue("\(error)".contains("needs SQLite 3.24"), "\(error)")
            }
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM player"), 3, "nothing written")
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT sum(score) FROM player"), 60)
        }
    }

    func testInsertUpdateAndSaveAndFetch() throws {
        try requireReturning()
        try dbQueue.write { db in
            var dan = Player(id: nil, name: "Dan", score: 5)
            traced.clear()
            let inserted = try dan.insertAndFetch(db, as: Player.self)
            XCTAssertEqual(traced.last, #"INSERT INTO "player" ("id", "name", "score") VALUES (NULL,'Dan',5) RETURNING *"#)
            XCTAssertEqual(inserted, Player(id: 4, name: "Dan", score: 5))
            XCTAssertEqual(dan.id, 4, "didInsert got the rowid")

            let score = try dan.insertAndFetch(db, onConflict: .ignore, selection: [Column("score")]) { try Int.fetchOne($0) }
            XCTAssertNil(score, "an insert ignored by the conflict returns no row")
            XCTAssertThrowsError(try dan.insertAndFetch(db, onConflict: .ignore, as: Player.self)) { error in
                guard case RecordError.recordNotFound = error else { return XCTFail("\(error)") }
            }

            dan.score = 50
            traced.clear()
            XCTAssertEqual(try dan.updateAndFetch(db), dan)
            XCTAssertEqual(traced.last, #"UPDATE "player" SET "name"='Dan', "score"=50 WHERE "id"=4 RETURNING *"#)
            XCTAssertNil(try dan.updateChangesAndFetch(db) { $0.score = 50 }, "nothing changed: no statement")
            XCTAssertEqual(try dan.updateChangesAndFetch(db) { $0.score += 1 }?.score, 51)
            XCTAssertEqual(traced.last, #"UPDATE "player" SET "score"=51 WHERE "id"=4 RETURNING *"#)

            let ghost = Player(id: 99, name: "Ghost", score: 0)
            XCTAssertThrowsError(try ghost.updateAndFetch(db)) { error in
                guard case RecordError.recordNotFound = error else { return XCTFail("\(error)") }
            }
            // save: an update of an existing row, an insert otherwise.
            XCTAssertEqual(try ghost.saveAndFetch(db).name, "Ghost")
            var ghostAgain = ghost
            ghostAgain.score = 7
            XCTAssertEqual(try ghostAgain.saveAndFetch(db, as: Player.self).score, 7)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM player WHERE name = 'Ghost'"), 1)
        }
    }

    func testCallbacksRunAroundTheFetchingStatement() throws {
        try requireReturning()
        try dbQueue.write { db in
            Logged.log.value = []
            let fetched = try Logged(id: 10, name: "Eve", score: 1).insertAndFetch(db, as: Player.self)
            XCTAssertEqual(fetched.id, 10)
            XCTAssertEqual(Logged.log.value, ["willSave", "willInsert", "didInsert 10", "didSave"])
            Logged.log.value = []
            _ = try Logged(id: 10, name: "Eve", score: 2).saveAndFetch(db, as: Player.self)
            XCTAssertEqual(Logged.log.value, ["willSave", "willUpdate", "didUpdate", "didSave"])
        }
    }

    func testUpsert() throws {
        try requireReturning()
        try dbQueue.write { db in
            // A conflict on the primary key updates every other column.
            var arthur = Player(id: 1, name: "Arthur", score: 100)
            traced.clear()
            try arthur.upsert(db)
            XCTAssertEqual(traced.last, """
                INSERT INTO "player" ("id", "name", "score") VALUES (1,'Arthur',100) \
                ON CONFLICT DO UPDATE SET "name" = "excluded"."name", "score" = "excluded"."score" RETURNING "rowid"
                """)
            XCTAssertEqual(try Player.fetchOne(db, key: 1)?.score, 100)

            // A new row is inserted, and didInsert gets its rowid.
            var dan = Player(id: nil, name: "Dan", score: 1)
            try dan.upsert(db)
            XCTAssertEqual(dan.id, 4)

            // A conflict on another unique key, with explicit assignments and
            // the other columns left alone.
            var barbara = Player(id: nil, name: "Barbara", score: 5)
            let upserted = try barbara.upsertAndFetch(db, onConflict: ["name"], updating: .noColumnUnlessSpecified) { excluded in
                [Column("score").set(to: Column("score") + excluded["score"])]
            }
            XCTAssertEqual(upserted, Player(id: 2, name: "Barbara", score: 25))
            XCTAssertTrue(traced.last?.contains(#"ON CONFLICT("name") DO UPDATE SET "score" = "score" + "excluded"."score" RETURNING *, "rowid""#) == true,
                          traced.last ?? "")

            // Nothing to update: the upsert still returns the row.
            var craig = Player(id: 3, name: "Craig", score: 0)
            XCTAssertEqual(try craig.upsertAndFetch(db, updating: .noColumnUnlessSpecified).score, 30)
            XCTAssertTrue(traced.last?.contains(#"DO UPDATE SET "id" = "id""#) == true, traced.last ?? "")
            // noOverwrite keeps a column out of the update.
            var craig99 = Player(id: 3, name: "Craig", score: 99)
            let kept = try craig99.upsertAndFetch(db) { _ in [Column("score").noOverwrite] }
            XCTAssertEqual(kept.score, 30)
        }
    }

    func testRequestsDeleteAndUpdateAndFetch() throws {
        try requireReturning()
        try dbQueue.write { db in
            traced.clear()
            let raised = try Player.filter(Column("score") >= 20).order(Column("id")).updateAndFetchAll(db, [Column("score") += 1])
            XCTAssertEqual(Set(raised.map(\.score)), [21, 31])
            XCTAssertEqual(traced.last, #"UPDATE "player" SET "score" = "score" + 1 WHERE "score" >= 20 RETURNING *"#)
            let statement = try Player.all().updateAndFetchStatement(db, [Column("score").set(to: 0)], selection: [Column("name")])
            XCTAssertEqual(Set(try String.fetchAll(statement)), ["Arthur", "Barbara", "Craig"])
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT sum(score) FROM player"), 0)

            let deleted = try Player.filter(Column("name") != "Arthur").deleteAndFetchAll(db)
            XCTAssertEqual(Set(deleted.map(\.name)), ["Barbara", "Craig"])
            XCTAssertEqual(traced.last, #"DELETE FROM "player" WHERE "name" <> 'Arthur' RETURNING *"#)
            XCTAssertEqual(try Player.deleteAll(db), 1)
            try db.execute(sql: "INSERT INTO player (id, name) VALUES (7, 'G'), (8, 'H')")
            XCTAssertEqual(try Player.all().deleteAndFetchIds(db), [7, 8])
            XCTAssertThrowsError(try Player.all().deleteAndFetchStatement(db, selection: [])) { error in
                XCTAssertTrue("\(error)".contains("Invalid empty selection"), "\(error)")
            }
        }
        // The file stays encrypted: the CLI reads it with the key only.
        try dbQueue.close()
        XCTAssertFalse(Database.hasPlaintextHeader(path: path("db.sqlite")))
    }
}
