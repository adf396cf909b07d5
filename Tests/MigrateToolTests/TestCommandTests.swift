import Foundation
import TestSupport
import XCTest

/// `migrate-tool test`: reversibility of every migration, on a scratch
/// encrypted database, with seed data.
final class TestCommandTests: MigrateToolTestCase {

    func testTheExampleMigrationsAreReversible() throws {
        let scratch = path("scratch")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: false)
        let result = try tool(["test", "--migrations", migrations, "--scratch-dir", scratch])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertEqual(result.stdout, """
            Zalora-v1: reversible
            Zalora-v2: reversible
            Zalora-v3: reversible
            3 migrations checked: 3 reversible, 0 not, 0 without a down step

            """)
        XCTAssertEqual(try names(in: scratch), [], "the scratch database is removed")

        let json = try tool(["test", "--migrations", migrations, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(object?["passed"] as? Bool, true)
        XCTAssertEqual((object?["steps"] as? [[String: Any]])?.map { $0["identifier"] as? String }, ["Zalora-v1", "Zalora-v2", "Zalora-v3"])
    }

    func testADownStepThatForgetsAnIndex() throws {
        let folder = try migrationsDirectory("forgets", brand + [
            ("0002_Index.up.sql", "CREATE INDEX brand_on_name ON brand(name);"),
            ("0002_Index.down.sql", "-- forgot to drop the index\nSELECT 1;"),
        ])
        let result = try tool(["test", "--migrations", folder])
        XCTAssertEqual(result.status, 8, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("Index: NOT reversible\n  schema after down: index brand_on_name: new\n"), result.stdout)
    }

    func testSeedDataShowsLostValuesAndAStepThatFailsOnData() throws {
        let folder = try migrationsDirectory("loses", brand + [
            ("0002_Label.up.sql", """
                CREATE TABLE new_brand (id INTEGER PRIMARY KEY, label TEXT NOT NULL);
                INSERT INTO new_brand SELECT id, name FROM brand;
                DROP TABLE brand;
                ALTER TABLE new_brand RENAME TO brand;
                """),
            ("0002_Label.down.sql", """
                CREATE TABLE old_brand (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                INSERT INTO old_brand SELECT id, '' FROM brand;
                DROP TABLE brand;
                ALTER TABLE old_brand RENAME TO brand;
                """),
        ])
        let seed = path("seed.sql")
        try "INSERT INTO brand (name) VALUES ('Zalora');\nINSERT INTO brand (name) VALUES ('Asos');\n"
            .write(toFile: seed, atomically: true, encoding: .utf8)
        let result = try tool(["test", "--migrations", folder, "--seed", seed])
        XCTAssertEqual(result.status, 8, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("""
            Label: NOT reversible
              rows after down: brand: the values of its 2 rows changed
              brand: 2 rows before up, 2 after up, 2 after down
            """), result.stdout)

        // The seed repeats a name: a UNIQUE index fails on the data.
        let unique = try migrationsDirectory("unique", brand + [
            ("0002_Unique.up.sql", "CREATE UNIQUE INDEX brand_on_name ON brand(name);"),
            ("0002_Unique.down.sql", "DROP INDEX brand_on_name;"),
            ("0003_Later.up.sql", "CREATE TABLE later (a);"),
            ("0003_Later.down.sql", "DROP TABLE later;"),
        ])
        try "INSERT INTO brand (name) VALUES ('Zalora'), ('Zalora');".write(toFile: seed, atomically: true, encoding: .utf8)
        let failed = try tool(["test", "--migrations", unique, "--seed", seed])
        XCTAssertEqual(failed.status, 8)
        XCTAssertTrue(failed.stdout.contains("Unique: FAILED: "), failed.stdout)
        XCTAssertTrue(failed.stdout.contains("UNIQUE constraint failed"), failed.stdout)
        XCTAssertFalse(failed.stdout.contains("Later"), "the check stops at the failed step")

        let missing = try tool(["test", "--migrations", folder, "--seed", path("no-such-seed.sql")])
        XCTAssertEqual(missing.status, 66, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("no-such-seed.sql"), missing.stderr)
    }

    func testMigrationsWithoutADownStep() throws {
        let folder = try migrationsDirectory("irreversible", brand + [("0002_Country.up.sql", "ALTER TABLE brand ADD COLUMN country TEXT;")])
        let strict = try tool(["test", "--migrations", folder])
        XCTAssertEqual(strict.status, 8)
        XCTAssertTrue(strict.stdout.contains("Country: no down step (irreversible)"), strict.stdout)
        let allowed = try tool(["test", "--migrations", folder, "--allow-irreversible"])
        XCTAssertEqual(allowed.status, 0, allowed.stdout)
        XCTAssertTrue(allowed.stdout.hasSuffix("2 migrations checked: 1 reversible, 0 not, 1 without a down step\n"), allowed.stdout)
    }
}
