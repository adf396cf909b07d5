import Foundation
import SecureStore
import TestSupport
import XCTest

/// SQLCipher 4's `cipher_plaintext_header_size`: the first 32 bytes stay
/// plaintext (iOS keeps a database shared through an app group readable by
/// the system that way), the salt lives outside the file. Such files open,
/// can be written, and read back with the `sqlcipher` CLI; SQLCipher 3
/// refuses the setting with an error that names the version it needs.
final class PlaintextHeaderTests: SecureStoreTestCase {
    private let salt = Data((0..<16).map { UInt8($0 * 7 + 1) })
    private var saltHex: String { salt.map { String(format: "%02x", $0) }.joined() }

    private func settings() -> CipherSettings {
        CipherSettings(plaintextHeaderSize: 32, salt: salt)
    }

    func testSQLCipher3RefusesThePlaintextHeader() throws {
        guard SQLCipherLibrary.majorVersion < 4 else {
            throw XCTSkip("SQLCipher \(SQLCipherLibrary.version) has plaintext headers: the other tests of this class cover them")
        }
        let config = keyedConfiguration(passphrase: "secret", cipherSettings: settings())
        XCTAssertThrowsError(try DatabaseQueue(path: path("shared.db"), configuration: config)) { error in
            XCTAssertTrue("\(error)".contains("cipher_plaintext_header_size needs SQLCipher 4.0"), "\(error)")
        }
    }

    func testFileWithPlaintextHeaderOpensWritesAndReadsBackWithTheCLI() throws {
        guard SQLCipherLibrary.majorVersion >= 4 else {
            throw XCTSkip("plaintext headers need SQLCipher 4; this library is \(SQLCipherLibrary.version)")
        }
        let file = path("shared.db")
        let config = keyedConfiguration(passphrase: "secret", cipherSettings: settings())
        try DatabaseQueue(path: file, configuration: config).write { db in
            try db.execute(sql: "CREATE TABLE note(body TEXT); INSERT INTO note VALUES ('hello')")
            let effective = try XCTUnwrap(db.cipherSettings)
            XCTAssertEqual(effective.plaintextHeaderSize, 32)
            XCTAssertEqual(effective.salt, salt)
        }
        let bytes = try fileBytes(file)
        XCTAssertEqual(bytes.prefix(16), Data("SQLite format 3\0".utf8))
        XCTAssertFalse(Database.hasPlaintextHeader(path: file), "an encrypted file with a plaintext header is not a plaintext database")
        XCTAssertNil(bytes.range(of: Data("hello".utf8)))

        // Written again by a second connection, then read by the CLI.
        try DatabaseQueue(path: file, configuration: config).write { db in
            try db.execute(sql: "INSERT INTO note VALUES ('again')")
        }
        let read = try CommandLineClient.sqlcipher(file, preamble: """
            PRAGMA key = 'secret';
            PRAGMA cipher_plaintext_header_size = 32;
            PRAGMA cipher_salt = "x'\(saltHex)'";
            """, sql: "SELECT group_concat(body) FROM note;")
        XCTAssertEqual(read.status, 0, read.stderr)
        XCTAssertEqual(read.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "hello,again")

        // Without the salt, or with the wrong key, the file does not open.
        XCTAssertThrowsError(try DatabaseQueue(path: file, configuration: keyedConfiguration(
            passphrase: "secret", cipherSettings: CipherSettings(plaintextHeaderSize: 32))).read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM note")
        })
        XCTAssertThrowsError(try DatabaseQueue(path: file, configuration: keyedConfiguration(
            passphrase: "wrong", cipherSettings: settings())).read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM note")
        })
    }

    func testFileMadeByTheCLIWithAPlaintextHeaderOpensInSecureStore() throws {
        guard SQLCipherLibrary.majorVersion >= 4 else {
            throw XCTSkip("plaintext headers need SQLCipher 4; this library is \(SQLCipherLibrary.version)")
        }
        let file = path("from-cli.db")
        let made = try CommandLineClient.sqlcipher(file, preamble: """
            PRAGMA key = 'secret';
            PRAGMA cipher_plaintext_header_size = 32;
            PRAGMA cipher_salt = "x'\(saltHex)'";
            """, sql: "CREATE TABLE t(a); INSERT INTO t VALUES (42);")
        XCTAssertEqual(made.status, 0, made.stderr)
        let pool = try DatabasePool(path: file, configuration: keyedConfiguration(passphrase: "secret", cipherSettings: settings()))
        XCTAssertEqual(try pool.read { try Int.fetchOne($0, sql: "SELECT a FROM t") }, 42)
        try pool.write { try $0.execute(sql: "INSERT INTO t VALUES (43)") }
        XCTAssertEqual(try pool.read { try Int.fetchAll($0, sql: "SELECT a FROM t ORDER BY a") }, [42, 43])
    }
}
