import Foundation
import TestSupport
import XCTest

final class CommandLineTests: MigrateToolTestCase {
    func testHelpListsCommandsAndExitCodes() throws {
        let help = try tool(["--help"])
        XCTAssertEqual(help.status, 0, help.stderr)
        for word in ["USAGE: migrate-tool", "inspect", "status", "apply", "rollback", "create", "new",
                     "Exit codes:", "75   the database is in use", "10   the database file has other hard links"] {
            XCTAssertTrue(help.stdout.contains(word), "missing \(word) in \(help.stdout)")
        }
        let version = try tool(["--version"])
        XCTAssertEqual(version.status, 0)
        XCTAssertTrue(version.stdout.contains("SQLCipher \(CommandLineClient.sqlcipherMajorVersion)."), version.stdout)
        // Help states the defaults of the library the tool runs on.
        let createHelp = try tool(["create", "--help"])
        let defaults = CommandLineClient.sqlcipherMajorVersion >= 4 ? "256000, PBKDF2-HMAC-SHA512"
            : "1300000 for new files with a passphrase; existing files are tried with 64000, PBKDF2-HMAC-SHA1, older formats, then 1300000"
        let words = createHelp.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        XCTAssertTrue(words.contains("(default: \(defaults), on SQLCipher \(CommandLineClient.sqlcipherVersion))"), words)
    }

