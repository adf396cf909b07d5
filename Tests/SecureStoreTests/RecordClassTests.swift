import Foundation
import SecureStore
import XCTest

/// The `Record` class: the methods it runs for its subclasses use the
/// subclass's table (they once asked `Record` itself, which stops the
/// program), and the changes it tracks.
final class RecordClassTests: SecureStoreTestCase {
    private final class BrandItem: Record {
        var id: Int64?
        var name: String

        override class var databaseTableName: String { "brandItem" }

        init(name: String) {
            self.name = name
            super.init()
        }

        required init(row: Row) throws {
            id = row["id"]
            name = row["name"]
            try super.init(row: row)
        }

        override func encode(to container: inout PersistenceContainer) throws {
            container["id"] = id
            container["name"] = name
        }

        override func didInsert(_ inserted: InsertionSuccess) {
            super.didInsert(inserted)
            id = inserted.rowID
        }
    }

    func testASubclassUpdatesSavesAndDeletesInItsOwnTable() throws {
        XCTAssertEqual(BrandItem.databaseTableName, "brandItem")
        let dbQueue = try makeEncryptedQueue()
        let fetched = try dbQueue.write { db -> BrandItem? in
            try db.execute(sql: "CREATE TABLE brandItem (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
            try BrandItem(name: "Zalora").insert(db)
            return try BrandItem.fetchOne(db, key: 1)
        }
        let item = try XCTUnwrap(fetched)
        XCTAssertEqual(item.name, "Zalora")
        XCTAssertFalse(item.hasDatabaseChanges)
        item.name = "Asos"
        XCTAssertTrue(item.hasDatabaseChanges)
        XCTAssertTrue(try dbQueue.write { db in try item.updateChanges(db) })
        XCTAssertEqual(try dbQueue.read { db in try String.fetchOne(db, sql: "SELECT name FROM brandItem") }, "Asos")
        try dbQueue.write { db in
            XCTAssertTrue(try item.exists(db))
            XCTAssertTrue(try item.delete(db))
            XCTAssertFalse(try item.exists(db))
        }
    }
}
