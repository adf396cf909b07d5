import Foundation
import TestSupport
import XCTest

/// `--backup-dir`, `--keep-backups`, `backups` and `restore`, end to end on
/// encrypted files (the killed restore is in CrashHarnessTests).
final class BackupRestoreTests: MigrateToolTestCase {
    private var backupDir: String { path("backups") }

    /// Applies the Zalora migrations one at a time with backups in
    /// `backups/`; returns the key file.
    private func migrateStepByStep(keep: Int) throws -> String {
        let keys = try makeDatabase()
        for target in ["Zalora-v1", "Zalora-v2", "Zalora-v3"] {
            let applied = try tool(["apply", path("app.db"), "--migrations", migrations, "--key-file", keys, "--to", target,
                                    "--backup-dir", backupDir, "--keep-backups", String(keep)])
            XCTAssertEqual(applied.status, 0, applied.stderr)
        }
        return keys
    }

    private func listing(_ keys: String?) throws -> [[String: Any]] {
        var arguments = ["backups", path("app.db"), "--backup-dir", backupDir, "--json"]
        if let keys { arguments += ["--key-file", keys] }
        let listed = try tool(arguments)
        XCTAssertEqual(listed.status, 0, listed.stderr)
        return try XCTUnwrap(try json(listed.stdout) as? [[String: Any]])
    }

    func testBackupDirKeepsTheNewestAfterSuccessfulRunsOnly() throws {
        let keys = try migrateStepByStep(keep: 2)
        XCTAssertEqual(try mode(backupDir), 0o700, "a backup folder the tool makes is private")
        var names = try self.names(in: backupDir)
        XCTAssertEqual(names.count, 2, "three runs, --keep-backups 2: \(names)")
        XCTAssertEqual(names, names.sorted(), "ls order is time order")
        for name in names {
            XCTAssertTrue(name.hasPrefix("app.db.") && name.hasSuffix(".backup"), name)
            XCTAssertEqual(try self.mode(backupDir + "/" + name), 0o600)
        }
        XCTAssertFalse(try self.names(in: path("")).contains { $0.hasSuffix(".backup") }, "nothing is written beside the database")
        XCTAssertEqual(try listing(keys).map { $0["migration"] as? String }, ["Zalora-v1", "Zalora-v2"],
                       "the backups taken before v2 and before v3, read from the backups themselves")

        // A failed run keeps every backup, its own included.
        let failing = try migrationsDirectory("failing", [("0001_Broken.up.sql", "CREATE TABLE broken (a); SELECT * FROM missing_table;")])
        let failed = try tool(["apply", path("app.db"), "--migrations", failing, "--no-integrity", "--force", "--key-file", keys,
                               "--backup-dir", backupDir, "--keep-backups", "1"])
        XCTAssertEqual(failed.status, 6, failed.stderr)
        names = try self.names(in: backupDir)
        XCTAssertEqual(names.count, 3, "no backup is removed by a failed run: \(names)")

        // The next successful run removes the older ones, and says so.
        let rolledBack = try tool(["rollback", path("app.db"), "--steps", "1", "--migrations", migrations, "--key-file", keys,
                                   "--backup-dir", backupDir, "--keep-backups", "1"])
        XCTAssertEqual(rolledBack.status, 0, rolledBack.stderr)
        XCTAssertTrue(rolledBack.stdout.contains("3 older backup(s) removed"), rolledBack.stdout)
        XCTAssertEqual(try listing(keys).map { $0["migration"] as? String }, ["Zalora-v3"])
    }

    func testKeepBackupsZeroKeepsAllAndTheDefaultIsFive() throws {
        let keys = try migrateStepByStep(keep: 0)
        XCTAssertEqual(try names(in: backupDir).count, 3)
        for _ in 0..<3 {
            XCTAssertEqual(try tool(["rollback", path("app.db"), "--steps", "1", "--migrations", migrations, "--key-file", keys,
                                     "--backup-dir", backupDir]).status, 0)
        }
        XCTAssertEqual(try names(in: backupDir).count, 5, "the default --keep-backups is 5")
        XCTAssertEqual(try tool(["apply", path("app.db"), "--migrations", migrations, "--key-file", keys, "--keep-backups", "-1"]).status, 64)
    }

    func testBackupsListsTimeSizeAndMigrationOrWhyNot() throws {
        let keys = try migrateStepByStep(keep: 0)
        let withKey = try listing(keys)
        XCTAssertEqual(withKey.map { $0["migration"] as? String }, [nil, "Zalora-v1", "Zalora-v2"])
        XCTAssertEqual(withKey.map { $0["migrationCount"] as? Int }, [0, 1, 2])
        let times = withKey.compactMap { $0["time"] as? String }
        XCTAssertEqual(times, times.sorted())
        for entry in withKey { XCTAssertGreaterThan(entry["size"] as? Int ?? 0, 0) }

        let withoutKey = try listing(nil)
        XCTAssertEqual(withoutKey.count, 3)
        for entry in withoutKey { XCTAssertNotNil(entry["error"], "a backup that does not open says why") }
        let text = try tool(["backups", path("app.db"), "--backup-dir", backupDir, "--key-file", keys])
        XCTAssertEqual(text.stdout.split(separator: "\n").count, 3)
        XCTAssertTrue(text.stdout.contains("at Zalora-v2 (2 migration(s))"), text.stdout)
        // Backups named by release 0.1 (seconds, then -2, -3 in the same
        // second) are listed too, in the order they were taken.
        let anyBackup = try XCTUnwrap(withKey.first?["path"] as? String)
        for name in ["app.db.2026-01-02T030405Z-2.backup", "app.db.2026-01-02T030405Z.backup"] {
            try FileManager.default.copyItem(atPath: anyBackup, toPath: backupDir + "/" + name)
        }
        let legacy = try listing(keys).prefix(2)
        XCTAssertEqual(legacy.map { $0["time"] as? String }, ["2026-01-02T03:04:05.000Z", "2026-01-02T03:04:05.000Z"])
        XCTAssertEqual(legacy.map { ($0["path"] as? String).map { URL(fileURLWithPath: $0).lastPathComponent } },
                       ["app.db.2026-01-02T030405Z.backup", "app.db.2026-01-02T030405Z-2.backup"])
        let none = try tool(["backups", path("other.db")])
        XCTAssertEqual(none.status, 0)
        XCTAssertTrue(none.stdout.contains("no backups"), none.stdout)
    }

