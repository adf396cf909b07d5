import Foundation
import SecureStore
import TestSupport
import XCTest

/// The migrator's GRDB 7.10 API beyond `migrate`: merged migrations,
/// `asyncMigrate`, schema sources in migrations, deferred foreign key checks
/// switched off for later registrations, schema changes of renamed
/// migrations. Encrypted files on disk throughout.
final class DatabaseMigratorParityTests: SecureStoreTestCase {
    private struct ViewKeys: DatabaseSchemaSource {
        func columnsForPrimaryKey(_ db: Database, inView view: DatabaseObjectID) throws -> [String]? { ["id"] }
    }

    private func tables(_ reader: some DatabaseReader) throws -> Set<String> {
        try reader.read { db in
            try String.fetchSet(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 't%'")
        }
    }

    /// v1...v5 of an older release, each making table tN.
    private func oldMigrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for version in 1...5 {
            migrator.registerMigration("v\(version)") { db in try db.execute(sql: "CREATE TABLE t\(version) (a)") }
        }
        return migrator
    }

    func testMergedMigrationRunsWhatTheDatabaseMissesAndForgetsTheMergedOnes() throws {
        // The new release: v2 and v3 merged into v4.
        var newMigrator = DatabaseMigrator()
        newMigrator.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE t1 (a)") }
        let seen = Locked<[Set<String>]>([])
        newMigrator.registerMigration("v4", merging: ["v2", "v3", "v4"]) { db, applied in
            seen.mutate { $0.append(applied) }
            for version in [2, 3] where !applied.contains("v\(version)") {
                try db.execute(sql: "CREATE TABLE t\(version) (a)")
            }
            try db.execute(sql: "CREATE TABLE t4 (a)")
        }
        newMigrator.registerMigration("v5") { db in try db.execute(sql: "CREATE TABLE t5 (a)") }

        for upTo in [nil, "v1", "v2", "v3", "v4", "v5"] {
            seen.value = []
            let dbQueue = try makeEncryptedQueue("merged-\(upTo ?? "new").sqlite")
            if let upTo { try oldMigrator().migrate(dbQueue, upTo: upTo) }
            try newMigrator.migrate(dbQueue)
            XCTAssertEqual(try dbQueue.read(newMigrator.appliedIdentifiers), ["v1", "v4", "v5"], "\(upTo ?? "new")")
            XCTAssertEqual(try tables(dbQueue), ["t1", "t2", "t3", "t4", "t5"])
            XCTAssertFalse(try dbQueue.read(newMigrator.hasBeenSuperseded))
            XCTAssertTrue(try dbQueue.read(newMigrator.hasCompletedMigrations))
            // v4 itself is never among the merged ones it is told about.
            switch upTo {
            case nil, "v1": XCTAssertEqual(seen.value, [[]])
            case "v2": XCTAssertEqual(seen.value, [["v2"]])
            case "v3": XCTAssertEqual(seen.value, [["v2", "v3"]])
            default: XCTAssertEqual(seen.value, [], "v4 was applied: only the history changes")
            }
            // The GRDB-compatible history agrees.
            let history = try dbQueue.read { db in
                try String.fetchAll(db, sql: "SELECT identifier FROM securestore_migrations ORDER BY applied_order")
            }
            XCTAssertEqual(history, ["v1", "v4", "v5"])
        }
    }

    func testAMergedMigrationThatFailsKeepsTheMergedHistory() throws {
        let dbQueue = try makeEncryptedQueue()
        try oldMigrator().migrate(dbQueue, upTo: "v2")
        var newMigrator = DatabaseMigrator()
        newMigrator.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE t1 (a)") }
        newMigrator.registerMigration("v3", merging: ["v2"]) { db, _ in
            try db.execute(sql: "CREATE TABLE t3 (a)")
            try db.execute(sql: "INSERT INTO missing VALUES (1)")
        }
        XCTAssertThrowsError(try newMigrator.migrate(dbQueue))
        XCTAssertEqual(try dbQueue.read(newMigrator.appliedIdentifiers), ["v1", "v2"])
        XCTAssertEqual(try tables(dbQueue), ["t1", "t2"])
    }

    func testAsyncMigrateDeliversTheConnectionOrTheError() throws {
        for kind in ["queue", "pool"] {
            let file = path("async-\(kind).sqlite")
            let config = keyedConfiguration(passphrase: "secret")
            let writer: any DatabaseWriter = kind == "queue"
                ? try DatabaseQueue(path: file, configuration: config)
                : try DatabasePool(path: file, configuration: config)
            var migrator = DatabaseMigrator()
            migrator.registerMigration("createPlayer") { db in try db.execute(sql: "CREATE TABLE player (name TEXT)") }
            let done = expectation(description: "migrated \(kind)")
            migrator.asyncMigrate(writer) { result in
                do {
                    // The connection is the writer's, before anyone else writes.
                    let db = try result.get()
                    try db.execute(sql: "INSERT INTO player VALUES ('Arthur')")
                } catch {
                    XCTFail("\(error)")
                }
                done.fulfill()
            }
            wait(for: [done], timeout: 30)
            XCTAssertEqual(try writer.read { try String.fetchAll($0, sql: "SELECT name FROM player") }, ["Arthur"])

            migrator.registerMigration("broken") { db in try db.execute(sql: "INSERT INTO missing VALUES (1)") }
            let failed = expectation(description: "failed \(kind)")
            migrator.asyncMigrate(writer) { result in
                if case .failure(let error as DatabaseError) = result {
                    XCTAssertTrue(error.message?.contains("no such table: missing") == true, "\(error)")
                } else {
                    XCTFail("expected a DatabaseError, got \(result)")
                }
                failed.fulfill()
            }
            wait(for: [failed], timeout: 30)
            XCTAssertEqual(try writer.read(migrator.appliedMigrations), ["createPlayer"])
        }
    }

