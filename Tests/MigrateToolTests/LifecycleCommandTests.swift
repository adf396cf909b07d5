import Foundation
import TestSupport
import XCTest

/// encrypt, decrypt, rekey, upgrade, verify, backup through the binary.
final class LifecycleCommandTests: MigrateToolTestCase {
    /// A plaintext database with the example migrations applied by the tool.
    private func makePlaintextWithHistory(_ name: String = "plain.db") throws {
        XCTAssertEqual(try CommandLineClient.sqlite3(path(name), sql: "PRAGMA user_version = 9; CREATE TABLE extra (a); INSERT INTO extra VALUES (1);").status, 0)
        let applied = try tool(["apply", path(name), "--migrations", migrations, "--no-backup"])
        XCTAssertEqual(applied.status, 0, applied.stdout + applied.stderr)
    }

    private func cli(_ name: String, key: String, settings: String = "", _ sql: String) throws -> String {
        let result = try CommandLineClient.sqlcipher(path(name), preamble: "PRAGMA key = '\(key)'; \(settings)", sql: sql)
        return result.status == 0 ? result.stdout : "error"
    }

    func testEncryptInPlaceKeepsHistoryAndUserVersion() throws {
        try makePlaintextWithHistory()
        let keys = try makeKeyFile()
        let result = try tool(["encrypt", path("plain.db"), "--key-file", keys, "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        assertNoSecret(result, passphrase)
        let report = try XCTUnwrap(try json(result.stdout) as? [String: Any])
        XCTAssertEqual(report["userVersion"] as? Int, 9)
        XCTAssertEqual(try cli("plain.db", key: passphrase, "PRAGMA user_version; SELECT count(*) FROM securestore_migrations;"), "9\n3\n")
        XCTAssertNotEqual(try CommandLineClient.sqlite3(path("plain.db"), sql: "SELECT count(*) FROM extra;").status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("plain.db.plaintext")), "no plaintext kept by default")
        let status = try tool(["status", path("plain.db"), "--migrations", migrations, "--key-file", keys, "--check"])
        XCTAssertEqual(status.status, 0, status.stdout + status.stderr)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("securestore-tmp") }
        XCTAssertEqual(leftovers, [])

        // A retry of a finished encrypt succeeds with nothing to do; with
        // another key the file is refused, unchanged.
        let before = try sha256OfFile(path("plain.db"))
        let again = try tool(["encrypt", path("plain.db"), "--key-file", keys])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains("already encrypted with this key"), again.stdout)
        XCTAssertEqual(try tool(["encrypt", path("plain.db"), "--key-env", "K"], environment: ["K": "another key"]).status, 65)
        XCTAssertEqual(try sha256OfFile(path("plain.db")), before)
    }

    func testEncryptToOutputAndKeepPlaintext() throws {
        try makePlaintextWithHistory()
        let keys = try makeKeyFile()
        XCTAssertEqual(try tool(["encrypt", path("plain.db"), "--output", path("enc.db"), "--key-file", keys]).status, 0)
        XCTAssertEqual(try CommandLineClient.sqlite3(path("plain.db"), sql: "SELECT count(*) FROM extra;").stdout, "1\n")
        XCTAssertEqual(try tool(["encrypt", path("plain.db"), "--output", path("enc.db"), "--key-file", keys]).status, 73)
        XCTAssertEqual(try tool(["encrypt", path("plain.db"), "--key-file", keys, "--keep-plaintext"]).status, 0)
        XCTAssertEqual(try CommandLineClient.sqlite3(path("plain.db.plaintext"), sql: "SELECT count(*) FROM extra;").stdout, "1\n")
        XCTAssertEqual(try cli("plain.db", key: passphrase, "SELECT count(*) FROM extra;"), "1\n")
    }

    func testDecryptNeedsAcknowledgement() throws {
        let keys = try makeDatabase()
        XCTAssertEqual(try tool(["decrypt", path("app.db"), "--output", path("out.db"), "--key-file", keys]).status, 64)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.db")))
        let result = try tool(["decrypt", path("app.db"), "--output", path("out.db"), "--key-file", keys, "--allow-plaintext"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try CommandLineClient.sqlite3(path("out.db"), sql: "SELECT count(*) FROM sqlite_master;").status, 0)
    }

    func testRekeyWithNewKeyAndSettings() throws {
        let keys = try makeDatabase()
        XCTAssertEqual(try tool(["apply", path("app.db"), "--migrations", migrations, "--key-file", keys, "--no-backup"]).status, 0)
        let newSecret = "rotated-\(UUID().uuidString)"
        let result = try tool(["rekey", path("app.db"), "--key-file", keys, "--new-key-env", "NEW_KEY", "--new-kdf-iter", "128000"],
                              environment: ["NEW_KEY": newSecret])
        XCTAssertEqual(result.status, 0, result.stderr)
        assertNoSecret(result, newSecret)
        assertNoSecret(result, passphrase)
        XCTAssertEqual(try cli("app.db", key: passphrase, "SELECT count(*) FROM securestore_migrations;"), "error")
        XCTAssertEqual(try cli("app.db", key: newSecret, settings: "PRAGMA kdf_iter = 128000;", "SELECT count(*) FROM securestore_migrations;"), "3\n")

        // Settings only: the same key, a bigger page.
        let settingsOnly = try tool(["rekey", path("app.db"), "--key-env", "NEW_KEY", "--kdf-iter", "128000", "--new-page-size", "4096", "--new-kdf-iter", "128000"],
                                    environment: ["NEW_KEY": newSecret])
        XCTAssertEqual(settingsOnly.status, 0, settingsOnly.stderr)
        XCTAssertEqual(try cli("app.db", key: newSecret, settings: "PRAGMA kdf_iter = 128000; PRAGMA cipher_page_size = 4096;", "SELECT count(*) FROM securestore_migrations;"), "3\n")
        XCTAssertEqual(try tool(["rekey", path("app.db"), "--key-env", "NEW_KEY"], environment: ["NEW_KEY": newSecret]).status, 64, "nothing new given")
    }

    /// Key rotation across a fleet: several files, --jobs, --fail-fast, a
    /// summary and --json; a file another key opens fails alone; a retry
    /// finishes the job.
    func testRekeySeveralFiles() throws {
        let keys = try makeDatabase("a.db")
        for name in ["b.db", "c.db"] { XCTAssertEqual(try tool(["create", path(name), "--key-file", keys]).status, 0) }
        let environment = ["OTHER": "another key", "NEXT": "the next key"]
        XCTAssertEqual(try tool(["create", path("other.db"), "--key-env", "OTHER"] + Self.suiteKDFArguments, environment: environment).status, 0)
        let files = [path("a.db"), path("other.db"), path("b.db"), path("c.db")]
        let otherBefore = try sha256OfFile(path("other.db"))

        let rotated = try tool(["rekey"] + files + ["--key-file", keys, "--new-key-env", "NEXT", "--jobs", "2", "--json"]
                               + Self.suiteNewKDFArguments, environment: environment)
        XCTAssertEqual(rotated.status, 65, "the first failed file's code: \(rotated.stderr)")
        let output = try XCTUnwrap(try json(rotated.stdout) as? [String: Any])
        XCTAssertEqual(output["summary"] as? [String: Int],
                       ["files": 4, "rekeyed": 3, "alreadyRekeyed": 0, "failed": 1, "skipped": 0])
        let results = try XCTUnwrap(output["results"] as? [[String: Any]])
        XCTAssertEqual(results.map { $0["file"] as? String }, files)
        XCTAssertEqual(results.map { $0["status"] as? String }, ["rekeyed", "failed", "rekeyed", "rekeyed"])
        XCTAssertEqual(results[1]["exitCode"] as? Int, 65)
        XCTAssertEqual(try sha256OfFile(path("other.db")), otherBefore, "the file another key opens is unchanged")
        for name in ["a.db", "b.db", "c.db"] {
            let reads = try CommandLineClient.sqlcipher(path(name), preamble: "PRAGMA key = 'the next key';", sql: "SELECT count(*) FROM sqlite_master;")
            XCTAssertEqual(reads.status, 0, "\(name): \(reads.stderr)")
        }

        // The retry: done files say so; the text output has a summary.
        let retry = try tool(["rekey", path("a.db"), path("b.db"), "--key-file", keys, "--new-key-env", "NEXT"] + Self.suiteNewKDFArguments,
                             environment: environment)
        XCTAssertEqual(retry.status, 0, retry.stderr)
        XCTAssertTrue(retry.stdout.contains("\(path("a.db")): already re-keyed"), retry.stdout)
        XCTAssertTrue(retry.stdout.contains("2 file(s): 0 re-keyed, 2 already re-keyed, 0 failed, 0 skipped"), retry.stdout)

        // --fail-fast, one job at a time: the files after the failure are skipped.
        let fast = try tool(["rekey", path("missing.db"), path("a.db"), "--key-env", "NEXT", "--new-key-env", "OTHER", "--fail-fast"]
                            + Self.suiteKDFArguments, environment: environment)
        XCTAssertEqual(fast.status, 66, fast.stderr)
        XCTAssertTrue(fast.stdout.contains("\(path("a.db")): skipped (--fail-fast)"), fast.stdout)
    }

    func testWrongKeyLeavesEveryFileUnchanged() throws {
        _ = try makeDatabase()
        let before = try sha256OfFile(path("app.db"))
        let wrong = ["--key-env", "WRONG"] + Self.suiteKDFArguments
        let env = ["WRONG": "not-the-key", "NEW": "whatever"]
        for command in [["rekey", path("app.db"), "--new-key-env", "NEW"], ["decrypt", path("app.db"), "--output", path("o.db"), "--allow-plaintext"],
                        ["backup", path("app.db"), "--output", path("b.db")], ["upgrade", path("app.db")], ["verify", path("app.db")]] {
            let result = try tool(command + wrong, environment: env)
            XCTAssertEqual(result.status, 65, "\(command[0]): \(result.stdout) \(result.stderr)")
            assertNoSecret(result, "not-the-key")
        }
        XCTAssertEqual(try sha256OfFile(path("app.db")), before)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        XCTAssertEqual(names.filter { $0.contains("securestore-tmp") || $0.hasSuffix(".backup") || $0 == "o.db" || $0 == "b.db" }, [])
    }

    /// Every SQLCipher 1.x/2.x variant that SQLCipher 3.4.1 reads with the
    /// right settings: 2.0 files from big-endian devices and 2.0 betas were
    /// refused as "wrong key" before (cipher_migrate does not try them).
    static let legacyFormats: [(name: String, settings: String, format: String)] = [
        ("v2.db", "PRAGMA cipher_compatibility = 3; PRAGMA kdf_iter = 4000;", "SQLCipher 2"),
        ("v1.db", "PRAGMA cipher_compatibility = 3; PRAGMA kdf_iter = 4000; PRAGMA cipher_use_hmac = OFF;", "SQLCipher 1"),
        ("v2-be.db", "PRAGMA cipher_compatibility = 3; PRAGMA kdf_iter = 4000; PRAGMA cipher_hmac_pgno = be;", "SQLCipher 2, big-endian device"),
        ("v2-beta.db", "PRAGMA cipher_compatibility = 3; PRAGMA kdf_iter = 4000; PRAGMA cipher_hmac_salt_mask = \"x'00'\";", "SQLCipher 2.0 beta"),
        ("v2-beta-be.db", "PRAGMA cipher_compatibility = 3; PRAGMA kdf_iter = 4000; PRAGMA cipher_hmac_pgno = be; PRAGMA cipher_hmac_salt_mask = \"x'00'\";",
         "SQLCipher 2.0 beta, big-endian device"),
    ]

    // One test per format, side by side. The line's newest older format
    // (SQLCipher 3 on SQLCipher 4, 2 on 3.4.1) is upgraded with the
    // defaults (a new file's iteration count) and tried with a wrong key
    // without a count (every format searched); the others with the
    // suite's count.

    func testUpgradeOfSQLCipher3OnSQLCipher4() throws {
        try XCTSkipIf(CommandLineClient.sqlcipherMajorVersion < 4, "SQLCipher 3 is the current format of SQLCipher 3.4.1")
        try upgrade([("v3.db", "PRAGMA cipher_compatibility = 3;", "SQLCipher 3")], withDefaults: true)
    }

    func testUpgradeOfSQLCipher2() throws {
        try upgrade([Self.legacyFormats[0]], withDefaults: CommandLineClient.sqlcipherMajorVersion < 4)
    }

    func testUpgradeOfSQLCipher1() throws { try upgrade([Self.legacyFormats[1]], withDefaults: false) }

    /// A variant only `upgrade` finds (after every other format).
    func testUpgradeOfSQLCipher2FromABigEndianDevice() throws { try upgrade([Self.legacyFormats[2]], withDefaults: false) }

    /// The variants only `upgrade` finds (after every other format).
    func testUpgradeOfSQLCipher2Betas() throws { try upgrade(Array(Self.legacyFormats[3...]), withDefaults: false) }

    private func upgrade(_ formats: [(name: String, settings: String, format: String)], withDefaults: Bool) throws {
        let current = CommandLineClient.sqlcipherMajorVersion >= 4 ? "SQLCipher 4" : "SQLCipher 3"
        for (name, settings, format) in formats {
            let newCount = withDefaults ? [] : Self.suiteNewKDFArguments
            let made = try CommandLineClient.sqlcipher(path(name), preamble: "PRAGMA key = '\(passphrase)'; \(settings)",
                                                       sql: "CREATE TABLE t (a); INSERT INTO t VALUES ('old');")
            XCTAssertEqual(made.status, 0, made.stderr)
            let keys = try makeKeyFile("keys-\(name)", pinsKDF: false)
            // The formats the library's open detects (SQLCipher 3, 2, 1) are
            // read, and named; the rare variants only `upgrade` finds.
            let inspect = try tool(["inspect", path(name), "--key-file", keys])
            if ["SQLCipher 3", "SQLCipher 2", "SQLCipher 1"].contains(format) {
                XCTAssertEqual(inspect.status, 0, inspect.stderr)
                XCTAssertTrue(inspect.stdout.contains("cipher:         \(format) format: "), inspect.stdout)
            } else {
                XCTAssertEqual(inspect.status, 65, "unreadable before")
            }
            let wrongCount = withDefaults ? [] : Self.suiteKDFArguments
            let wrong = try tool(["upgrade", path(name), "--key-env", "WRONG"] + wrongCount, environment: ["WRONG": "not the key"])
            XCTAssertEqual(wrong.status, 65, wrong.stderr)
            XCTAssertTrue(wrong.stderr.contains("wrong"), wrong.stderr)
            let result = try tool(["upgrade", path(name), "--key-file", keys, "--json"] + newCount)
            XCTAssertEqual(result.status, 0, result.stderr)
            let report = try json(result.stdout) as? [String: Any]
            XCTAssertEqual(report?["note"] as? String, "upgraded from \(format)")
            XCTAssertEqual((report?["cipherSettings"] as? [String: Any])?["format"] as? String, current, "the new file's format")
            let backup = try XCTUnwrap(report?["backup"] as? String)
            XCTAssertEqual(try cli(name, key: passphrase, settings: withDefaults ? Self.newFileKDFPragma : "", "SELECT a FROM t;"), "old\n")
            XCTAssertEqual(try cli(URL(fileURLWithPath: backup).lastPathComponent, key: passphrase, settings: settings, "SELECT a FROM t;"), "old\n",
                           "the backup is the untouched old file")
            let again = try tool(["upgrade", path(name), "--key-file", keys])
            XCTAssertEqual(again.status, 0, again.stderr)
            XCTAssertTrue(again.stdout.contains("already in the \(current) format; nothing to do"), again.stdout)
        }
    }

    func testVerifyReportsADamagedPageWithItsOwnExitCode() throws {
        let keys = try makeDatabase()
        let filled = try sqlcipher("app.db", """
            CREATE TABLE t (a);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) INSERT INTO t SELECT randomblob(200) FROM n;
            """)
        XCTAssertEqual(filled.status, 0, filled.stderr)
        XCTAssertEqual(try tool(["verify", path("app.db"), "--key-file", keys]).status, 0)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path("app.db")))
        let pageSize = CommandLineClient.sqlcipherMajorVersion >= 4 ? 4096 : 1024
        let page = bytes.count / pageSize / 2
        for offset in 0..<8 { bytes[page * pageSize + 200 + offset] ^= 0x5A }
        try bytes.write(to: URL(fileURLWithPath: path("app.db")))
        let result = try tool(["verify", path("app.db"), "--key-file", keys])
        XCTAssertEqual(result.status, 7, result.stdout)
        XCTAssertTrue(result.stdout.contains("DAMAGED at page \(page + 1)"), result.stdout)
        XCTAssertTrue(result.stdout.contains("tables that do not read: t"), result.stdout)
        let json = try tool(["verify", path("app.db"), "--key-file", keys, "--json"])
        XCTAssertEqual(json.status, 7)
        XCTAssertEqual((try self.json(json.stdout) as? [String: Any])?["damagedPage"] as? Int, page + 1)
    }

    func testBackupIsEncryptedWithTheSameKey() throws {
        let keys = try makeDatabase()
        XCTAssertEqual(try tool(["apply", path("app.db"), "--migrations", migrations, "--key-file", keys, "--no-backup"]).status, 0)
        let result = try tool(["backup", path("app.db"), "--output", path("copy.db"), "--key-file", keys])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try cli("copy.db", key: passphrase, "SELECT count(*) FROM securestore_migrations;"), "3\n")
        XCTAssertNotEqual(try CommandLineClient.sqlite3(path("copy.db"), sql: "SELECT count(*) FROM sqlite_master;").status, 0)
        XCTAssertEqual(try tool(["backup", path("app.db"), "--output", path("copy.db"), "--key-file", keys]).status, 73)
    }

    func testPlaintextFileGivenAKeyForRekey() throws {
        XCTAssertEqual(try CommandLineClient.sqlite3(path("plain.db"), sql: "CREATE TABLE t (a);").status, 0)
        let keys = try makeKeyFile()
        let result = try tool(["rekey", path("plain.db"), "--key-file", keys, "--new-key-env", "N"], environment: ["N": "x"])
        XCTAssertEqual(result.status, 65)
        XCTAssertTrue(result.stderr.contains("not encrypted"), result.stderr)
    }
}
