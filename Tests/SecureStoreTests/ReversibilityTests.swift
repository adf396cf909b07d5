import Foundation
import SecureStore
import XCTest

/// `DatabaseMigrator.verifyReversibility`: each down step must give back
/// the schema and the rows it found, on a scratch encrypted database.
final class ReversibilityTests: SecureStoreTestCase {
    private var base: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("Zalora-v1") { db in
            try db.execute(sql: "CREATE TABLE brand (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        } rollback: { db in
            try db.execute(sql: "DROP TABLE brand")
        }
        return migrator
    }

    private func seed(_ db: Database, _ before: String) throws {
        guard try db.tableExists("brand") else { return }
        try db.execute(sql: "INSERT INTO brand (name) VALUES ('Zalora'), ('Asos'), ('Boohoo')")
    }

    func testReversibleMigrationsPass() throws {
        var migrator = base
        migrator.registerMigration("Zalora-v2") { db in
            try db.execute(sql: "CREATE INDEX brand_on_name ON brand(name)")
        } rollback: { db in
            try db.execute(sql: "DROP INDEX brand_on_name")
        }
        let report = try migrator.verifyReversibility(in: makeEncryptedQueue(), seed: seed)
        XCTAssertTrue(report.passed(), "\(report.steps)")
        XCTAssertEqual(report.steps.map(\.identifier), ["Zalora-v1", "Zalora-v2"])
        XCTAssertEqual(report.steps[1].rowCounts, [ReversibilityReport.RowCounts(table: "brand", beforeUp: 3, afterUp: 3, afterDown: 3)])
    }

    func testADownStepThatForgetsAnIndex() throws {
        var migrator = base
        migrator.registerMigration("Zalora-v2") { db in
            try db.execute(sql: "CREATE INDEX brand_on_name ON brand(name)")
        } rollback: { _ in }
        let report = try migrator.verifyReversibility(in: makeEncryptedQueue())
        XCTAssertFalse(report.passed())
        XCTAssertTrue(report.steps[0].isReversible)
        XCTAssertEqual(report.steps[1].schemaNotRestored, ["index brand_on_name: new"])
    }

    func testADownStepThatLosesAColumnsData() throws {
        var migrator = base
        // Up moves the names into `label`; down brings the column back empty.
        migrator.registerMigration("Zalora-v2") { db in
            try db.execute(sql: """
                CREATE TABLE new_brand (id INTEGER PRIMARY KEY, label TEXT NOT NULL);
                INSERT INTO new_brand SELECT id, name FROM brand;
                DROP TABLE brand;
                ALTER TABLE new_brand RENAME TO brand;
                """)
        } rollback: { db in
            try db.execute(sql: """
                CREATE TABLE old_brand (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                INSERT INTO old_brand SELECT id, '' FROM brand;
                DROP TABLE brand;
                ALTER TABLE old_brand RENAME TO brand;
                """)
        }
        let report = try migrator.verifyReversibility(in: makeEncryptedQueue(), seed: seed)
        XCTAssertEqual(report.steps[1].schemaNotRestored, [])
        XCTAssertEqual(report.steps[1].dataNotRestored, ["brand: the values of its 3 rows changed"])
        XCTAssertFalse(report.passed())
    }

    func testMissingDownStepAndAStepThatFailsOnData() throws {
        var migrator = base
        migrator.registerMigration("Zalora-v2") { db in
            try db.execute(sql: "ALTER TABLE brand ADD COLUMN country TEXT")
        }
        migrator.registerMigration("Zalora-v3") { db in
            // Fails only when a name is duplicated, which the seed does.
            try db.execute(sql: "CREATE UNIQUE INDEX brand_on_name ON brand(name)")
        } rollback: { db in
            try db.execute(sql: "DROP INDEX brand_on_name")
        }
        let report = try migrator.verifyReversibility(in: makeEncryptedQueue(), seed: seed)
        XCTAssertEqual(report.steps.map(\.identifier), ["Zalora-v1", "Zalora-v2", "Zalora-v3"])
        XCTAssertFalse(report.steps[1].hasDownStep)
        XCTAssertTrue(report.passed(allowingIrreversible: false) == false)
        XCTAssertTrue(report.steps[2].error?.contains("UNIQUE constraint failed") == true, "\(report.steps[2])")
        XCTAssertFalse(report.passed(allowingIrreversible: true), "a failed step fails whatever")
        // Without data, v3 goes through; v2 is only irreversible.
        let empty = try migrator.verifyReversibility(in: makeEncryptedQueue("empty.sqlite"))
        XCTAssertTrue(empty.passed(allowingIrreversible: true), "\(empty.steps)")
        XCTAssertFalse(empty.passed())
    }

    func testLintOfSwiftMigrations() throws {
        var migrator = base
        migrator.registerMigration("Zalora-v2") { db in
            try db.execute(sql: "DROP TABLE brand")
        }
        migrator.registerMigration("Zalora-v3") { db in
            try db.execute(sql: "INSERT INTO nosuch VALUES (1)")
        } rollback: { _ in }
        let findings = try migrator.lint()
        XCTAssertEqual(findings.map(\.code), ["drop-table", "fails", "missing-down"], "\(findings)")
        XCTAssertEqual(findings[0].description, "Zalora-v2:0: warning drop-table: drops table brand")
        XCTAssertEqual(findings[1].severity, .error)
        XCTAssertTrue(findings[1].message.contains("no such table: nosuch"), findings[1].message)
        XCTAssertEqual(try base.lint(), [])
    }
}
