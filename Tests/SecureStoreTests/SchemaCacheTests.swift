import Foundation
import SecureStore
import XCTest

/// The connection caches table columns, primary keys and record INSERT
/// statements (see Database+SchemaCache.swift). These prove that the cache
/// never outlives a schema change, made by this connection or another.
final class SchemaCacheTests: SecureStoreTestCase {
    private struct Note: Codable, FetchableRecord, MutablePersistableRecord {
        var id: Int64?
        var text: String
        mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
    }

    private func makeQueue() throws -> DatabaseQueue {
        try DatabaseQueue(path: path("db.sqlite"), configuration: keyedConfiguration(passphrase: "secret"))
    }

    func testOwnSchemaChangeIsSeenAtOnce() throws {
        let dbQueue = try makeQueue()
        try dbQueue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT)")
            XCTAssertEqual(try db.columns(in: "note").map(\.name), ["id", "text"])
            try db.execute(sql: "ALTER TABLE note ADD COLUMN extra TEXT")
            XCTAssertEqual(try db.columns(in: "note").map(\.name), ["id", "text", "extra"])
            // A cached DDL statement that runs again still clears the cache.
            try db.cachedStatement(sql: "DROP TABLE IF EXISTS other").execute()
            try db.execute(sql: "CREATE TABLE other (code TEXT PRIMARY KEY)")
            XCTAssertEqual(try db.primaryKey("other").columns, ["code"])
            try db.cachedStatement(sql: "DROP TABLE IF EXISTS other").execute()
            try db.execute(sql: "CREATE TABLE other (a INTEGER PRIMARY KEY)")
            XCTAssertEqual(try db.primaryKey("other").rowIDColumn, "a")
        }
    }

    func testRolledBackSchemaChangeIsForgotten() throws {
        let dbQueue = try makeQueue()
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT)") }
        try? dbQueue.write { db in
            XCTAssertEqual(try db.columns(in: "note").count, 2)
            try db.execute(sql: "ALTER TABLE note ADD COLUMN extra TEXT")
            XCTAssertEqual(try db.columns(in: "note").count, 3)
            throw DatabaseError(resultCode: .SQLITE_ABORT, message: "roll back")
        }
        try dbQueue.read { db in XCTAssertEqual(try db.columns(in: "note").map(\.name), ["id", "text"]) }
    }

    func testAnotherConnectionsSchemaChangeIsSeen() throws {
        let first = try makeQueue(), second = try makeQueue()
        try first.write { db in
            try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT)")
            var note = Note(id: nil, text: "one")
            try note.insert(db)
            XCTAssertEqual(note.id, 1)
        }
        // The other connection rebuilds the table: the key is no longer the rowid.
        try second.write { db in
            try db.execute(sql: """
                DROP TABLE note;
                CREATE TABLE note (text TEXT, id INTEGER, PRIMARY KEY (text));
                """)
        }
        try first.write { db in
            XCTAssertEqual(try db.primaryKey("note").columns, ["text"])
            XCTAssertNil(try db.primaryKey("note").rowIDColumn)
            var note = Note(id: 7, text: "two")
            try note.insert(db)
            XCTAssertEqual(try Note.fetchAll(db).map(\.text), ["two"])
        }
        // Outside a transaction too.
        try second.writeWithoutTransaction { db in try db.execute(sql: "ALTER TABLE note ADD COLUMN extra TEXT") }
        try first.writeWithoutTransaction { db in
            XCTAssertEqual(try db.columns(in: "note").map(\.name), ["text", "id", "extra"])
        }
    }

    func testColumnLookupIgnoresASCIICaseOnly() throws {
        let dbQueue = try makeQueue()
        try dbQueue.read { db in
            let row = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT 1 AS Name, 2 AS name, 3 AS \"ÉTÉ\""))
            XCTAssertEqual(row["NAME"] as Int, 1, "the leftmost column wins")
            XCTAssertEqual(row["name"] as Int, 1)
            XCTAssertEqual(row["ÉTÉ"] as Int, 3)
            let copied = row.copy()
            XCTAssertEqual(copied["nAmE"] as Int, 1)
            XCTAssertEqual(copied["été"] as Int?, 3)
            XCTAssertNil(copied["nam"] as Int?)
        }
    }
}
