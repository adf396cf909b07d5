import Foundation
import TestSupport
import XCTest

/// The zalora-migrate example: an app's own tool with Swift migrations.
final class EmbeddedMigratorTests: MigrateToolTestCase {
    func testAppToolAppliesAndRollsBackItsSwiftMigrations() throws {
        let keys = try makeDatabase()
        let help = try tool(["--help"], binary: "zalora-migrate")
        XCTAssertTrue(help.stdout.contains("USAGE: zalora-migrate"), help.stdout)

        XCTAssertEqual(try tool(["status", path("app.db"), "--key-file", keys, "--check"], binary: "zalora-migrate").status, 3)
        let applied = try tool(["apply", path("app.db"), "--key-file", keys], binary: "zalora-migrate")
        XCTAssertEqual(applied.status, 0, applied.stdout + applied.stderr)
        XCTAssertTrue(applied.stdout.contains("applied Zalora-v1, Zalora-v2"), applied.stdout)
        XCTAssertEqual(try appliedMigrations(), ["Zalora-v1", "Zalora-v2"])
        XCTAssertEqual(try tool(["status", path("app.db"), "--key-file", keys, "--check"], binary: "zalora-migrate").status, 0)

        let rolledBack = try tool(["rollback", path("app.db"), "--to", "Zalora-v1", "--key-file", keys], binary: "zalora-migrate")
        XCTAssertEqual(rolledBack.status, 0, rolledBack.stdout)
        XCTAssertEqual(try sqlcipher("app.db", "PRAGMA table_info(brandRGDB);").stdout.split(separator: "\n").count, 4)

        // The generic tool sees the Swift history: superseded for files that lack it.
        let generic = try tool(["status", path("app.db"), "--migrations", path("none"), "--key-file", keys])
        XCTAssertEqual(generic.status, 78, "no such migrations directory")
    }
}
