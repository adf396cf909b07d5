import Foundation
import SecureStore
import TestSupport
import XCTest

/// `KeyDerivationStrength` weighs the derivation a connection really opened
/// a file with against OWASP's PBKDF2 figures.
final class KeyDerivationStrengthTests: SecureStoreTestCase {
    func testTheGuidanceOfEachHash() {
        XCTAssertEqual(KeyDerivationStrength.guidance(for: .sha1), 1_300_000)
        XCTAssertEqual(KeyDerivationStrength.guidance(for: .sha256), 600_000)
        XCTAssertEqual(KeyDerivationStrength.guidance(for: .sha512), 210_000)
        let sqlcipher3 = KeyDerivationStrength(.sqlcipher3Defaults)
        XCTAssertTrue(sqlcipher3.isWeak)
        XCTAssertEqual(sqlcipher3.description, "weak: PBKDF2-HMAC-SHA1, 64,000 iterations; guidance 1,300,000")
        let sqlcipher4 = KeyDerivationStrength(.sqlcipher4Defaults)
        XCTAssertFalse(sqlcipher4.isWeak)
        XCTAssertEqual(sqlcipher4.description, "meets the guidance: PBKDF2-HMAC-SHA512, 256,000 iterations (guidance 210,000)")
        XCTAssertFalse(KeyDerivationStrength(CipherSettings(kdfIterations: 1_300_000, kdfAlgorithm: .sha1)).isWeak)
        XCTAssertTrue(KeyDerivationStrength(CipherSettings(kdfIterations: 1_299_999, kdfAlgorithm: .sha1)).isWeak)
    }

    /// A file the sqlcipher CLI made with its own count: the strength is of
    /// what the connection opened it with, not of a default.
    func testTheStrengthOfAnOpenedFile() throws {
        let file = path("cli.db")
        let made = try CommandLineClient.sqlcipher(file, preamble: "PRAGMA key = 'secret'; PRAGMA kdf_iter = 12345;",
                                                   sql: "CREATE TABLE t (a);")
        XCTAssertEqual(made.status, 0, made.stderr)
        let dbQueue = try DatabaseQueue(path: file, configuration: keyedConfiguration(
            passphrase: "secret", cipherSettings: CipherSettings(kdfIterations: 12345)))
        let strength = try dbQueue.read { db in KeyDerivationStrength(try XCTUnwrap(try db.cipherSettings)) }
        XCTAssertEqual(strength.iterations, 12345)
        XCTAssertEqual(strength.algorithm, SQLCipherLibrary.majorVersion >= 4 ? .sha512 : .sha1)
        XCTAssertTrue(strength.isWeak)
    }
}
