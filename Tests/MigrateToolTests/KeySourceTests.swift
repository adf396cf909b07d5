import Foundation
import TestSupport
import XCTest

/// Every key source opens the file, and the key never shows in output.
final class KeySourceTests: MigrateToolTestCase {
    private func inspect(_ extra: [String], stdin: String = "", environment: [String: String] = [:]) throws -> CommandLineClient.Result {
        try tool(["inspect", path("app.db"), "--json"] + extra, stdin: stdin, environment: environment)
    }

    func testKeyFileEnvironmentStdinAndDescriptor() throws {
        let keys = try makeDatabase()
        let results = [
            try inspect(["--key-file", keys]),
            try inspect(["--key-file", keys, "--key-name", "current"]),
            try inspect(["--key-env", "APP_DB_KEY"], environment: ["APP_DB_KEY": passphrase]),
            try inspect(["--key-stdin"], stdin: passphrase + "\n"),
        ]
        for result in results {
            XCTAssertEqual(result.status, 0, result.stderr)
            assertNoSecret(result, passphrase)
        }
        // --key-fd: a descriptor opened by the shell, as a deploy script would.
        let secretFile = path("secret")
        try passphrase.write(toFile: secretFile, atomically: true, encoding: .utf8)
        let binary = Self.productsDirectory.appendingPathComponent("migrate-tool").path
        let viaFD = try CommandLineClient.run("/bin/bash", ["-c", "exec 3<\"$1\"; \"$2\" inspect \"$3\" --key-fd 3 --json",
                                                            "bash", secretFile, binary, path("app.db")])
        XCTAssertEqual(viaFD.status, 0, viaFD.stderr)
        assertNoSecret(viaFD, passphrase)
    }

    func testRawKeyFromKeyFileAndEnvironment() throws {
        let keys = try makeKeyFile()
        let created = try tool(["create", path("raw.db"), "--key-file", keys, "--key-name", "next"])
        XCTAssertEqual(created.status, 0, created.stderr)
        let hex = String(repeating: "ab", count: 32)
        let cli = try CommandLineClient.sqlcipher(path("raw.db"), preamble: "PRAGMA key = \"x'\(hex)'\";", sql: "SELECT count(*) FROM sqlite_master;")
        XCTAssertEqual(cli.status, 0, cli.stderr)
        let viaEnv = try tool(["inspect", path("raw.db"), "--key-env", "K"], environment: ["K": "x'\(hex)'"])
        XCTAssertEqual(viaEnv.status, 0, viaEnv.stderr)
        assertNoSecret(viaEnv, hex)
        XCTAssertEqual(try tool(["inspect", path("raw.db"), "--key-file", keys]).status, 65, "the other key is wrong")
    }

    func testWrongKeyNeverShowsAndLeavesTheFileUnchanged() throws {
        try makeDatabase()
        let before = try sha256OfFile(path("app.db"))
        let wrong = "wrong-secret-\(UUID().uuidString)"
        for command in [["inspect"], ["status", "--migrations", migrations], ["apply", "--migrations", migrations],
                        ["rollback", "--steps", "1"]] {
            let result = try tool([command[0], path("app.db")] + command.dropFirst() + ["--key-env", "K", "--json"],
                                  environment: ["K": wrong])
            XCTAssertEqual(result.status, 65, "\(command): \(result.stdout) \(result.stderr)")
            XCTAssertTrue((result.stdout + result.stderr).contains("the key is wrong"), result.stderr)
            assertNoSecret(result, wrong)
        }
        XCTAssertEqual(try sha256OfFile(path("app.db")), before)
    }

