import Foundation
import SecureStore
import XCTest

/// Runs the code of the APIOverview and MigratorInDepth articles on
/// encrypted files in a temporary folder.
final class APIOverviewRunTests: DocumentationTestCase {
    func testTheTourOnAnEncryptedFile() async throws {
        let path = path("tour.db")
        let dbQueue = try await APITour.openAndQuery(path: path)
        try APITour.records(dbQueue)
        let names = try await dbQueue.read { db in try String.fetchAll(db, sql: "SELECT name FROM player ORDER BY id") }
        let scores = try await dbQueue.read { db in try Int.fetchAll(db, sql: "SELECT score FROM player ORDER BY id") }
        XCTAssertEqual(names, ["Arthur", "Arthur"])
        XCTAssertEqual(scores, [0, 100], "the NULL score was set to 0")
        XCTAssertFalse(Database.hasPlaintextHeader(path: path), "the file is encrypted")
        try dbQueue.close()

        var config = Configuration()
        config.prepareDatabase { db in try db.usePassphrase("secret") }
        let dbPool = try DatabasePool(path: path, configuration: config)
        // The observation's loop ends when its task is cancelled.
        let observing = Task { try await APITour.observe(dbPool) }
        observing.cancel()
        _ = try? await observing.value
        try dbPool.close()
    }

    func testTheSchemaDSLOnEachLine() throws {
        let dbQueue = try DatabaseQueue(path: path("schema.db"), configuration: {
            var config = Configuration()
            config.prepareDatabase { db in try db.usePassphrase("schema") }
            return config
        }())
        try dbQueue.write { db in try APITour.schema(db) }
        let columns = try dbQueue.read { db in try db.columns(in: "player").map(\.name) }
        XCTAssertEqual(columns, ["id", "fullName", "teamId", "score"])
    }

    func testTheMigratorTour() throws {
        let sql = folder.appendingPathComponent("migrations")
        try FileManager.default.createDirectory(at: sql, withIntermediateDirectories: true)
        try "CREATE TABLE tag (name TEXT);".write(to: sql.appendingPathComponent("0002_Zalora-v2.up.sql"), atomically: true, encoding: .utf8)
        try "DROP TABLE tag;".write(to: sql.appendingPathComponent("0002_Zalora-v2.down.sql"), atomically: true, encoding: .utf8)
        var config = Configuration()
        config.prepareDatabase { db in try db.usePassphrase("migrator") }
        let dbQueue = try DatabaseQueue(path: path("m.db"), configuration: config)
        try APITour.migrate(dbQueue, migrationsDirectory: sql)
        let tables = try dbQueue.read { db in (try db.tableExists("brandRGDB"), try db.tableExists("tag")) }
        XCTAssertTrue(tables.0)
        XCTAssertFalse(tables.1, "rolled back to Zalora-v1")
    }
}
