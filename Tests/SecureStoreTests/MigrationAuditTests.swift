import Foundation
import SecureStore
import XCTest

/// An app's `DatabaseMigrator` keeps the audit trail too: the app's name as
/// the program, rollbacks and failed steps as events, events atomic with
/// the step they describe.
final class MigrationAuditTests: SecureStoreTestCase {
    func testAnAppsMigrationsRollbacksAndFailuresAreEvents() throws {
        let dbQueue = try makeEncryptedQueue()
        let started = Date()
        var app = ZaloraMigrations.swiftMigrator()
        try app.migrate(dbQueue, upTo: "Zalora-v1")
        try app.rollback(dbQueue, steps: 1)
        app.auditedProcess = "Zalora 4.2 (build 917)"
        try app.migrate(dbQueue)
        var broken = app
        broken.registerMigration("Zalora-v4") { db in
            try db.execute(sql: "CREATE TABLE half (id INTEGER)")
            try db.execute(sql: "INSERT INTO missing VALUES (1)")
        }
        XCTAssertThrowsError(try broken.migrate(dbQueue))

        let events = try dbQueue.read { db in try DatabaseMigrator.auditEvents(db) }
        XCTAssertEqual(events.map { "\($0.action.rawValue) \($0.identifier) \($0.outcome.prefix(7))" },
                       ["apply Zalora-v1 applied", "rollback Zalora-v1 rolled ", "apply Zalora-v1 applied",
                        "apply Zalora-v2 applied", "apply Zalora-v3 applied", "apply Zalora-v4 failed:"])
        XCTAssertTrue(events[5].outcome.contains("missing"), events[5].outcome)
        XCTAssertEqual(events.map(\.process), [ProcessInfo.processInfo.processName, ProcessInfo.processInfo.processName]
                       + Array(repeating: "Zalora 4.2 (build 917)", count: 4))
        for event in events {
            XCTAssertEqual(event.source, "swift")
            XCTAssertEqual(event.uid, Int(getuid()))
            XCTAssertFalse((event.userName ?? "").isEmpty)
            XCTAssertFalse((event.host ?? "").isEmpty)
            XCTAssertFalse(event.isFromHistoryBeforeAuditing)
            XCTAssertGreaterThanOrEqual(try XCTUnwrap(event.startedAt).timeIntervalSince(started), -1)
            XCTAssertGreaterThanOrEqual(try XCTUnwrap(event.durationMilliseconds), 0)
        }
        // The failed step left nothing but its event.
        XCTAssertEqual(try dbQueue.read { db in try db.tableExists("half") }, false)
        XCTAssertEqual(try dbQueue.read { db in try app.appliedIdentifiers(db) }, ["Zalora-v1", "Zalora-v2", "Zalora-v3"])
        XCTAssertEqual(try dbQueue.read { db in try DatabaseMigrator.auditEvents(db, since: Date().addingTimeInterval(60)) }, [])
    }

    /// As before the trail: a failed first migration leaves the file empty
    /// (its failure is not recorded, since that would create the tables).
    func testAFailedFirstMigrationLeavesNoTrace() throws {
        let dbQueue = try makeEncryptedQueue()
        var migrator = DatabaseMigrator()
        migrator.registerMigration("first") { db in
            try db.execute(sql: "CREATE TABLE a (id INTEGER)")
            try db.execute(sql: "INSERT INTO missing VALUES (1)")
        }
        XCTAssertThrowsError(try migrator.migrate(dbQueue))
        XCTAssertEqual(try dbQueue.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master") }, [])
        XCTAssertEqual(try dbQueue.read { db in try DatabaseMigrator.auditEvents(db) }, [])
    }
}