    func testRestoreReplacesTheDatabaseAndKeepsTheReplacedOne() throws {
        let keys = try migrateStepByStep(keep: 0)
        XCTAssertEqual(try sqlcipher("app.db", "INSERT INTO brandRGDB (brandId, name) VALUES ('after-v3', 'after v3');").status, 0)
        XCTAssertEqual(chmod(path("app.db"), 0o640), 0)
        let atV1 = try XCTUnwrap(try listing(keys).first { $0["migration"] as? String == "Zalora-v1" }?["path"] as? String)

        let restored = try tool(["restore", path("app.db"), "--from", atV1, "--key-file", keys, "--backup-dir", backupDir, "--json"])
        XCTAssertEqual(restored.status, 0, restored.stderr)
        let report = try XCTUnwrap(try json(restored.stdout) as? [String: Any])
        XCTAssertEqual(report["migration"] as? String, "Zalora-v1")
        XCTAssertEqual(try appliedMigrations(), ["Zalora-v1"], "the sqlcipher CLI reads the restored file")
        XCTAssertEqual(try mode(path("app.db")), 0o640, "the restored database keeps the replaced file's mode")
        XCTAssertFalse(try names(in: path("")).contains { $0.contains("restore") }, "no temporary file is left")

        // The replaced database is a backup now, with the row written after v3.
        let kept = try XCTUnwrap(report["replacedBackup"] as? String)
        XCTAssertEqual(try listing(keys).last?["path"] as? String, kept)
        XCTAssertEqual(try listing(keys).last?["migration"] as? String, "Zalora-v3")
        let back = try tool(["restore", path("app.db"), "--latest", "--key-file", keys, "--backup-dir", backupDir])
        XCTAssertEqual(back.status, 0, back.stderr)
        XCTAssertEqual(try sqlcipher("app.db", "SELECT count(*) FROM brandRGDB WHERE name = 'after v3';").stdout, "1\n")
        XCTAssertTrue(FileManager.default.fileExists(atPath: atV1), "restore never removes the backup it restored")
    }

    func testRestoreOfAMissingDatabase() throws {
        let keys = try migrateStepByStep(keep: 0)
        try FileManager.default.removeItem(atPath: path("app.db"))
        let restored = try tool(["restore", path("app.db"), "--latest", "--key-file", keys, "--backup-dir", backupDir])
        XCTAssertEqual(restored.status, 0, restored.stderr)
        XCTAssertEqual(try appliedMigrations(), ["Zalora-v1", "Zalora-v2"])
        XCTAssertEqual(try mode(path("app.db")), 0o600)
    }

    func testWrongKeyOrDamagedBackupChangesNothing() throws {
        let keys = try migrateStepByStep(keep: 0)
        let before = try sha256OfFile(path("app.db"))
        let backupNames = try names(in: backupDir)
        let latest = backupDir + "/" + backupNames.last!

        let wrongKey = try tool(["restore", path("app.db"), "--latest", "--key-file", keys, "--key-name", "next", "--backup-dir", backupDir])
        XCTAssertEqual(wrongKey.status, 65, wrongKey.stderr)
        XCTAssertTrue(wrongKey.stderr.contains(latest), "the error names the backup: \(wrongKey.stderr)")

        // A flipped byte in a page: SQLCipher's HMAC refuses it.
        var damaged = try Data(contentsOf: URL(fileURLWithPath: latest))
        damaged[damaged.count - 600] ^= 0xFF
        try damaged.write(to: URL(fileURLWithPath: path("damaged.backup")))
        let refused = try tool(["restore", path("app.db"), "--from", path("damaged.backup"), "--key-file", keys, "--backup-dir", backupDir])
        XCTAssertEqual(refused.status, 7, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("damaged"), refused.stderr)

        try damaged.prefix(damaged.count / 2).write(to: URL(fileURLWithPath: path("truncated.backup")))
        let truncated = try tool(["restore", path("app.db"), "--from", path("truncated.backup"), "--key-file", keys, "--backup-dir", backupDir])
        XCTAssertNotEqual(truncated.status, 0)

        let missing = try tool(["restore", path("app.db"), "--latest", "--key-file", keys, "--backup-dir", path("empty")])
        XCTAssertEqual(missing.status, 66, missing.stderr)
        let itself = try tool(["restore", path("app.db"), "--from", path("app.db"), "--key-file", keys])
        XCTAssertEqual(itself.status, 64, itself.stderr)
        XCTAssertEqual(try tool(["restore", path("app.db"), "--key-file", keys]).status, 64, "--from or --latest is required")

        XCTAssertEqual(try sha256OfFile(path("app.db")), before, "the database is unchanged")
        XCTAssertEqual(try names(in: backupDir), backupNames, "no backup was added or removed")
        XCTAssertFalse(try names(in: path("")).contains { $0.contains("restore") }, "no temporary file is left")
    }
}
