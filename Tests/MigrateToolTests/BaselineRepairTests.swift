import Foundation
import TestSupport
import XCTest

/// `baseline` adopts a database made without the tool; `repair` records
/// reviewed edits.
final class BaselineRepairTests: MigrateToolTestCase {
    private func sql(_ file: String) throws -> String {
        try String(contentsOfFile: migrations + "/" + file, encoding: .utf8)
    }

    func testBaselineAdoptsAMatchingDatabaseAndRefusesAnotherOne() throws {
        let keys = try makeKeyFile()
        // Made by the sqlcipher shell, at Zalora-v2, with no history.
        let shellSQL = try sql("0001_Zalora-v1.up.sql") + sql("0002_Zalora-v2.up.sql")
            + "INSERT INTO brandRGDB (brandId, name) VALUES ('b1', 'Zalora');"
        XCTAssertEqual(try sqlcipher("shell.db", shellSQL).status, 0)
        XCTAssertEqual(try sqlcipher("early.db", try sql("0001_Zalora-v1.up.sql")).status, 0)

        // Only Zalora-v1's schema: refused, with the difference, and unchanged.
        let before = try sha256OfFile(path("early.db"))
        let refused = try tool(["baseline", path("early.db"), "--at", "Zalora-v2", "--migrations", migrations, "--key-file", keys])
        XCTAssertEqual(refused.status, 4, refused.stdout + refused.stderr)
        XCTAssertTrue(refused.stderr.contains("index brandrgdb_on_language: missing"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("column language: missing"), refused.stderr)
        XCTAssertEqual(try sha256OfFile(path("early.db")), before)

        let adopted = try tool(["baseline", path("shell.db"), "--at", "Zalora-v2", "--migrations", migrations, "--key-file", keys])
        XCTAssertEqual(adopted.status, 0, adopted.stdout + adopted.stderr)
        XCTAssertEqual(adopted.stdout, "\(path("shell.db")): recorded as applied (baseline): Zalora-v1, Zalora-v2\n")
        XCTAssertEqual(try sqlcipher("shell.db", "SELECT identifier || ' ' || source FROM securestore_migrations ORDER BY applied_order;").stdout,
                       "Zalora-v1 baseline\nZalora-v2 baseline\n")
        XCTAssertEqual(try tool(["status", path("shell.db"), "--migrations", migrations, "--key-file", keys, "--check"]).status, 3)
        XCTAssertEqual(try tool(["apply", path("shell.db"), "--migrations", migrations, "--key-file", keys, "--no-backup"]).status, 0)
        XCTAssertEqual(try sqlcipher("shell.db", "SELECT name FROM brandRGDB;").stdout, "Zalora\n")

        // A history already: refused; --force skips the schema check only.
        XCTAssertEqual(try tool(["baseline", path("shell.db"), "--at", "Zalora-v1", "--migrations", migrations, "--key-file", keys]).status, 64)
        let forced = try tool(["baseline", path("early.db"), "--at", "Zalora-v2", "--migrations", migrations, "--key-file", keys, "--force"])
        XCTAssertEqual(forced.status, 0, forced.stderr)
    }

    func testRepairRecordsReviewedEdits() throws {
        let keys = try makeDatabase()
        let folder = path("migrations")
        try FileManager.default.copyItem(atPath: migrations, toPath: folder)
        XCTAssertEqual(try tool(["apply", path("app.db"), "--migrations", folder, "--key-file", keys, "--no-backup"]).status, 0)
        let check = ["status", path("app.db"), "--migrations", folder, "--key-file", keys, "--check"]

        // A comment added to an applied file, reviewed: repair records it.
        try (sql("0002_Zalora-v2.up.sql") + "-- reviewed: language codes are ISO 639-1\n")
            .write(toFile: folder + "/0002_Zalora-v2.up.sql", atomically: true, encoding: .utf8)
        XCTAssertEqual(try tool(check).status, 4)
        let repaired = try tool(["repair", path("app.db"), "--migrations", folder, "--key-file", keys])
        XCTAssertEqual(repaired.status, 0, repaired.stderr)
        XCTAssertTrue(repaired.stdout.hasPrefix("\(path("app.db")): Zalora-v2: checksum "), repaired.stdout)
        XCTAssertEqual(try tool(check).status, 0)

        // An index added by hand, reviewed: repair accepts the schema, and says what it accepts.
        XCTAssertEqual(try sqlcipher("app.db", "CREATE INDEX brand_on_name ON brandRGDB(name);").status, 0)
        XCTAssertEqual(try tool(check).status, 4)
        let accepted = try tool(["repair", path("app.db"), "--migrations", folder, "--key-file", keys])
        XCTAssertEqual(accepted.stdout, "\(path("app.db")): Zalora-v3: schema fingerprint updated: index brand_on_name: new\n")
        XCTAssertEqual(try tool(check).status, 0)
        XCTAssertEqual(try tool(["repair", path("app.db"), "--migrations", folder, "--key-file", keys]).stdout,
                       "\(path("app.db")): nothing to repair\n")
    }
}
