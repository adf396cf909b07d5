import Foundation
import TestSupport
import XCTest

/// `apply`, `rollback`, their dry runs and `status` refuse (or report)
/// migration files that would break their transaction or change the key,
/// before anything changes.
///
/// Before the authorizer guard, a file with COMMIT in the middle was
/// applied up to the failure and left tables behind while the tool said
/// the database was at the previous migration, and a file with `PRAGMA
/// rekey` was applied with exit 0: the operator's key stopped opening it.
final class ForbiddenStatementTests: MigrateToolTestCase {
    private func migrationsFolder(_ files: [String: String]) throws -> String {
        let folder = path("migrations")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (name, sql) in files { try sql.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8) }
        return folder
    }

    private func tables(_ name: String = "app.db") throws -> String {
        let result = try sqlcipher(name, "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name);")
        XCTAssertEqual(result.status, 0, "the key must still open the file: \(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testCommitInAFileIsRefusedBeforeAnythingChanges() throws {
        let keys = try makeDatabase()
        let folder = try migrationsFolder([
            "0001_one.up.sql": "CREATE TABLE a(x);\n",
            "0002_two.up.sql": "CREATE TABLE b(x);\nCOMMIT;\nCREATE TABLE c(x);\nINSERT INTO nosuch VALUES (1);\n",
        ])
        let before = try sha256OfFile(path("app.db"))
        for extra in [["--dry-run"], [], ["--json"]] {
            let result = try tool(["apply", path("app.db"), "--migrations", folder, "--key-file", keys] + extra)
            XCTAssertEqual(result.status, 78, "\(extra): \(result.stdout) \(result.stderr)")
            XCTAssertTrue(result.stdout.contains("0002_two.up.sql:2"), result.stdout)
            XCTAssertTrue(result.stdout.contains("COMMIT"), result.stdout)
            XCTAssertTrue(result.stdout.contains("nothing was changed"), result.stdout)
        }
        XCTAssertEqual(try sha256OfFile(path("app.db")), before)
        XCTAssertEqual(try tables(), "")
        // No backup was made: nothing ran.
        XCTAssertEqual(try names(in: directory.path).filter { $0.hasSuffix(".backup") }, [])

        let status = try tool(["status", path("app.db"), "--migrations", folder, "--key-file", keys, "--check", "--json"])
        XCTAssertEqual(status.status, 78, status.stderr)
        let report = try XCTUnwrap(try json(status.stdout) as? [String: Any])
        let forbidden = try XCTUnwrap(report["forbiddenStatements"] as? [[String: Any]])
        XCTAssertEqual(forbidden.count, 1)
        XCTAssertEqual(forbidden.first?["line"] as? Int, 2)
        XCTAssertEqual(forbidden.first?["kind"] as? String, "transaction")
        XCTAssertEqual(forbidden.first?["migration"] as? String, "two")
        let text = try tool(["status", path("app.db"), "--migrations", folder, "--key-file", keys])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("refused: \(folder)/0002_two.up.sql:2: COMMIT"), text.stdout)
    }

    func testRekeyInAFileIsRefusedAndTheKeyNeverShows() throws {
        let keys = try makeDatabase()
        let folder = try migrationsFolder(["0001_steal.up.sql": "CREATE TABLE a(x);\nPRAGMA rekey = 'stolen key';\n"])
        let result = try tool(["apply", path("app.db"), "--migrations", folder, "--key-file", keys, "--json"])
        XCTAssertEqual(result.status, 78, result.stdout)
        XCTAssertTrue(result.stdout.contains("PRAGMA rekey = ..."), result.stdout)
        assertNoSecret(result, "stolen key")
        let status = try tool(["status", path("app.db"), "--migrations", folder, "--key-file", keys, "--json"])
        assertNoSecret(status, "stolen key")
        XCTAssertEqual(try tables(), "")
    }

    func testADownFileIsCheckedBeforeTheRollback() throws {
        let keys = try makeDatabase()
        let folder = try migrationsFolder([
            "0001_one.up.sql": "CREATE TABLE a(x);\n",
            "0001_one.down.sql": "DROP TABLE a;\nVACUUM;\n",
        ])
        XCTAssertEqual(try tool(["apply", path("app.db"), "--migrations", folder, "--key-file", keys, "--no-backup"]).status, 0)
        let result = try tool(["rollback", path("app.db"), "--migrations", folder, "--key-file", keys, "--all"])
        XCTAssertEqual(result.status, 78, result.stdout)
        XCTAssertTrue(result.stdout.contains("0001_one.down.sql:2: migration \"one\" refused `VACUUM`"), result.stdout)
        XCTAssertEqual(try tables(), "a securestore_migration_events securestore_migrations")
    }

    func testApplyOnAWALDatabaseLeavesOnlyTheBackup() throws {
        let keys = try makeDatabase()
        let wal = try sqlcipher("app.db", "PRAGMA journal_mode = WAL;")
        XCTAssertEqual(wal.stdout, "wal\n", wal.stderr)
        let result = try tool(["apply", path("app.db"), "--migrations", migrations, "--key-file", keys])
        XCTAssertEqual(result.status, 0, result.stderr)
        let left = try names(in: directory.path).filter { $0.hasPrefix("app.db") }
        XCTAssertEqual(left.count, 2, "\(left)")
        XCTAssertTrue(left.contains("app.db"))
        XCTAssertTrue(left.contains { $0.hasSuffix(".backup") }, "\(left)")
    }
}
