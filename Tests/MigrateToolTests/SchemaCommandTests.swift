import Foundation
import TestSupport
import XCTest

/// `migrate-tool schema` and `diff`, and the drift that `status` explains.
final class SchemaCommandTests: MigrateToolTestCase {
    func testSchemaOfAFileEqualsItsMigrationsAndDiffExplainsDrift() throws {
        let keys = try makeDatabase()
        XCTAssertEqual(try tool(["apply", path("app.db"), "--migrations", migrations, "--key-file", keys, "--no-backup"]).status, 0)

        // The file and its migrations replayed print the same SQL.
        let fromFile = try tool(["schema", path("app.db"), "--key-file", keys])
        XCTAssertEqual(fromFile.status, 0, fromFile.stderr)
        let fromMigrations = try tool(["schema", migrations + "@"])
        XCTAssertEqual(fromMigrations.stdout, fromFile.stdout)
        XCTAssertEqual(try tool(["schema", "--migrations", migrations, "--at", "Zalora-v3"]).stdout, fromFile.stdout)
        XCTAssertEqual(try tool(["schema", "--migrations", migrations, "--at", "Zalora-v1"]).stdout,
                       try tool(["schema", migrations + "@Zalora-v1"]).stdout)
        XCTAssertEqual(try tool(["schema"]).status, 64)
        XCTAssertTrue(fromFile.stdout.hasPrefix("CREATE TABLE \"brandRGDB\""), fromFile.stdout)
        XCTAssertFalse(fromFile.stdout.contains("securestore_migrations"), "the history is left out")
        XCTAssertFalse(fromFile.stdout.contains("securestore_migration_events"), "the audit trail is left out")
        let same = try tool(["diff", path("app.db"), migrations + "@", "--key-file", keys])
        XCTAssertEqual(same.status, 0, same.stdout + same.stderr)
        XCTAssertEqual(same.stdout, "same schema\n")

        // A change made outside migrations: diff and status name it.
        XCTAssertEqual(try sqlcipher("app.db", "CREATE INDEX brand_on_name ON brandRGDB(name);").status, 0)
        let drift = try tool(["diff", migrations + "@", path("app.db"), "--key-file", keys])
        XCTAssertEqual(drift.status, 4)
        XCTAssertEqual(drift.stdout, "index brand_on_name: new\n")
        let status = try tool(["status", path("app.db"), "--migrations", migrations, "--key-file", keys])
        XCTAssertTrue(status.stdout.contains("schema drift: the schema changed outside migrations\n  index brand_on_name: new\n"), status.stdout)
        let apply = try tool(["apply", path("app.db"), "--migrations", migrations, "--key-file", keys])
        XCTAssertEqual(apply.status, 4)
        XCTAssertTrue((apply.stdout + apply.stderr).contains("the schema changed outside migrations since \"Zalora-v3\" (index brand_on_name: new)"), apply.stdout + apply.stderr)
        let json = try tool(["status", path("app.db"), "--migrations", migrations, "--key-file", keys, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(object?["schemaDifferences"] as? [String], ["index brand_on_name: new"])

        // Two points of the migrations: what Zalora-v2 and v3 changed.
        let steps = try tool(["diff", migrations + "@Zalora-v1", migrations + "@Zalora-v3", "--json"])
        XCTAssertEqual(steps.status, 4)
        let differences = try JSONSerialization.jsonObject(with: Data(steps.stdout.utf8)) as? [String: Any]
        XCTAssertFalse((differences?["differences"] as? [String] ?? []).isEmpty, steps.stdout)

        let unknown = try tool(["schema", migrations + "@Nope"])
        XCTAssertEqual(unknown.status, 64)
        XCTAssertTrue(unknown.stderr.contains("has no migration \"Nope\""), unknown.stderr)
        let wrongKey = try tool(["schema", path("app.db")])
        XCTAssertEqual(wrongKey.status, 65, wrongKey.stderr)
    }
}
