import Foundation
import TestSupport
import XCTest

/// `migrate-tool lint DIR`: findings with codes, severities, files and lines.
final class LintCommandTests: MigrateToolTestCase {

    func testDestructiveChangesAreWarningsThatCanBeAllowed() throws {
        let folder = try migrationsDirectory("destructive", brand + [
            ("0002_Cleanup.up.sql", "-- Start over.\nDELETE FROM brand;\nDROP TABLE brand;\n"),
            ("0002_Cleanup.down.sql", "CREATE TABLE brand (id INTEGER PRIMARY KEY, name TEXT NOT NULL);"),
        ])
        let result = try tool(["lint", folder])
        XCTAssertEqual(result.status, 0, "warnings only: " + result.stdout + result.stderr)
        XCTAssertEqual(result.stdout, """
            \(folder)/0002_Cleanup.up.sql:2: warning unfiltered-write: `DELETE FROM brand;` changes every row of its table
            \(folder)/0002_Cleanup.up.sql:3: warning drop-table: drops table brand
            2 migrations: 0 errors, 2 warnings

            """)
        XCTAssertEqual(try tool(["lint", folder, "--fail-on", "warning"]).status, 9)

        try "-- Start over.\n-- lint: allow destructive\nDELETE FROM brand;\n-- lint: allow drop-table\nDROP TABLE brand;\n"
            .write(toFile: folder + "/0002_Cleanup.up.sql", atomically: true, encoding: .utf8)
        let allowed = try tool(["lint", folder, "--fail-on", "warning"])
        XCTAssertEqual(allowed.status, 0, allowed.stdout)
        XCTAssertEqual(allowed.stdout, "2 migrations: 0 errors, 0 warnings\n")
    }

    func testErrorsFailTheLint() throws {
        let transaction = try migrationsDirectory("transaction", brand + [
            ("0002_Split.up.sql", "CREATE TABLE a (x);\nCOMMIT;\nCREATE TABLE b (x);"),
            ("0002_Split.down.sql", "DROP TABLE b;\nDROP TABLE a;"),
        ])
        let broken = try tool(["lint", transaction, "--json"])
        XCTAssertEqual(broken.status, 9, broken.stdout + broken.stderr)
        let report = try JSONSerialization.jsonObject(with: Data(broken.stdout.utf8)) as? [String: Any]
        let findings = report?["findings"] as? [[String: Any]] ?? []
        let first = try XCTUnwrap(findings.first { $0["code"] as? String == "breaks-transaction" }, broken.stdout)
        XCTAssertEqual(first["line"] as? Int, 2)
        XCTAssertEqual(first["severity"] as? String, "error")
        XCTAssertEqual(first["path"] as? String, transaction + "/0002_Split.up.sql")

        let savepoint = try migrationsDirectory("savepoint", brand + [
            ("0002_Partial.up.sql", "SAVEPOINT half;\nINSERT INTO brand (name) VALUES ('x');\nROLLBACK TO half;\nRELEASE half;"),
            ("0002_Partial.down.sql", "DELETE FROM brand WHERE name = 'x';"),
        ])
        let partial = try tool(["lint", savepoint])
        XCTAssertEqual(partial.status, 0, partial.stdout)
        XCTAssertEqual(partial.stdout.components(separatedBy: "warning savepoint:").count - 1, 3, partial.stdout)
        XCTAssertTrue(partial.stdout.contains("0002_Partial.up.sql:3: warning savepoint: `ROLLBACK TO half;`"), partial.stdout)

        let notNull = try migrationsDirectory("not-null", brand + [
            ("0002_Code.up.sql", "ALTER TABLE brand ADD COLUMN code TEXT NOT NULL;"),
            ("0002_Code.down.sql", "SELECT 1;"),
        ])
        let result = try tool(["lint", notNull])
        XCTAssertEqual(result.status, 9)
        XCTAssertTrue(result.stdout.contains("0002_Code.up.sql:1: error not-null-without-default:"), result.stdout)
        // SQLite 3.15.2 refuses the statement even on an empty table; since
        // 3.37 SQLite refuses it only on a table with rows, so on
        // SQLCipher 4's SQLite the empty scratch database runs it.
        XCTAssertEqual(result.stdout.contains("0002_Code.up.sql:1: error fails:"), CommandLineClient.sqlcipherMajorVersion < 4,
                       result.stdout)
    }

    func testMissingDownStepsUndoneDownStepsAndNamesInAnotherCase() throws {
        let folder = try migrationsDirectory("review", brand + [
            ("0002_Index.up.sql", "CREATE INDEX brand_on_name ON Brand(Name);"),
            ("0002_Index.down.sql", "-- forgot the index\nSELECT 1;"),
            ("0003_Country.up.sql", "ALTER TABLE brand ADD COLUMN country TEXT;"),
        ])
        let result = try tool(["lint", folder])
        XCTAssertEqual(result.status, 9, result.stdout)
        XCTAssertTrue(result.stdout.contains("0002_Index.up.sql:1: warning case-mismatch: `Brand` names `brand`"), result.stdout)
        XCTAssertTrue(result.stdout.contains("0002_Index.up.sql:1: warning case-mismatch: `Name` names `name`"), result.stdout)
        XCTAssertTrue(result.stdout.contains("0002_Index.down.sql:0: error down-not-restoring: the down step does not restore the schema: index brand_on_name: new"), result.stdout)
        XCTAssertTrue(result.stdout.contains("0003_Country.up.sql:0: warning missing-down: migration \"Country\" has no down step"), result.stdout)
    }

    func testTheExampleMigrations() throws {
        let result = try tool(["lint", migrations])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        // Zalora-v3 renames `keywords` to `tags` by a rebuild: worth a look.
        XCTAssertTrue(result.stdout.contains("0003_Zalora-v3.up.sql:12: warning drop-column: drops column brandrgdb.keywords"), result.stdout)
    }
}