    func testUsageErrorsExit64() throws {
        XCTAssertEqual(try tool(["--no-such-option"]).status, 64)
        XCTAssertEqual(try tool(["rollback", path("x.db")]).status, 64, "needs --to or --steps")
        XCTAssertEqual(try tool(["apply", path("x.db"), "--migrations", migrations, "--key-env", "A", "--key-stdin"]).status, 64)
        XCTAssertEqual(try tool(["apply", path("x.db"), "--migrations", migrations, "--kdf-iter", "0"]).status, 64)
        let noKeyCreate = try tool(["create", path("x.db")])
        XCTAssertEqual(noKeyCreate.status, 64, noKeyCreate.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("x.db")))
    }

    func testCreateMakesAPrivateEncryptedFile() throws {
        try makeDatabase()
        let attributes = try FileManager.default.attributesOfItem(atPath: path("app.db"))
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        let header = try Data(contentsOf: URL(fileURLWithPath: path("app.db"))).prefix(16)
        XCTAssertNotEqual(header, Data("SQLite format 3\0".utf8))
        XCTAssertEqual(try sqlcipher("app.db", "SELECT count(*) FROM sqlite_master;").stdout, "0\n")
        XCTAssertNotEqual(try CommandLineClient.sqlite3(path("app.db"), sql: "SELECT 1 FROM sqlite_master;").status, 0)

        let again = try tool(["create", path("app.db"), "--key-file", try makeKeyFile("k2")])
        XCTAssertEqual(again.status, 73, again.stderr)
        XCTAssertTrue(again.stderr.contains("exists already"), again.stderr)
    }

    func testApplyInspectRollbackEndToEnd() throws {
        let keys = try makeDatabase()
        let applied = try tool(["apply", path("app.db"), "--migrations", migrations, "--key-file", keys])
        XCTAssertEqual(applied.status, 0, applied.stderr)
        XCTAssertTrue(applied.stdout.contains("applied Zalora-v1, Zalora-v2, Zalora-v3"), applied.stdout)
        XCTAssertEqual(try appliedMigrations(), ["Zalora-v1", "Zalora-v2", "Zalora-v3"])

        // The backup is an encrypted copy with the same key.
        let backups = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".backup") }
        XCTAssertEqual(backups.count, 1)
        XCTAssertEqual(try sqlcipher(backups[0], "SELECT count(*) FROM sqlite_master;").status, 0)
        XCTAssertNotEqual(try CommandLineClient.sqlite3(path(backups[0]), sql: "SELECT count(*) FROM sqlite_master;").status, 0)

        let inspect = try tool(["inspect", path("app.db"), "--key-file", keys, "--migrations", migrations, "--integrity", "--json"])
        XCTAssertEqual(inspect.status, 0, inspect.stderr)
        let report = try XCTUnwrap(try json(inspect.stdout) as? [String: Any])
        XCTAssertEqual(report["encrypted"] as? Bool, true)
        let line4 = CommandLineClient.sqlcipherMajorVersion >= 4
        XCTAssertEqual(report["sqlcipherVersion"] as? String, CommandLineClient.sqlcipherVersion)
        XCTAssertEqual(report["integrity"] as? String, "ok")
        // The settings the file was really opened with.
        let cipher = report["cipherSettings"] as? [String: Any]
        XCTAssertEqual(cipher?["kdfIter"] as? Int, line4 ? 256_000 : 64000)
        XCTAssertEqual(cipher?["pageSize"] as? Int, line4 ? 4096 : 1024)
        XCTAssertEqual(cipher?["kdfAlgorithm"] as? String, line4 ? "PBKDF2_HMAC_SHA512" : "PBKDF2_HMAC_SHA1")
        XCTAssertEqual(cipher?["hmacAlgorithm"] as? String, line4 ? "HMAC_SHA512" : "HMAC_SHA1")
        XCTAssertEqual(cipher?["format"] as? String, line4 ? "SQLCipher 4" : "SQLCipher 3")
        let history = try XCTUnwrap((report["migrations"] as? [String: Any])?["applied"] as? [[String: Any]])
        XCTAssertEqual(history.compactMap { $0["identifier"] as? String }, ["Zalora-v1", "Zalora-v2", "Zalora-v3"])
        XCTAssertEqual((history[0]["checksum"] as? String)?.count, 64)
        XCTAssertEqual((report["migrations"] as? [String: Any])?["pending"] as? [String], [])
        let tables = try XCTUnwrap(report["tables"] as? [[String: Any]])
        XCTAssertTrue(tables.contains { $0["name"] as? String == "brandRGDB" && $0["rows"] as? Int == 0 })

        let text = try tool(["inspect", path("app.db"), "--key-file", keys])
        XCTAssertTrue(text.stdout.contains("encrypted:      yes"), text.stdout)

        let rolledBack = try tool(["rollback", path("app.db"), "--steps", "1", "--migrations", migrations, "--key-file", keys, "--json"])
        XCTAssertEqual(rolledBack.status, 0, rolledBack.stderr)
        let results = try XCTUnwrap(try json(rolledBack.stdout) as? [[String: Any]])
        XCTAssertEqual(results.first?["status"] as? String, "rolled-back")
        XCTAssertEqual(results.first?["steps"] as? [String], ["Zalora-v3"])
        XCTAssertEqual(try appliedMigrations(), ["Zalora-v1", "Zalora-v2"])

        // Without the files, the down SQL stored in the database is used.
        let fromHistory = try tool(["rollback", path("app.db"), "--to", "Zalora-v1", "--key-file", keys])
        XCTAssertEqual(fromHistory.status, 0, fromHistory.stderr)
        XCTAssertEqual(try appliedMigrations(), ["Zalora-v1"])
        XCTAssertEqual(try sqlcipher("app.db", "PRAGMA table_info(brandRGDB);").stdout.split(separator: "\n").count, 4)

        let up = try tool(["apply", path("app.db"), "--migrations", migrations, "--key-file", keys, "--to", "Zalora-v2", "--no-backup"])
        XCTAssertEqual(up.status, 0, up.stderr)
        XCTAssertEqual(try appliedMigrations(), ["Zalora-v1", "Zalora-v2"])
    }

    func testDryRunChangesNothing() throws {
        let keys = try makeDatabase()
        let before = try sha256OfFile(path("app.db"))
        let dryRun = try tool(["apply", path("app.db"), "--migrations", migrations, "--key-file", keys, "--dry-run", "--json"])
        XCTAssertEqual(dryRun.status, 0, dryRun.stderr)
        let results = try XCTUnwrap(try json(dryRun.stdout) as? [[String: Any]])
        XCTAssertEqual(results.first?["status"] as? String, "planned")
        XCTAssertEqual(results.first?["steps"] as? [String], ["Zalora-v1", "Zalora-v2", "Zalora-v3"])
        XCTAssertEqual(try sha256OfFile(path("app.db")), before)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".backup") }, [])
    }

    func testStatusCheckExitCodes() throws {
        let keys = try makeDatabase()
        let folder = path("migrations")
        try FileManager.default.copyItem(atPath: migrations, toPath: folder)
        func status() throws -> CommandLineClient.Result {
            try tool(["status", path("app.db"), "--migrations", folder, "--key-file", keys, "--check"])
        }
        XCTAssertEqual(try status().status, 3, "pending")
        XCTAssertEqual(try tool(["apply", path("app.db"), "--migrations", folder, "--key-file", keys]).status, 0)
        let clean = try status()
        XCTAssertEqual(clean.status, 0, clean.stderr)
        XCTAssertTrue(clean.stdout.contains("at Zalora-v3, 0 pending"), clean.stdout)

        // An edited file: drift, and apply refuses.
        let file = folder + "/0001_Zalora-v1.up.sql"
        try (String(contentsOfFile: file, encoding: .utf8) + "\n-- edited\n").write(toFile: file, atomically: true, encoding: .utf8)
        XCTAssertEqual(try status().status, 4)
        try "SELECT 1;\n".write(toFile: folder + "/0004_extra.up.sql", atomically: true, encoding: .utf8)
        let refused = try tool(["apply", path("app.db"), "--migrations", folder, "--key-file", keys])
        XCTAssertEqual(refused.status, 4, refused.stdout)
        XCTAssertTrue(refused.stdout.contains("edited after it was applied"), refused.stdout)
        XCTAssertEqual(try tool(["apply", path("app.db"), "--migrations", folder, "--key-file", keys, "--force"]).status, 0)

        // An older release: superseded.
        try FileManager.default.removeItem(atPath: folder + "/0004_extra.up.sql")
        try FileManager.default.removeItem(atPath: file)
        try FileManager.default.copyItem(atPath: migrations + "/0001_Zalora-v1.up.sql", toPath: file)
        XCTAssertEqual(try status().status, 5)
        let superseded = try tool(["apply", path("app.db"), "--migrations", folder, "--key-file", keys])
        XCTAssertEqual(superseded.status, 5, superseded.stdout)

        let json = try tool(["status", path("app.db"), "--migrations", folder, "--key-file", keys, "--json"])
        XCTAssertEqual(json.status, 0)
        let report = try XCTUnwrap(try self.json(json.stdout) as? [String: Any])
        XCTAssertEqual(report["superseded"] as? [String], ["extra"])
        XCTAssertEqual(report["current"] as? String, "extra")
    }

    func testFailedMigrationLeavesTheLastGoodOne() throws {
        let keys = try makeDatabase()
        let folder = path("migrations")
        try FileManager.default.copyItem(atPath: migrations, toPath: folder)
        try "CREATE TABLE ok (a);\nINSERT INTO missing VALUES (1);\n".write(toFile: folder + "/0004_broken.up.sql", atomically: true, encoding: .utf8)
        let result = try tool(["apply", path("app.db"), "--migrations", folder, "--key-file", keys])
        XCTAssertEqual(result.status, 6, result.stdout)
        XCTAssertTrue(result.stdout.contains("0004_broken.up.sql:2"), result.stdout)
        XCTAssertTrue(result.stdout.contains("left at \"Zalora-v3\""), result.stdout)
        XCTAssertEqual(try appliedMigrations(), ["Zalora-v1", "Zalora-v2", "Zalora-v3"])
        XCTAssertEqual(try sqlcipher("app.db", "SELECT count(*) FROM sqlite_master WHERE name = 'ok';").stdout, "0\n")
    }

    func testNewScaffoldsTheNextMigration() throws {
        let folder = path("migrations")
        try FileManager.default.copyItem(atPath: migrations, toPath: folder)
        let created = try tool(["new", "Zalora-v4", "--migrations", folder])
        XCTAssertEqual(created.status, 0, created.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/0004_Zalora-v4.up.sql"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/0004_Zalora-v4.down.sql"))
        XCTAssertEqual(try tool(["new", "Zalora-v4", "--migrations", folder]).status, 78, "duplicate name")
        XCTAssertEqual(try tool(["new", "Zalora-v5", "--migrations", folder]).status, 0, "an empty scaffold does not block the next")
        XCTAssertEqual(try tool(["new", "bad name", "--migrations", folder]).status, 64)
        // An empty up file is refused when applied, naming the file.
        let keys = try makeDatabase()
        let apply = try tool(["apply", path("app.db"), "--migrations", folder, "--key-file", keys])
        XCTAssertEqual(apply.status, 78, apply.stderr)
        XCTAssertTrue(apply.stderr.contains("0004_Zalora-v4.up.sql:1: the up file has no SQL statement"), apply.stderr)
    }
}

