import Foundation
import TestSupport
import XCTest

/// `migrate-tool rehearse DB`: the pending migrations on an encrypted copy;
/// the database itself is only read.
final class RehearseCommandTests: MigrateToolTestCase {
    func testRehearsalReportsEachMigrationAndLeavesTheFileAlone() throws {
        let keys = try makeDatabase()
        XCTAssertEqual(try tool(["apply", path("app.db"), "--migrations", migrations, "--key-file", keys,
                                 "--to", "Zalora-v1", "--no-backup"]).status, 0)
        XCTAssertEqual(try sqlcipher("app.db", "INSERT INTO brandRGDB VALUES ('b1', 'i', 'k', 'Zalora'), ('b2', NULL, NULL, NULL);").status, 0)
        let before = try sha256OfFile(path("app.db"))
        let scratch = path("scratch")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: false)

        let result = try tool(["rehearse", path("app.db"), "--migrations", migrations, "--key-file", keys, "--scratch-dir", scratch])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3, result.stdout)
        XCTAssertTrue(lines[0].hasPrefix("Zalora-v2: ") && lines[0].contains(" ms, no rows changed, ") && lines[0].hasSuffix(" bytes, integrity ok"), lines[0])
        // Zalora-v3 rebuilds the table: both rows are copied into the new one.
        XCTAssertTrue(lines[1].hasPrefix("Zalora-v3: ") && lines[1].contains(" ms, brandRGDB_v3 2 rows changed, "), lines[1])
        XCTAssertEqual(lines[2], "integrity: ok; the copy was removed; \(path("app.db")) was not changed")

        XCTAssertEqual(try sha256OfFile(path("app.db")), before)
        XCTAssertEqual(try names(in: scratch), [])
        XCTAssertEqual(try appliedMigrations(), ["Zalora-v1"])

        let json = try tool(["rehearse", path("app.db"), "--migrations", migrations, "--key-file", keys, "--json"])
        let report = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        XCTAssertEqual((report?["steps"] as? [[String: Any]])?.compactMap { $0["identifier"] as? String }, ["Zalora-v2", "Zalora-v3"])
        XCTAssertEqual(report?["integrity"] as? [String], ["ok"])
    }

    func testAMigrationThatFailsOnThisDataFailsTheRehearsalOnly() throws {
        let keys = try makeDatabase()
        let folder = try migrationsDirectory("migrations", brand + [
            ("0002_Unique.up.sql", "CREATE UNIQUE INDEX brand_on_name ON brand(name);"),
            ("0002_Unique.down.sql", "DROP INDEX brand_on_name;"),
        ])
        XCTAssertEqual(try tool(["apply", path("app.db"), "--migrations", folder, "--key-file", keys, "--to", "Brand", "--no-backup"]).status, 0)
        XCTAssertEqual(try sqlcipher("app.db", "INSERT INTO brand (name) VALUES ('Zalora'), ('Zalora');").status, 0)
        let before = try sha256OfFile(path("app.db"))
        let result = try tool(["rehearse", path("app.db"), "--migrations", folder, "--key-file", keys])
        XCTAssertEqual(result.status, 6, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("failed: ") && result.stdout.contains("UNIQUE constraint failed"), result.stdout)
        XCTAssertEqual(try sha256OfFile(path("app.db")), before)

        let wrongKey = try tool(["rehearse", path("app.db"), "--migrations", folder, "--key-env", "NO_SUCH_KEY_VARIABLE"])
        XCTAssertNotEqual(wrongKey.status, 0)
        XCTAssertEqual(try sha256OfFile(path("app.db")), before)
    }
}
