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

    func testARawKeyHasNoDerivationToWeigh() throws {
        let keys = try makeKeyFile()
        let created = try tool(["create", path("app.db"), "--key-file", keys, "--key-name", "next"])
        XCTAssertEqual(created.status, 0, created.stderr)
        let report = try keyDerivation(["--key-file", keys, "--key-name", "next"])
        XCTAssertEqual(report["verdict"] as? String, "raw-key")
        XCTAssertNil(report["advice"])
    }
}
