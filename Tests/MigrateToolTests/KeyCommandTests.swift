import Foundation
import TestSupport
import XCTest

/// `--key-command`: the key from an operator's command (a secret manager's
/// CLI), run without a shell, with a timeout.
final class KeyCommandTests: MigrateToolTestCase {
    func testKeyFromACommandAndItsFailures() throws {
        _ = try makeDatabase()
        // The secret manager here is `cat` of a private file.
        let secret = path("secret")
        _ = FileManager.default.createFile(atPath: secret, contents: Data((passphrase + "\n").utf8), attributes: [.posixPermissions: 0o600])
        let status = ["status", path("app.db"), "--migrations", migrations]
        let ok = try tool(status + ["--key-command", "/bin/cat '\(secret)'"])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertTrue(ok.stdout.contains("3 pending"), ok.stdout)
        XCTAssertFalse((ok.stdout + ok.stderr).contains(passphrase), "the key is never printed")

        let before = try sha256OfFile(path("app.db"))
        let failures: [(String, [String], String)] = [
            ("/bin/false", [], "exited with status 1"),
            ("/bin/true", [], "printed no key"),
            ("/bin/sleep 20", ["--key-command-timeout", "1"], "did not finish within 1 seconds"),
            ("no-such-key-helper", [], "no executable no-such-key-helper"),
            ("/bin/cat '\(secret)", [], "a quote is not closed"),
        ]
        for (command, extra, message) in failures {
            let started = Date()
            let result = try tool(status + ["--key-command", command] + extra)
            XCTAssertNotEqual(result.status, 0, command)
            XCTAssertTrue(result.stderr.contains(message), "\(command): \(result.stderr)")
            XCTAssertLessThan(Date().timeIntervalSince(started), 10, "\(command) must not wait for the command's end")
        }
        let wrong = try tool(status + ["--key-command", "/bin/echo not the key"])
        XCTAssertEqual(wrong.status, 65, wrong.stderr)
        XCTAssertEqual(try sha256OfFile(path("app.db")), before)
        XCTAssertEqual(try tool(status + ["--key-command", "/bin/true", "--key-env", "X"]).status, 64, "one key source")
    }

    func testTheNewKeyCommandDoesNotSeeTheOldKey() throws {
        _ = try makeDatabase()
        let seen = path("environment-seen")
        let rekeyed = try tool(["rekey", path("app.db"), "--key-env", "OLD_DATABASE_KEY",
                                "--new-key-command", "/bin/sh -c 'env > \(seen); echo another passphrase'"],
                               environment: ["OLD_DATABASE_KEY": passphrase, "UNRELATED": "visible"])
        XCTAssertEqual(rekeyed.status, 0, rekeyed.stdout + rekeyed.stderr)
        let environment = try String(contentsOfFile: seen, encoding: .utf8)
        XCTAssertFalse(environment.contains("OLD_DATABASE_KEY"), environment)
        XCTAssertFalse(environment.contains(passphrase), environment)
        XCTAssertTrue(environment.contains("UNRELATED=visible"), environment)
        let reads = try CommandLineClient.sqlcipher(path("app.db"), preamble: "PRAGMA key = 'another passphrase';" + Self.newFileKDFPragma,
                                                    sql: "SELECT count(*) FROM sqlite_master;")
        XCTAssertEqual(reads.status, 0, reads.stderr)
    }

    /// `command = ...` in a key file: the same runner, with errors that
    /// name the key file, the line or the key, and `command_timeout`.
    func testKeyFileCommand() throws {
        _ = try makeDatabase()
        let secret = path("secret")
        _ = FileManager.default.createFile(atPath: secret, contents: Data((passphrase + "\n").utf8), attributes: [.posixPermissions: 0o600])
        let keys = path("command-keys")
        try """
            [vault]
            command = /bin/cat "\(secret)"

            [failing]
            command = /bin/false

            [silent]
            command = /bin/true

            [slow]
            command = /bin/sleep 20
            command_timeout = 1
            """.write(toFile: keys, atomically: true, encoding: .utf8)
        XCTAssertEqual(chmod(keys, 0o600), 0)
        let status = ["status", path("app.db"), "--migrations", migrations, "--key-file", keys]
        let ok = try tool(status + ["--verbose"])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertFalse((ok.stdout + ok.stderr).contains(passphrase), "the key is never printed")

        let before = try sha256OfFile(path("app.db"))
        for (name, message) in [("failing", "key [failing]: command: /bin/false exited with status 1"),
                                ("silent", "key [silent]: command: /bin/true printed no key"),
                                ("slow", "did not finish within 1 seconds")] {
            let started = Date()
            let result = try tool(status + ["--key-name", name])
            XCTAssertEqual(result.status, 78, "\(name): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(message), "\(name): \(result.stderr)")
            XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        }
        XCTAssertEqual(try sha256OfFile(path("app.db")), before)

        for (text, message) in [("[a]\ncommand = /bin/cat 'x\n", "command-keys:2: command: a quote is not closed"),
                                ("[a]\ncommand = /bin/true\npassphrase = p\n", "more than one of passphrase, raw, env and command"),
                                ("[a]\ncommand = /bin/true\ncommand_timeout = 0\n", "command_timeout must be a positive number")] {
            try text.write(toFile: keys, atomically: true, encoding: .utf8)
            XCTAssertEqual(chmod(keys, 0o600), 0)
            let refused = try tool(status)
            XCTAssertEqual(refused.status, 78, text)
            XCTAssertTrue(refused.stderr.contains(message), "\(text): \(refused.stderr)")
        }
    }
}