    func testMigrationsRunWithoutTheSchemaSourceUnlessTheyAskForOne() throws {
        var config = keyedConfiguration(passphrase: "secret")
        config.schemaSource = ViewKeys()
        let dbQueue = try DatabaseQueue(path: path("views.sqlite"), configuration: config)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("view") { db in
            try db.execute(sql: "CREATE VIEW playerView AS SELECT 1 AS id, 'Arthur' AS name")
            XCTAssertNil(db.schemaSource)
            XCTAssertThrowsError(try db.primaryKey("playerView"))
            try db.withSchemaSource(ViewKeys()) {
                XCTAssertEqual(try db.primaryKey("playerView").columns, ["id"])
            }
            // Back to none, and the key read through the source is forgotten.
            XCTAssertThrowsError(try db.primaryKey("playerView"))
        }
        try migrator.migrate(dbQueue)
        try dbQueue.read { db in
            XCTAssertNotNil(db.schemaSource)
            XCTAssertEqual(try db.primaryKey("playerView").columns, ["id"])
        }
    }

    func testDisablingDeferredChecksAppliesToLaterRegistrationsOnly() throws {
        let violation = """
            CREATE TABLE parent (id INTEGER PRIMARY KEY);
            CREATE TABLE child (parentId INTEGER REFERENCES parent(id));
            INSERT INTO child VALUES (1);
            """
        var checked = DatabaseMigrator()
        checked.registerMigration("A") { db in try db.execute(sql: violation) }
        checked = checked.disablingDeferredForeignKeyChecks()
        checked.registerMigration("B") { _ in XCTFail("B runs after A failed") }
        XCTAssertThrowsError(try checked.migrate(makeEncryptedQueue("checked.sqlite"))) { error in
            XCTAssertEqual((error as? DatabaseError)?.extendedResultCode, .SQLITE_CONSTRAINT_FOREIGNKEY)
        }

        var unchecked = DatabaseMigrator().disablingDeferredForeignKeyChecks()
        unchecked.registerMigration("A") { db in try db.execute(sql: violation) }
        let dbQueue = try makeEncryptedQueue("unchecked.sqlite")
        try unchecked.migrate(dbQueue)
        XCTAssertEqual(try dbQueue.read(unchecked.appliedMigrations), ["A"])
        XCTAssertEqual(try dbQueue.read { try Bool.fetchOne($0, sql: "PRAGMA foreign_keys") }, true)
    }

    func testSchemaChangesSeeRenamedMigrationsAndTheConnectionsFunctions() throws {
        var config = keyedConfiguration(passphrase: "secret")
        config.prepareDatabase { db in
            db.add(function: DatabaseFunction("defaultName", argumentCount: 0, pure: true) { _ in "Arthur" })
        }
        let dbQueue = try DatabaseQueue(path: path("changes.sqlite"), configuration: config)
        let plaintextFiles = Locked<[String]>([])
        var v1 = DatabaseMigrator()
        v1.registerMigration("1") { db in
            // Where it runs (the app's file, or the scratch copy), the file is encrypted.
            let header = try Data(contentsOf: URL(fileURLWithPath: db.path)).prefix(15)
            if header == Data("SQLite format 3".utf8) { plaintextFiles.mutate { $0.append(db.path) } }
            try db.execute(sql: "CREATE TABLE player (name TEXT); INSERT INTO player VALUES (defaultName())")
        }
        try v1.migrate(dbQueue)
        func scratchDirectories() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())
                .filter { $0.hasPrefix("securestore-migrator-") }
        }
        let before = try scratchDirectories()
        // The scratch copy runs "1" again, with the connection's function and key.
        XCTAssertFalse(try dbQueue.read(v1.hasSchemaChanges))
        XCTAssertEqual(plaintextFiles.value, [])

        var renamed = DatabaseMigrator()
        renamed.registerMigration("1-renamed") { db in
            try db.execute(sql: "CREATE TABLE player (name TEXT); INSERT INTO player VALUES (defaultName())")
        }
        XCTAssertTrue(try dbQueue.read(renamed.hasSchemaChanges), "an applied migration this migrator does not know")

        // Nothing of the scratch copies is left in the temporary directory.
        XCTAssertEqual(try scratchDirectories(), before)
    }
}
