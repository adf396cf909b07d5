import Foundation
import TestSupport
import XCTest

/// `inspect` weighs a file's key derivation against OWASP's PBKDF2
/// guidance (1,300,000 iterations for SHA-1, 210,000 for SHA-512), says how
/// to strengthen a weak one, and knows that a raw key has none.
final class KeyStrengthTests: MigrateToolTestCase {
    private func keyDerivation(_ arguments: [String]) throws -> [String: Any] {
        let result = try tool(["inspect", path("app.db"), "--json"] + arguments)
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try XCTUnwrap(try json(result.stdout) as? [String: Any])
        return try XCTUnwrap(report["keyDerivation"] as? [String: Any], result.stdout)
    }

    func testInspectReportsAWeakDerivationAndHowToStrengthenIt() throws {
        let sqlcipher4 = CommandLineClient.sqlcipherMajorVersion >= 4
        // Weak on either line: SQLCipher 3's default count, with the line's hash.
        let keys = try makeKeyFile()
        let created = try tool(["create", path("app.db"), "--key-file", keys, "--kdf-iter", "64000"])
        XCTAssertEqual(created.status, 0, created.stderr)
        let (algorithm, guidance) = sqlcipher4 ? ("SHA512", 210_000) : ("SHA1", 1_300_000)
        let weak = try keyDerivation(["--key-file", keys, "--kdf-iter", "64000"])
        XCTAssertEqual(weak["verdict"] as? String, "weak")
        XCTAssertEqual(weak["algorithm"] as? String, "PBKDF2_HMAC_\(algorithm)")
        XCTAssertEqual(weak["iterations"] as? Int, 64000)
        XCTAssertEqual(weak["guidance"] as? Int, guidance)
        let text = try tool(["inspect", path("app.db"), "--key-file", keys, "--kdf-iter", "64000"])
        XCTAssertEqual(text.status, 0, text.stderr)
        let grouped = sqlcipher4 ? "210,000" : "1,300,000"
        XCTAssertTrue(text.stdout.contains("""
            key derivation: weak: PBKDF2-HMAC-\(algorithm), 64,000 iterations; guidance \(grouped); \
            strengthen with: migrate-tool rekey \(path("app.db")) --new-kdf-iter \(guidance)
            """), text.stdout)

        // The advice, followed: the file meets the guidance.
        let rekeyed = try tool(["rekey", path("app.db"), "--key-file", keys, "--kdf-iter", "64000", "--new-kdf-iter", "\(guidance)"])
        XCTAssertEqual(rekeyed.status, 0, rekeyed.stderr)
        let strong = try keyDerivation(["--key-file", keys, "--kdf-iter", "\(guidance)"])
        XCTAssertEqual(strong["verdict"] as? String, "meets-guidance")
        XCTAssertEqual(strong["iterations"] as? Int, guidance)
        XCTAssertNil(strong["advice"])
    }

    /// A key file that names no kdf_iter: the tool's defaults.
    private func defaultKeyFile(_ name: String, passphrase: String) throws -> String {
        let file = path(name)
        try "[app]\npassphrase = \"\(passphrase)\"\n".write(toFile: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        return file
    }

    func testNewFilesMeetTheGuidanceAndLowerCountsWarn() throws {
        let sqlcipher3 = CommandLineClient.sqlcipherMajorVersion == 3
        let recommended = sqlcipher3 ? 1_300_000 : 256_000
        let keys = try defaultKeyFile("keys", passphrase: "deploy passphrase")

        // create: no count given, the guidance's; no warning.
        let created = try tool(["create", path("app.db"), "--key-file", keys])
        XCTAssertEqual(created.status, 0, created.stderr)
        XCTAssertFalse(created.stderr.contains("warning"), created.stderr)
        let report = try keyDerivation(["--key-file", keys])
        XCTAssertEqual(report["verdict"] as? String, "meets-guidance")
        XCTAssertEqual(report["iterations"] as? Int, recommended)
        let cli = try CommandLineClient.sqlcipher(path("app.db"), preamble: "PRAGMA key = 'deploy passphrase'; PRAGMA kdf_iter = \(recommended);",
                                                  sql: "SELECT count(*) FROM sqlite_master;")
        XCTAssertEqual(cli.stdout, "0\n", cli.stderr)
        let applied = try tool(["apply", path("app.db"), "--key-file", keys, "--migrations", migrations])
        XCTAssertEqual(applied.status, 0, applied.stderr)

        // An explicit lower count works, with a warning naming the guidance.
        let weak = try tool(["create", path("weak.db"), "--key-file", keys, "--kdf-iter", "64000"])
        XCTAssertEqual(weak.status, 0, weak.stderr)
        let guidance = sqlcipher3 ? "1,300,000" : "210,000"
        XCTAssertTrue(weak.stderr.contains("warning: \(path("weak.db")) is made with a weak key derivation"), weak.stderr)
        XCTAssertTrue(weak.stderr.contains("guidance \(guidance)"), weak.stderr)
        assertNoSecret(weak, "deploy passphrase")

        // encrypt and rekey to a new passphrase: new files, the guidance's count.
        let plain = path("plain.db")
        XCTAssertEqual(try CommandLineClient.sqlite3(plain, sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1);").status, 0)
        let encrypted = try tool(["encrypt", plain, "--output", path("enc.db"), "--key-file", keys])
        XCTAssertEqual(encrypted.status, 0, encrypted.stderr)
        let encryptedReport = try tool(["inspect", path("enc.db"), "--json", "--key-file", keys])
        XCTAssertTrue(encryptedReport.stdout.contains("\"iterations\" : \(recommended)"), encryptedReport.stdout + encryptedReport.stderr)
        let next = try defaultKeyFile("next", passphrase: "next passphrase")
        let rekeyed = try tool(["rekey", path("weak.db"), "--key-file", keys, "--kdf-iter", "64000", "--new-key-file", next])
        XCTAssertEqual(rekeyed.status, 0, rekeyed.stderr)
        let rekeyedReport = try tool(["inspect", path("weak.db"), "--json", "--key-file", next])
        XCTAssertTrue(rekeyedReport.stdout.contains("\"verdict\" : \"meets-guidance\""), rekeyedReport.stdout + rekeyedReport.stderr)
    }

    func testARawKeyHasNoDerivationToWeigh() throws {
        let keys = try makeKeyFile()
        let created = try tool(["create", path("app.db"), "--key-file", keys, "--key-name", "next"])
        XCTAssertEqual(created.status, 0, created.stderr)
        let report = try keyDerivation(["--key-file", keys, "--key-name", "next"])
        XCTAssertEqual(report["verdict"] as? String, "raw-key")
        XCTAssertNil(report["advice"])
    }
}
