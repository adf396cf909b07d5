import Foundation
import TestSupport
import XCTest

/// A full disk or a read-only file system makes every writing command exit
/// 74, leaves the original byte for byte as it was and openable with its
/// key, and removes the command's partial files.
///
/// The database sits on a small tmpfs that cannot hold a second copy of
/// it. Before this was fixed, `rekey`, `decrypt` and `backup` on a full
/// disk exited 6 ("a migration failed").
final class DiskFullTests: MigrateToolTestCase {
    private var mountPoint: String?
    private let environment = ["DB_KEY": "full key", "NEW_KEY": "full next key"]

    override func tearDownWithError() throws {
        if let mountPoint { _ = try? CommandLineClient.run("/bin/umount", [mountPoint]) }
        try super.tearDownWithError()
    }

    /// Mounts a tmpfs of `kilobytes` in the test folder (root only).
    private func mountSmallFileSystem(kilobytes: Int) throws -> String {
        try XCTSkipUnless(getuid() == 0, "mounting a small tmpfs needs root (CI runs as root)")
        let folder = path("small")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let mounted = try CommandLineClient.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", folder])
        try XCTSkipUnless(mounted.status == 0, "cannot mount a tmpfs here: \(mounted.stderr)")
        mountPoint = folder
        return folder
    }

    /// An encrypted database of about 800 KB, at the first example
    /// migration, made outside the small file system and copied in.
    private func fillDatabase(_ file: String) throws {
        let made = path("made.db")
        XCTAssertEqual(try tool(["create", made, "--key-env", "DB_KEY"] + Self.suiteKDFArguments, environment: environment).status, 0)
        let filled = try CommandLineClient.sqlcipher(made, preamble: "PRAGMA key = 'full key';", sql: """
            CREATE TABLE filler (payload TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 700)
            INSERT INTO filler SELECT hex(randomblob(500)) FROM n;
            """)
        XCTAssertEqual(filled.status, 0, filled.stderr)
        // One migration applied, two pending: apply and rollback both have work.
        XCTAssertEqual(try tool(["apply", made, "--migrations", migrations, "--to", "Zalora-v1", "--no-backup",
                                 "--key-env", "DB_KEY"] + Self.suiteKDFArguments, environment: environment).status, 0)
        let copied = try CommandLineClient.run("/bin/cp", ["--preserve=mode", made, file])
        XCTAssertEqual(copied.status, 0, copied.stderr)
        try FileManager.default.removeItem(atPath: made)
    }

    private func assertUnchanged(_ file: String, hash: String, key: String = "full key", _ context: String,
                                 line: UInt = #line) throws {
        XCTAssertEqual(try sha256OfFile(file), hash, "\(context): the original changed", line: line)
        let read = try CommandLineClient.sqlcipher(file, preamble: "PRAGMA key = '\(key)';", sql: "SELECT count(*) FROM filler;")
        XCTAssertEqual(read.stdout, "700\n", "\(context): the key does not open it: \(read.stderr)", line: line)
    }

    func testEveryWritingCommandOnAFullDisk() throws {
        let folder = try mountSmallFileSystem(kilobytes: 1200)
        let file = folder + "/app.db"
        try fillDatabase(file)
        let hash = try sha256OfFile(file)
        let key = ["--key-env", "DB_KEY"] + Self.suiteKDFArguments
        // A backup outside the small file system: its copy does not fit.
        let backup = path("outside.backup")
        XCTAssertEqual(try CommandLineClient.run("/bin/cp", [file, backup]).status, 0)
        let commands: [[String]] = [
            ["restore", file, "--from", backup] + key,
            ["rekey", file, "--new-key-env", "NEW_KEY"] + key,
            ["decrypt", file, "--output", folder + "/plain.db", "--allow-plaintext"] + key,
            ["backup", file, "--output", folder + "/copy.db"] + key,
            ["apply", file, "--migrations", migrations] + key,
            ["rollback", file, "--migrations", migrations, "--all"] + key,
        ]
        for arguments in commands {
            let result = try tool(arguments, environment: environment)
            let context = "\(arguments[0]): exit \(result.status): \(result.stdout)\(result.stderr)"
            XCTAssertEqual(result.status, 74, context)
            XCTAssertTrue((result.stdout + result.stderr).contains("app.db"), context)
            try assertUnchanged(file, hash: hash, context)
            XCTAssertEqual(try names(in: folder), ["app.db"], "\(context): partial files are left")
        }
    }

    func testEncryptAndUpgradeInPlaceOnAFullDisk() throws {
        let folder = try mountSmallFileSystem(kilobytes: 1200)
        // A plaintext file of about 800 KB.
        let plain = folder + "/plain.db"
        let made = try CommandLineClient.sqlite3(plain, sql: """
            CREATE TABLE filler (payload TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 700)
            INSERT INTO filler SELECT hex(randomblob(500)) FROM n;
            """)
        XCTAssertEqual(made.status, 0, made.stderr)
        let plainHash = try sha256OfFile(plain)
        let encrypt = try tool(["encrypt", plain, "--key-env", "DB_KEY"], environment: environment)
        XCTAssertEqual(encrypt.status, 74, encrypt.stderr)
        XCTAssertEqual(try sha256OfFile(plain), plainHash)
        XCTAssertEqual(try names(in: folder), ["plain.db"])
        try FileManager.default.removeItem(atPath: plain)

        // A SQLCipher 2 file of about 800 KB: upgrade with and without a backup.
        let legacy = folder + "/legacy.db"
        try makeLegacyDatabase(legacy, key: "full key", settings: "PRAGMA cipher_compatibility = 3; PRAGMA kdf_iter = 4000;", rows: 0)
        let filled = try CommandLineClient.sqlcipher(legacy, preamble: "PRAGMA key = 'full key'; PRAGMA cipher_compatibility = 3; PRAGMA kdf_iter = 4000;", sql: """
            CREATE TABLE filler (payload TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 700)
            INSERT INTO filler SELECT hex(randomblob(500)) FROM n;
            """)
        XCTAssertEqual(filled.status, 0, filled.stderr)
        let legacyHash = try sha256OfFile(legacy)
        for extra in [[], ["--no-backup"]] {
            let upgrade = try tool(["upgrade", legacy, "--key-env", "DB_KEY"] + extra, environment: environment)
            XCTAssertEqual(upgrade.status, 74, "\(extra): \(upgrade.stderr)")
            XCTAssertEqual(try sha256OfFile(legacy), legacyHash)
            XCTAssertEqual(try names(in: folder), ["legacy.db"], "\(extra)")
        }
    }

    func testWritingCommandsOnAReadOnlyFileSystem() throws {
        let folder = try mountSmallFileSystem(kilobytes: 4096)
        let file = folder + "/app.db"
        try fillDatabase(file)
        let hash = try sha256OfFile(file)
        let remounted = try CommandLineClient.run("/bin/mount", ["-o", "remount,ro", folder])
        XCTAssertEqual(remounted.status, 0, remounted.stderr)
        let key = ["--key-env", "DB_KEY"] + Self.suiteKDFArguments
        for arguments in [
            ["rekey", file, "--new-key-env", "NEW_KEY"] + key,
            ["apply", file, "--migrations", migrations] + key,
            ["backup", file, "--output", folder + "/copy.db"] + key,
        ] {
            let result = try tool(arguments, environment: environment)
            let context = "\(arguments[0]): exit \(result.status): \(result.stderr)"
            XCTAssertEqual(result.status, 74, context)
            try assertUnchanged(file, hash: hash, context)
        }
        XCTAssertEqual(try names(in: folder), ["app.db"])
    }
}
