import Foundation
import TestSupport
import XCTest

/// `audit`: one finding per problem an operator should fix about encrypted
/// files, with a severity and exit 9 at or above `--fail-on`; nothing is
/// changed.
final class AuditCommandTests: MigrateToolTestCase {
    private func audit(_ arguments: [String]) throws -> (status: Int32, findings: [(code: String, path: String)]) {
        let result = try tool(["audit", "--json"] + arguments)
        let report = try XCTUnwrap(try json(result.stdout) as? [String: Any], result.stdout + result.stderr)
        let findings = try XCTUnwrap(report["findings"] as? [[String: Any]]).map {
            (code: $0["code"] as? String ?? "", path: $0["path"] as? String ?? "")
        }
        XCTAssertEqual(report["failed"] as? Bool, result.status == 9)
        return (result.status, findings)
    }

    private func codes(_ findings: [(code: String, path: String)]) -> [String] { findings.map(\.code).sorted() }

    func testAFleetWithEveryKindOfProblem() throws {
        chmod(directory.path, 0o755)
        let keys = try makeDatabase("app.db")
        try makeDatabase("other.db")
        chmod(path("other.db"), 0o644)
        // A killed run's copy, a kept plaintext original, an unrelated
        // plaintext file, a backup, and a backup made with another key.
        XCTAssertTrue(FileManager.default.createFile(atPath: path(".app.db.securestore-tmp-0000"), contents: Data()))
        XCTAssertEqual(try CommandLineClient.sqlite3(path("app.db.plaintext"), sql: "CREATE TABLE t (a);").status, 0)
        XCTAssertEqual(try CommandLineClient.sqlite3(path("cache.sqlite"), sql: "CREATE TABLE t (a);").status, 0)
        try FileManager.default.copyItem(atPath: path("app.db"), toPath: path("app.db.2026-01-01T000000.000Z.backup"))
        let otherKey = try tool(["create", path("stranger.db"), "--key-env", "K"], environment: ["K": "another key"])
        XCTAssertEqual(otherKey.status, 0, otherKey.stderr)
        try FileManager.default.moveItem(atPath: path("stranger.db"), toPath: path("app.db.2026-01-02T000000.000Z.backup"))
        let before = try names(in: directory.path)

        let (status, findings) = try audit([path("*.db"), "--key-file", keys])
        XCTAssertEqual(status, 9, "errors")
        var expected = ["backup-wrong-key", "leftover-temporary", "loose-directory", "loose-mode", "plaintext-copy", "stray-plaintext"]
        if CommandLineClient.sqlcipherMajorVersion < 4 { expected += ["weak-kdf", "weak-kdf"] }  // 64,000 SHA-1 iterations
        XCTAssertEqual(codes(findings), expected.sorted(), "\(findings)")
        XCTAssertEqual(findings.first { $0.code == "plaintext-copy" }?.path, path("app.db.plaintext"))
        XCTAssertEqual(findings.first { $0.code == "backup-wrong-key" }?.path, path("app.db.2026-01-02T000000.000Z.backup"))
        XCTAssertEqual(findings.first { $0.code == "loose-mode" }?.path, path("other.db"))
        XCTAssertEqual(try names(in: directory.path), before, "nothing changed")

        // Fixed: what is left is at most the derivation's warning.
        chmod(directory.path, 0o700)
        chmod(path("other.db"), 0o600)
        for name in [".app.db.securestore-tmp-0000", "app.db.plaintext", "cache.sqlite", "app.db.2026-01-02T000000.000Z.backup"] {
            try FileManager.default.removeItem(atPath: path(name))
        }
        let fixed = try audit([path("app.db"), path("other.db"), "--key-file", keys])
        XCTAssertEqual(fixed.status, 0)
        let warning = try audit([path("app.db"), "--key-file", keys, "--fail-on", "warning"])
        XCTAssertEqual(warning.status, CommandLineClient.sqlcipherMajorVersion < 4 ? 9 : 0)
        let strengthened = try tool(["rekey", path("app.db"), "--key-file", keys, "--new-kdf-iter", "1300000"])
        XCTAssertEqual(strengthened.status, 0, strengthened.stderr)
        // The rekey re-keyed the backups from before with the stronger
        // settings too: none is left that only the old count opens.
        let rotated = try audit([path("app.db"), "--key-file", keys, "--kdf-iter", "1300000"])
        XCTAssertFalse(codes(rotated.findings).contains("backup-wrong-key"), "\(rotated.findings)")
        for backup in try names(in: directory.path) where backup.hasSuffix(".backup") {
            try FileManager.default.removeItem(atPath: path(backup))
        }
        let strong = try audit([path("app.db"), "--key-file", keys, "--kdf-iter", "1300000", "--fail-on", "warning"])
        XCTAssertEqual(codes(strong.findings), [])
        XCTAssertEqual(strong.status, 0)
    }

    func testAPlaintextDatabaseAWrongKeyAndHistoryDrift() throws {
        chmod(directory.path, 0o700)
        XCTAssertEqual(try CommandLineClient.sqlite3(path("plain.db"), sql: "CREATE TABLE t (a);").status, 0)
        chmod(path("plain.db"), 0o600)
        let keys = try makeDatabase("app.db")
        XCTAssertEqual(try tool(["apply", path("app.db"), "--migrations", migrations, "--key-file", keys, "--no-backup"]).status, 0)
        XCTAssertEqual(codes(try audit([path("plain.db")]).findings), ["plaintext-database"])
        // No key: only the checks that need none (plain.db lies beside it).
        XCTAssertEqual(codes(try audit([path("app.db")]).findings), ["stray-plaintext"])
        let wrong = try tool(["audit", path("app.db"), "--key-env", "K"], environment: ["K": "not the key"])
        XCTAssertEqual(wrong.status, 9)
        XCTAssertTrue(wrong.stdout.contains("wrong-key"), wrong.stdout)
        // The migrations, one of them edited after it was applied.
        let edited = path("edited")
        try FileManager.default.copyItem(atPath: migrations, toPath: edited)
        let first = try XCTUnwrap(try names(in: edited).first { $0.hasSuffix(".up.sql") })
        let text = try String(contentsOfFile: edited + "/" + first, encoding: .utf8)
        try (text + "\n-- edited\n").write(toFile: edited + "/" + first, atomically: true, encoding: .utf8)
        try? FileManager.default.removeItem(atPath: edited + "/migrations.sum")
        let drift = try audit([path("app.db"), "--key-file", keys, "--migrations", edited, "--no-integrity"])
        XCTAssertTrue(codes(drift.findings).contains("history-drift"), "\(drift.findings)")
        XCTAssertEqual(try audit([path("app.db"), "--key-file", keys, "--migrations", migrations]).findings.filter { $0.code == "history-drift" }.count, 0)
    }

    func testAPatternThatMatchesNothing() throws {
        let result = try tool(["audit", path("*.nothing")])
        XCTAssertEqual(result.status, 66, result.stderr)
        XCTAssertTrue(result.stderr.contains("no file matches"), result.stderr)
    }
}
