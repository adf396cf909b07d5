import Foundation
@testable import SecureStore
import TestSupport
import XCTest

/// An export of a file larger than its page cache reads the row counts on
/// connections of their own, beside the export and beside the integrity
/// check. Here every file is taken as large (`countsBesideAbove: 0`), and
/// the results are read back with the `sqlcipher` CLI.
final class ExportCountsBesideTests: SecureStoreTestCase {
    private let oldKey = CipherKey(passphrase: "counted old key", settings: SecureStoreTestCase.suiteCipherSettings)
    private let newKey = CipherKey(passphrase: "counted new key", settings: SecureStoreTestCase.suiteCipherSettings)

    private func makeEncrypted(_ name: String, wal: Bool) throws -> String {
        let file = path(name)
        let queue = try DatabaseQueue(path: file, configuration: oldKey.configuration())
        try queue.writeWithoutTransaction { db in
            if wal { try db.execute(sql: "PRAGMA journal_mode = WAL") }
            try db.execute(sql: """
                CREATE TABLE item (id INTEGER PRIMARY KEY, payload BLOB, label TEXT);
                CREATE INDEX item_label ON item(label);
                CREATE TABLE tag (name TEXT);
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
                INSERT INTO item SELECT i, randomblob(300), hex(randomblob(4)) FROM n;
                INSERT INTO tag VALUES ('a'), ('b');
                PRAGMA user_version = 7;
                """)
        }
        try queue.close()
        return file
    }

    private func cli(_ file: String, passphrase: String, sql: String) throws -> String {
        let result = try CommandLineClient.sqlcipher(file, preamble: "PRAGMA key = '\(passphrase)';", sql: sql)
        return result.status == 0 ? result.stdout : "error: \(result.stderr)"
    }

    func testRekeyInPlaceCountsBesideTheExportAndTheIntegrityCheck() throws {
        for wal in [false, true] {
            let file = try makeEncrypted(wal ? "wal.db" : "delete.db", wal: wal)
            let summary = try Cipher.export(from: file, sourceKey: oldKey, to: file, destinationKey: newKey,
                                            keepsFormat: false, progress: nil, countsBesideAbove: 0)
            XCTAssertEqual(summary.rowCounts, ["item": 3000, "tag": 2], "wal: \(wal)")
            XCTAssertEqual(summary.userVersion, 7)
            XCTAssertEqual(try cli(file, passphrase: "counted new key",
                                   sql: "SELECT count(*) FROM item; SELECT count(*) FROM tag; PRAGMA user_version; PRAGMA journal_mode;"),
                           "3000\n2\n7\n\(wal ? "wal" : "delete")\n")
            XCTAssertTrue(try cli(file, passphrase: "counted old key", sql: "SELECT count(*) FROM item;").hasPrefix("error"),
                          "the old key no longer opens the file")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("securestore-tmp") }
        XCTAssertEqual(left, [])
    }

    func testEncryptAndDecryptToNewFilesCountBeside() throws {
        let file = try makeEncrypted("source.db", wal: false)
        let plain = path("plain.db")
        let decrypted = try Cipher.export(from: file, sourceKey: oldKey, to: plain, destinationKey: nil,
                                          keepsFormat: false, progress: nil, countsBesideAbove: 0)
        XCTAssertEqual(decrypted.rowCounts, ["item": 3000, "tag": 2])
        XCTAssertEqual(try CommandLineClient.sqlite3(plain, sql: "SELECT count(*) FROM item;").stdout, "3000\n")

        let encrypted = path("encrypted.db")
        let summary = try Cipher.export(from: plain, sourceKey: nil, to: encrypted, destinationKey: newKey,
                                        keepsFormat: false, progress: nil, countsBesideAbove: 0)
        XCTAssertEqual(summary.rowCounts, ["item": 3000, "tag": 2])
        XCTAssertEqual(try cli(encrypted, passphrase: "counted new key", sql: "SELECT count(*) FROM item; PRAGMA user_version;"),
                       "3000\n7\n")
    }
}