    func testKeyFileProblemsExit78() throws {
        try makeDatabase()
        let loose = try makeKeyFile("loose", mode: 0o644)
        let result = try tool(["inspect", path("app.db"), "--key-file", loose])
        XCTAssertEqual(result.status, 78)
        XCTAssertTrue(result.stderr.contains("chmod 600"), result.stderr)
        assertNoSecret(result, passphrase)

        let keys = try makeKeyFile()
        XCTAssertEqual(try tool(["inspect", path("app.db"), "--key-file", keys, "--key-name", "nope"]).status, 78)
        XCTAssertEqual(try tool(["inspect", path("app.db"), "--key-file", path("missing-keys")]).status, 78)
        XCTAssertEqual(try tool(["inspect", path("app.db"), "--key-env", "UNSET_VARIABLE_X"]).status, 78)
        XCTAssertEqual(try tool(["inspect", path("app.db"), "--key-stdin"], stdin: "").status, 78)

        for (text, reason) in [
            ("passphrase = x\n", "before the first [name]"),
            ("[a]\npasphrase = secret-value-1\n", "unknown setting \"pasphrase\""),
            ("[a]\nraw = 1234\n", "64 hex digits"),
            ("[a]\npassphrase = secret-value-2\nraw = \(String(repeating: "0", count: 64))\n", "more than one"),
            ("[a]\n", "has no passphrase"),
            ("[a]\npassphrase = secret-value-3\n[a]\npassphrase = y\n", "defined twice"),
            ("[a]\npassphrase = secret-value-4\nkdf_iter = -5\n", "kdf_iter"),
            ("# nothing\n", "no key"),
        ] {
            let file = path("bad-\(UUID().uuidString)")
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
            let bad = try tool(["inspect", path("app.db"), "--key-file", file])
            XCTAssertEqual(bad.status, 78, text)
            XCTAssertTrue(bad.stderr.contains(reason), "\(reason) not in \(bad.stderr)")
            XCTAssertFalse(bad.stderr.contains("secret-value"), "a value shows in \(bad.stderr)")
        }
    }

    func testCipherSettingsMustMatchTheFile() throws {
        let keys = try makeKeyFile()
        XCTAssertEqual(try tool(["create", path("custom.db"), "--key-file", keys, "--kdf-iter", "10000", "--page-size", "4096"]).status, 0)
        XCTAssertEqual(try tool(["inspect", path("custom.db"), "--key-file", keys]).status, 65)
        let same = try tool(["inspect", path("custom.db"), "--key-file", keys, "--kdf-iter", "10000", "--page-size", "4096", "--json"])
        XCTAssertEqual(same.status, 0, same.stderr)
        let report = try XCTUnwrap(try json(same.stdout) as? [String: Any])
        XCTAssertEqual((report["cipherSettings"] as? [String: Any])?["pageSize"] as? Int, 4096)
        let cli = try CommandLineClient.sqlcipher(path("custom.db"), preamble: "PRAGMA key = '\(passphrase)'; PRAGMA kdf_iter = 10000; PRAGMA cipher_page_size = 4096;", sql: "SELECT count(*) FROM sqlite_master;")
        XCTAssertEqual(cli.status, 0, cli.stderr)
    }
}

/// keys.example is documentation that must stay true.
final class KeysExampleTests: MigrateToolTestCase {
    func testEveryKeyOfKeysExampleWorks() throws {
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("keys.example")
        let keys = path("keys.conf")
        try FileManager.default.copyItem(at: example, to: URL(fileURLWithPath: keys))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keys)
        // `pass` here is a script that prints a passphrase.
        let bin = path("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: bin + "/pass", contents: Data("#!/bin/sh\necho \"from pass $2\"\n".utf8),
                                       attributes: [.posixPermissions: 0o700])
        for name in ["demo", "demo-raw", "from-environment", "from-a-secret-manager", "legacy-settings"] {
            let db = path("\(name).db")
            let env = ["APP_DB_PASSPHRASE": "from the environment",
                       "PATH": bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")]
            let created = try tool(["create", db, "--key-file", keys, "--key-name", name], environment: env)
            XCTAssertEqual(created.status, 0, "\(name): \(created.stderr)")
            let inspected = try tool(["inspect", db, "--key-file", keys, "--key-name", name], environment: env)
            XCTAssertEqual(inspected.status, 0, "\(name): \(inspected.stderr)")
        }
        let legacy = try tool(["inspect", path("legacy-settings.db"), "--key-file", keys, "--key-name", "legacy-settings", "--json"])
        XCTAssertEqual((try json(legacy.stdout) as? [String: Any]).flatMap { $0["cipherSettings"] as? [String: Any] }?["kdfIter"] as? Int, 4000)
    }
}
