import Foundation
import TestSupport
import XCTest

/// Every file the tool creates — outputs, temporary files, backups, the
/// kept plaintext — is 0600 (never wider than its source), whatever the
/// umask; a file replaced in place keeps its owner and mode.
///
/// Before this was fixed, with umask 022, `decrypt` wrote the plaintext
/// copy 0644, `encrypt` turned a 0600 file into a 0644 one, and the
/// outputs of `backup` and `encrypt --output` and rekey's temporary file
/// were 0644 (`SECURESTORE_TOOL_DIR=<old build> swift test --filter
/// FileModeTests` shows it).
final class FileModeTests: MigrateToolTestCase {
    private let environment = ["DB_KEY": "mode key", "NEW_KEY": "mode next key"]
    private let key = ["--key-env", "DB_KEY"] + MigrateToolTestCase.suiteKDFArguments
    /// The key without the suite's count: `upgrade` finds a legacy format.
    private let unpinnedKey = ["--key-env", "DB_KEY"]

    private func plaintextDatabase(_ file: String, mode: Int) throws {
        let made = try CommandLineClient.sqlite3(file, sql: "CREATE TABLE t (x); INSERT INTO t VALUES ('plain');")
        XCTAssertEqual(made.status, 0, made.stderr)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file)
    }

    private func run(_ arguments: [String], umask mask: mode_t, line: UInt = #line) throws {
        let result = try tool(arguments, environment: environment, umask: mask)
        XCTAssertEqual(result.status, 0, "umask \(String(mask, radix: 8)) \(arguments[0]): \(result.stderr)", line: line)
    }

    func testEveryWritingCommandUnderUmask022() throws { try everyWritingCommand(underUmask: 0o022) }
    func testEveryWritingCommandUnderUmask077() throws { try everyWritingCommand(underUmask: 0o077) }
    func testEveryWritingCommandUnderUmask000() throws { try everyWritingCommand(underUmask: 0o000) }

    private func everyWritingCommand(underUmask mask: mode_t) throws {
        let folder = path("umask-\(String(mask, radix: 8))")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let file = { (name: String) in folder + "/" + name }
        let context = "umask \(String(mask, radix: 8))"

        // create: a new database, 0600.
        try run(["create", file("app.db")] + key, umask: mask)
        XCTAssertEqual(try mode(file("app.db")), 0o600, context)

        // apply and rollback: the database keeps its mode; backups 0600.
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: file("app.db"))
        try run(["apply", file("app.db"), "--migrations", migrations] + key, umask: mask)
        try run(["rollback", file("app.db"), "--steps", "1", "--migrations", migrations] + key, umask: mask)
        XCTAssertEqual(try mode(file("app.db")), 0o640, context)
        let backups = try names(in: folder).filter { $0.hasSuffix(".backup") }
        XCTAssertEqual(backups.count, 2, "\(context): \(backups)")
        for backup in backups { XCTAssertEqual(try mode(file(backup)), 0o600, "\(context): \(backup)") }

        // rekey in place keeps the mode; so do the backups it re-keys.
        try run(["rekey", file("app.db"), "--new-key-env", "NEW_KEY"] + key + Self.suiteNewKDFArguments, umask: mask)
        XCTAssertEqual(try mode(file("app.db")), 0o640, context)
        for backup in backups { XCTAssertEqual(try mode(file(backup)), 0o600, "\(context): re-keyed \(backup)") }
        let newKey = ["--key-env", "NEW_KEY"] + Self.suiteKDFArguments

        // decrypt: the plaintext copy is private; never wider than the source.
        try run(["decrypt", file("app.db"), "--output", file("plain.db"), "--allow-plaintext"] + newKey, umask: mask)
        XCTAssertEqual(try mode(file("plain.db")), 0o600, context)
        try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: file("app.db"))
        try run(["decrypt", file("app.db"), "--output", file("plain-400.db"), "--allow-plaintext"] + newKey, umask: mask)
        XCTAssertEqual(try mode(file("plain-400.db")), 0o400, context)
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: file("app.db"))

        // backup --output: 0600.
        try run(["backup", file("app.db"), "--output", file("copy.db")] + newKey, umask: mask)
        XCTAssertEqual(try mode(file("copy.db")), 0o600, context)

        // encrypt in place keeps the mode; the kept plaintext is 0600.
        try plaintextDatabase(file("open.db"), mode: 0o644)
        try run(["encrypt", file("open.db"), "--keep-plaintext"] + key, umask: mask)
        XCTAssertEqual(try mode(file("open.db")), 0o644, context)
        XCTAssertEqual(try mode(file("open.db.plaintext")), 0o600, context)
        try plaintextDatabase(file("private.db"), mode: 0o600)
        try run(["encrypt", file("private.db")] + key, umask: mask)
        XCTAssertEqual(try mode(file("private.db")), 0o600, context)

        // encrypt --output: 0600.
        try plaintextDatabase(file("source.db"), mode: 0o644)
        try run(["encrypt", file("source.db"), "--output", file("encrypted.db")] + key, umask: mask)
        XCTAssertEqual(try mode(file("encrypted.db")), 0o600, context)

        // upgrade keeps the mode; its backup is 0600.
        try makeLegacyDatabase(file("legacy.db"), key: "mode key", settings: "PRAGMA cipher_compatibility = 3; PRAGMA kdf_iter = 4000;")
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: file("legacy.db"))
        try run(["upgrade", file("legacy.db")] + unpinnedKey + Self.suiteNewKDFArguments, umask: mask)
        XCTAssertEqual(try mode(file("legacy.db")), 0o640, context)
        let upgradeBackup = try XCTUnwrap(try names(in: folder).first { $0.hasPrefix("legacy.db.") && $0.hasSuffix(".backup") })
        XCTAssertEqual(try mode(file(upgradeBackup)), 0o600, context)

        // restore keeps the database's mode; the replaced file is kept
        // 0600 in a --backup-dir the tool makes 0700.
        try run(["restore", file("app.db"), "--from", file(backups[0]), "--backup-dir", file("kept")] + newKey, umask: mask)
        XCTAssertEqual(try mode(file("app.db")), 0o640, context)
        XCTAssertEqual(try mode(file("kept")), 0o700, context)
        let kept = try names(in: file("kept"))
        XCTAssertEqual(kept.count, 1, "\(context): \(kept)")
        XCTAssertEqual(try mode(file("kept/" + kept[0])), 0o600, context)

        // Nothing else is left behind: no temporary, journal, -wal or -shm file.
        XCTAssertEqual(try names(in: folder).filter { !$0.hasSuffix(".backup") }, [
            "app.db", "copy.db", "encrypted.db", "kept", "legacy.db", "open.db", "open.db.plaintext",
            "plain-400.db", "plain.db", "private.db", "source.db",
        ], context)
    }

    func testReplacedFilesKeepTheirOwner() throws {
        try XCTSkipUnless(getuid() == 0, "giving a file to another user needs root")
        let nobody: uid_t = 65534
        try run(["create", path("app.db")] + key, umask: 0o022)
        try plaintextDatabase(path("plain.db"), mode: 0o660)
        try makeLegacyDatabase(path("legacy.db"), key: "mode key", settings: "PRAGMA cipher_compatibility = 3; PRAGMA kdf_iter = 4000;")
        for name in ["app.db", "plain.db", "legacy.db"] {
            XCTAssertEqual(chown(path(name), nobody, nobody), 0)
            try FileManager.default.setAttributes([.posixPermissions: 0o660], ofItemAtPath: path(name))
        }
        try run(["rekey", path("app.db"), "--new-key-env", "NEW_KEY"] + key + Self.suiteNewKDFArguments, umask: 0o077)
        try run(["encrypt", path("plain.db")] + key, umask: 0o077)
        try run(["upgrade", path("legacy.db"), "--no-backup"] + unpinnedKey + Self.suiteNewKDFArguments, umask: 0o077)
        try run(["backup", path("plain.db"), "--output", path("plain-copy.db")] + key, umask: 0o077)
        try run(["restore", path("plain.db"), "--from", path("plain-copy.db"), "--no-backup"] + key, umask: 0o077)
        for name in ["app.db", "plain.db", "legacy.db"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: path(name))
            XCTAssertEqual((attributes[.ownerAccountID] as? NSNumber)?.uint32Value, nobody, name)
            XCTAssertEqual((attributes[.groupOwnerAccountID] as? NSNumber)?.uint32Value, nobody, name)
            XCTAssertEqual(try mode(path(name)), 0o660, name)
        }
    }

    /// rekey's temporary file is private from its first byte: a run killed
    /// at any moment leaves no readable copy.
    func testTheTemporaryFileOfAKilledRekeyIsPrivate() throws {
        let file = path("big.db")
        try run(["create", file] + key, umask: 0o022)
        let filled = try CommandLineClient.sqlcipher(file, preamble: "PRAGMA key = 'mode key';", sql: """
            CREATE TABLE filler (payload TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
            INSERT INTO filler SELECT hex(randomblob(200)) FROM n;
            """)
        XCTAssertEqual(filled.status, 0, filled.stderr)

        let process = Process()
        process.executableURL = Self.productsDirectory.appendingPathComponent("migrate-tool")
        process.arguments = ["rekey", file, "--new-key-env", "NEW_KEY"] + key
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let previous = umask(0o022)
        try process.run()
        umask(previous)
        var seen: [String: Int] = [:]
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning, Date() < deadline {
            for name in (try? names(in: directory.path)) ?? [] where name.contains("securestore-tmp") {
                if let mode = try? mode(path(name)) { seen[name] = mode }
            }
            if !seen.isEmpty { break }
            usleep(200)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        XCTAssertFalse(seen.isEmpty, "the temporary file was never seen")
        for (name, mode) in seen { XCTAssertEqual(mode, 0o600, name) }
        for name in try names(in: directory.path) where name.contains("securestore-tmp") {
            XCTAssertEqual(try mode(path(name)), 0o600, name)
        }
        // The next run removes the leftover and finishes.
        try run(["rekey", file, "--new-key-env", "NEW_KEY"] + key + Self.suiteNewKDFArguments, umask: 0o022)
        XCTAssertEqual(try names(in: directory.path).filter { $0.contains("securestore-tmp") }, [])
    }
}
