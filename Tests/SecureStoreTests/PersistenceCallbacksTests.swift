import Foundation
import SecureStore
import TestSupport
import XCTest

/// The persistence callbacks of a `PersistableRecord` (a record that an
/// insert does not change), on an encrypted file: the order GRDB runs them
/// in, what an `around` callback that skips its action gets, and what a
/// failed statement leaves out.
final class PersistenceCallbacksTests: TracedQueueTestCase {
    /// A record that logs every callback, and whose `around` callbacks can
    /// be told to skip their action.
    private struct Logged: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "player"
        static let log = Locked<[String]>([])
        /// The `around` callbacks that return without calling their action.
        static let skipping = Locked<Set<String>>([])
        var id: Int64
        var name: String

        private func append(_ entry: String) { Self.log.mutate { $0.append(entry) } }

        func willSave(_ db: Database) throws { append("willSave") }
        /// Logs an `around` callback, and calls its action unless told to skip it.
        private func around<Success>(_ callback: String, _ action: () throws -> Success) rethrows {
            append("\(callback) >")
            if Self.skipping.value.contains(callback) { return }
            _ = try action()
            append("\(callback) <")
        }

        func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws { try around("aroundSave", save) }
        func didSave(_ saved: PersistenceSuccess) { append("didSave \(saved.persistenceContainer["name"]?.databaseValue ?? .null)") }
        func willInsert(_ db: Database) throws { append("willInsert") }
        func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws { try around("aroundInsert", insert) }
        func didInsert(_ inserted: InsertionSuccess) { append("didInsert \(inserted.rowID)") }
        func willUpdate(_ db: Database, columns: Set<String>) throws { append("willUpdate") }
        func didUpdate(_ updated: PersistenceSuccess) { append("didUpdate") }
    }

    /// A record of a table whose primary key is not the rowid.
    private struct Keyed: Encodable, PersistableRecord {
        static let databaseTableName = "keyed"
        var name: String
        func didInsert(_ inserted: InsertionSuccess) {
            SavedAround.log.mutate { $0.append("keyed \(inserted.rowIDColumn ?? "nil") \(inserted.rowID)") }
        }
    }

    /// A record with its own `aroundSave` and the default `aroundInsert`.
    private struct SavedAround: Encodable, PersistableRecord {
        static let databaseTableName = "player"
        static let log = Locked<[String]>([])
        var name: String
        func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws {
            let saved = try save()
            Self.log.mutate { $0.append("aroundSave \(saved.persistenceContainer["name"]?.databaseValue ?? .null)") }
        }
        /// Logs the rowid, and what the success says of its column, before
        /// and after changes to a copy of it.
        func didInsert(_ inserted: InsertionSuccess) {
            var copy = inserted
            copy.rowIDColumn = nil
            let cleared = copy.rowIDColumn ?? "nil"
            copy.rowIDColumn = "other"
            Self.log.mutate {
                $0.append("didInsert \(inserted.rowID) \(inserted.rowIDColumn ?? "nil") \(cleared) \(copy.rowIDColumn ?? "nil")")
            }
        }
        func didSave(_ saved: PersistenceSuccess) { Self.log.mutate { $0.append("didSave") } }
    }

    /// A record whose `around` callbacks are all the default ones.
    private struct Plain: Encodable, MutablePersistableRecord {
        static let databaseTableName = "player"
        static let log = Locked<[String]>([])
        var id: Int64?
        var name: String
        mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
        func didUpdate(_ updated: PersistenceSuccess) { Self.log.mutate { $0.append("didUpdate \(id ?? 0)") } }
        func didSave(_ saved: PersistenceSuccess) { Self.log.mutate { $0.append("didSave \(id ?? 0)") } }
    }

    override func setUpSchema(_ db: Database) throws {
        try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        Logged.log.value = []
        Logged.skipping.value = []
        SavedAround.log.value = []
        Plain.log.value = []
    }

    func testInsertRunsTheSaveCallbacksAroundTheInsertOnes() throws {
        try dbQueue.write { db in
            try Logged(id: 7, name: "Arthur").insert(db)
        }
        XCTAssertEqual(Logged.log.value, [
            "willSave", "aroundSave >", "willInsert", "aroundInsert >", "aroundInsert <", "didInsert 7",
            "aroundSave <", "didSave \"Arthur\"",
        ])
        XCTAssertEqual(try dbQueue.read { try String.fetchOne($0, sql: "SELECT name FROM player WHERE id = 7") }, "Arthur")

        // `inserted` and `update` run theirs the same way.
        Logged.log.value = []
        try dbQueue.write { db in
            XCTAssertEqual(try Logged(id: 8, name: "Barbara").inserted(db).id, 8)
            try Logged(id: 8, name: "Craig").update(db)
        }
        XCTAssertEqual(Logged.log.value, [
            "willSave", "aroundSave >", "willInsert", "aroundInsert >", "aroundInsert <", "didInsert 8",
            "aroundSave <", "didSave \"Barbara\"",
            "willSave", "aroundSave >", "willUpdate", "didUpdate", "aroundSave <", "didSave \"Craig\"",
        ])
    }

    func testAnAroundCallbackThatSkipsItsActionFailsTheInsert() throws {
        for callback in ["aroundInsert", "aroundSave"] {
            Logged.skipping.value = [callback]
            Logged.log.value = []
            try dbQueue.write { db in
                XCTAssertThrowsError(try Logged(id: 1, name: "Arthur").insert(db), callback) { error in
                    guard let error = error as? DatabaseError else { return XCTFail("\(callback): \(error)") }
                    XCTAssertEqual(error.resultCode, .SQLITE_MISUSE, callback)
                    XCTAssertTrue(error.message?.contains("`Logged.\(callback)`") == true, "\(callback): \(error)")
                }
            }
            XCTAssertFalse(Logged.log.value.contains { $0.hasPrefix("did") }, "\(callback): \(Logged.log.value)")
        }
        // The skipped action is what runs the INSERT: no row went in.
        XCTAssertEqual(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM player") }, 0)
    }

    func testAFailedInsertRunsNoDidCallback() throws {
        try dbQueue.write { db in try Logged(id: 1, name: "Arthur").insert(db) }
        Logged.log.value = []
        try dbQueue.write { db in
            XCTAssertThrowsError(try Logged(id: 1, name: "Barbara").insert(db)) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_CONSTRAINT, "\(error)")
            }
        }
        XCTAssertEqual(Logged.log.value, ["willSave", "aroundSave >", "willInsert", "aroundInsert >"])
        XCTAssertEqual(try dbQueue.read { try String.fetchAll($0, sql: "SELECT name FROM player") }, ["Arthur"])
    }

    /// What `didInsert` is told of the rowid column: the table's INTEGER
    /// PRIMARY KEY, or nil for a table without one.
    func testTheInsertionSuccessNamesTheRowIDColumn() throws {
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE keyed (name TEXT PRIMARY KEY)")
            try SavedAround(name: "Arthur").insert(db)
            try Keyed(name: "Barbara").insert(db)
        }
        XCTAssertEqual(SavedAround.log.value, ["didInsert 1 id nil other", "aroundSave \"Arthur\"", "didSave", "keyed nil 1"])
    }

    /// A connection skips the default `around` callbacks once it has seen
    /// them run for a type (`DefaultAroundCallbacks`): the other callbacks
    /// still run for every record, and a type's own `around` callbacks
    /// still run for each of its records, among records of other types.
    func testOwnAroundCallbacksRunForEveryRecordAmongRecordsWithDefaultOnes() throws {
        var plainIDs: [Int64?] = []
        try dbQueue.write { db in
            for round in 1...3 {
                var plain = Plain(name: "plain \(round)")
                try plain.insert(db)
                plainIDs.append(plain.id)
                try SavedAround(name: "saved \(round)").insert(db)
                plain.name = "plain \(round) updated"
                try plain.update(db)
                try plain.save(db)
                try Logged(id: -Int64(round), name: "logged \(round)").insert(db)
            }
        }
        XCTAssertEqual(plainIDs, [1, 3, 5])
        XCTAssertEqual(SavedAround.log.value, (1...3).flatMap { round in
            ["didInsert \(2 * round) id nil other", "aroundSave \"saved \(round)\"", "didSave"]
        })
        XCTAssertEqual(Plain.log.value, [1, 3, 5].flatMap { id in
            ["didSave \(id)", "didUpdate \(id)", "didSave \(id)", "didUpdate \(id)", "didSave \(id)"]
        })
        XCTAssertEqual(Logged.log.value.filter { $0.hasPrefix("around") }.count, 12, "\(Logged.log.value)")
        XCTAssertEqual(try dbQueue.read { try String.fetchAll($0, sql: "SELECT name FROM player WHERE id IN (1, 3, 5) ORDER BY id") },
                       ["plain 1 updated", "plain 2 updated", "plain 3 updated"])
    }
}
