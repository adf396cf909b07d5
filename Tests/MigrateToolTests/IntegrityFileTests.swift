import Foundation
import TestSupport
import XCTest

/// `migrate-tool hash DIR` and the commands that refuse a directory that no
/// longer matches its integrity file.
final class IntegrityFileTests: MigrateToolTestCase {
    func testEditedRemovedUnhashedAndOutOfOrderFilesAreRefused() throws {
        let folder = try migrationsDirectory("migrations", brand + [
            ("0002_Country.up.sql", "ALTER TABLE brand ADD COLUMN country TEXT;"),
            ("0005_Later.up.sql", "CREATE TABLE later (a);"),
            ("0005_Later.down.sql", "DROP TABLE later;"),
        ])
        let hashed = try tool(["hash", folder])
        XCTAssertEqual(hashed.status, 0, hashed.stderr)
        XCTAssertEqual(hashed.stdout, "\(folder)/migrations.sum: 5 files\n")
        XCTAssertEqual(try mode(folder + "/migrations.sum"), 0o600)
        let keys = try makeDatabase()
        let matching = ["status", path("app.db"), "--migrations", folder, "--key-file", keys]
        XCTAssertEqual(try tool(matching).status, 0)

        // Edited: every command that reads the directory refuses it, naming the file.
        let before = try sha256OfFile(path("app.db"))
        try "ALTER TABLE brand ADD COLUMN country TEXT NOT NULL DEFAULT '';"
            .write(toFile: folder + "/0002_Country.up.sql", atomically: true, encoding: .utf8)
        for arguments in [matching, ["apply", path("app.db"), "--migrations", folder, "--key-file", keys],
                          ["test", "--migrations", folder], ["lint", folder]] {
            let refused = try tool(arguments)
            XCTAssertEqual(refused.status, 4, "\(arguments[0]): \(refused.stdout)")
            XCTAssertTrue(refused.stderr.contains("0002_Country.up.sql was edited"), refused.stderr)
        }
        XCTAssertEqual(try sha256OfFile(path("app.db")), before, "apply changed nothing")
        XCTAssertEqual(try tool(matching + ["--no-integrity"]).status, 0)

        // Hashed again, then a branch merges 0004 below 0005: out of order.
        XCTAssertEqual(try tool(["hash", folder]).status, 0)
        try "CREATE TABLE branch (a);".write(toFile: folder + "/0004_Branch.up.sql", atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: folder + "/0005_Later.down.sql")
        let merged = try tool(matching)
        XCTAssertEqual(merged.status, 4)
        XCTAssertTrue(merged.stderr.contains("0004_Branch.up.sql is out of order: it is numbered below migrations already in migrations.sum (up to 5)"), merged.stderr)
        XCTAssertTrue(merged.stderr.contains("0005_Later.down.sql was removed"), merged.stderr)

        // A hand-edited integrity file is caught too.
        XCTAssertEqual(try tool(["hash", folder]).status, 0)
        let sum = try String(contentsOfFile: folder + "/migrations.sum", encoding: .utf8)
        try sum.replacingOccurrences(of: "0004_Branch.up.sql\n", with: "").write(toFile: folder + "/migrations.sum", atomically: true, encoding: .utf8)
        let tampered = try tool(matching)
        XCTAssertEqual(tampered.status, 4)
        XCTAssertTrue(tampered.stderr.contains("migrations.sum itself was edited"), tampered.stderr)
    }

    /// Checksums, schema fingerprints and the integrity file recorded by
    /// release 0.1 (a hand-written SHA-256) stay valid with OpenSSL's:
    /// `recorded-v0.1.db` is Examples/migrations applied by that release, and
    /// `recorded-v0.1.sum` the integrity file its `hash` wrote for them.
    func testDigestsRecordedByRelease01StayValid() throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures")
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("recorded-v0.1.db"), to: URL(fileURLWithPath: path("recorded.db")))
        try FileManager.default.copyItem(atPath: migrations, toPath: path("migrations"))
        try? FileManager.default.removeItem(atPath: path("migrations/migrations.sum"))
        let environment = ["FIXTURE_KEY": "fixture key"]
        let status = try tool(["status", path("recorded.db"), "--migrations", path("migrations"), "--key-env", "FIXTURE_KEY", "--check", "--json"],
                              environment: environment)
        XCTAssertEqual(status.status, 0, status.stderr)
        let report = try XCTUnwrap(try json(status.stdout) as? [String: Any])
        XCTAssertEqual(report["current"] as? String, "Zalora-v3")
        XCTAssertEqual(report["schemaDrift"] as? Bool, false)
        XCTAssertEqual((report["checksumMismatches"] as? [Any])?.count, 0)
        XCTAssertEqual(try tool(["hash", path("migrations")]).status, 0)
        XCTAssertEqual(try String(contentsOfFile: path("migrations/migrations.sum"), encoding: .utf8),
                       try String(contentsOf: fixtures.appendingPathComponent("recorded-v0.1.sum"), encoding: .utf8),
                       "hash writes the integrity file release 0.1 wrote")
    }
}