/// Progress goes to a terminal only.
final class ProgressDisplayTests: MigrateToolTestCase {
    func testProgressOnATerminalOnly() throws {
        let keys = try makeDatabase()
        let binary = Self.productsDirectory.appendingPathComponent("migrate-tool").path
        let command = "\(binary) apply \(path("app.db")) --migrations \(migrations) --key-file \(keys) --no-backup --to Zalora-v2"
        // script(1) runs the tool on a pseudo-terminal.
        let onTerminal = try CommandLineClient.run("/usr/bin/script", ["-qec", command, "/dev/null"])
        XCTAssertEqual(onTerminal.status, 0, onTerminal.stdout)
        XCTAssertTrue(onTerminal.stdout.contains("applying Zalora-v2"), onTerminal.stdout)

        let piped = try tool(["apply", path("app.db"), "--migrations", migrations, "--key-file", keys, "--no-backup"])
        XCTAssertEqual(piped.status, 0)
        XCTAssertEqual(piped.stderr, "", "no progress when output is not a terminal")
        XCTAssertFalse(piped.stdout.contains("applying"), piped.stdout)
    }
}

/// `inspect --dump`.
final class InspectDumpTests: MigrateToolTestCase {
    /// `inspect --dump`: the schema and every row, in the chosen format.
    func testInspectDumpPrintsContent() throws {
        let keys = try makeDatabase()
        XCTAssertEqual(try tool(["apply", path("app.db"), "--migrations", migrations, "--key-file", keys, "--no-backup"]).status, 0)
        XCTAssertEqual(try sqlcipher("app.db", "INSERT INTO brandRGDB (brandId, name) VALUES ('b1', 'Zalora');").status, 0)
        let dumped = try tool(["inspect", path("app.db"), "--key-file", keys, "--dump"])
        XCTAssertEqual(dumped.status, 0, dumped.stderr)
        XCTAssertTrue(dumped.stdout.contains("\nsqlite_master\nCREATE TABLE \"brandRGDB\""), dumped.stdout)
        XCTAssertTrue(dumped.stdout.hasSuffix("\nbrandRGDB\nb1|||Zalora|\n"), dumped.stdout)
        XCTAssertFalse(dumped.stdout.contains("securestore_migrations ("), "the history table is left out")
        // The summary counts the audit trail's rows; the dump leaves it out.
        XCTAssertTrue(dumped.stdout.contains("  securestore_migration_events: 3 row(s)\n"), dumped.stdout)
        XCTAssertFalse(dumped.stdout.contains("CREATE TABLE securestore_migration_events"), "the audit trail is left out")
        XCTAssertFalse(dumped.stdout.contains("\nsecurestore_migration_events\n"), "its rows too")
        let quoted = try tool(["inspect", path("app.db"), "--key-file", keys, "--dump", "--dump-format", "quote"])
        XCTAssertTrue(quoted.stdout.hasSuffix("\nbrandRGDB\n'b1',NULL,NULL,'Zalora',NULL\n"), quoted.stdout)
        XCTAssertEqual(try tool(["inspect", path("app.db"), "--key-file", keys, "--dump", "--json"]).status, 64)
    }
}
