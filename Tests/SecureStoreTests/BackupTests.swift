import Foundation
import SecureStore
import TestSupport
import XCTest

/// `backup(to:)` with SQLCipher: every page goes through the destination's
/// key, so an encrypted database is copied into keyed or in-memory
/// destinations only, never into a plaintext file.
final class BackupTests: SecureStoreTestCase {
    private func makeSource() throws -> DatabasePool {
        let source = try DatabasePool(path: path("source.db"), configuration: keyedConfiguration(passphrase: "source key"))
        try source.write { db in
            try db.execute(sql: "CREATE TABLE secret (id INTEGER PRIMARY KEY, text TEXT)")
            for index in 1...500 { try db.execute(sql: "INSERT INTO secret (text) VALUES (?)", arguments: ["confidential \(index)"]) }
        }
        return source
    }

    func testEncryptedCopyWithItsOwnKeyAndProgress() throws {
        let source = try makeSource()
        let destination = try DatabaseQueue(path: path("copy.db"), configuration: keyedConfiguration(passphrase: "copy key"))
        var steps: [DatabaseBackupProgress] = []
        try source.backup(to: destination, pagesPerStep: 1) { steps.append($0) }
        XCTAssertGreaterThan(steps.count, 2)
        XCTAssertEqual(steps.last?.isCompleted, true)
        XCTAssertEqual(steps.last?.remainingPageCount, 0)
        XCTAssertEqual(steps.map(\.completedPageCount), steps.map(\.completedPageCount).sorted())
        XCTAssertEqual(try destination.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM secret") }, 500)
        try destination.close()

        // The independent client reads the copy with the copy's key only.
        let copied = try CommandLineClient.sqlcipher(path("copy.db"), preamble: "PRAGMA key = 'copy key';",
                                                     sql: "SELECT text FROM secret WHERE id = 500;")
        XCTAssertEqual(copied.stdout, "confidential 500\n", copied.stderr)
        let withSourceKey = try CommandLineClient.sqlcipher(path("copy.db"), preamble: "PRAGMA key = 'source key';",
                                                            sql: "SELECT count(*) FROM secret;")
        XCTAssertNotEqual(withSourceKey.stdout, "500\n")
        XCTAssertFalse(try fileBytes(path("copy.db")).contains(Data("confidential".utf8)))
    }

    func testPlaintextFileDestinationIsRefusedAndUntouched() throws {
        let source = try makeSource()
        let plain = try DatabaseQueue(path: path("plain.db"))
        try plain.write { db in try db.execute(sql: "CREATE TABLE mine (a); INSERT INTO mine VALUES (1)") }
        let before = try sha256(path("plain.db"))
        XCTAssertThrowsError(try source.backup(to: plain)) { error in
            XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_MISUSE)
            XCTAssertTrue("\(error)".contains("plaintext copy of the encrypted database"), "\(error)")
        }
        XCTAssertEqual(try sha256(path("plain.db")), before)
        XCTAssertEqual(try plain.read { try Int.fetchOne($0, sql: "SELECT a FROM mine") }, 1)
        XCTAssertFalse(try fileBytes(path("plain.db")).contains(Data("confidential".utf8)))

        // In memory, nothing reaches a disk: allowed by SQLCipher 3, as
        // GRDB's in-memory copies; SQLCipher 4 copies an encrypted database
        // into an encrypted one only, and says so.
        let memory = try DatabaseQueue()
        if SQLCipherLibrary.majorVersion >= 4 {
            XCTAssertThrowsError(try source.backup(to: memory)) { error in
                XCTAssertTrue("\(error)".contains("backup is not supported with encrypted databases"), "\(error)")
            }
        } else {
            try source.backup(to: memory)
            XCTAssertEqual(try memory.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM secret") }, 500)
        }
    }

    func testAProgressErrorStopsTheBackup() throws {
        struct Stop: Error {}
        let source = try makeSource()
        let destination = try DatabaseQueue(path: path("copy.db"), configuration: keyedConfiguration(passphrase: "copy key"))
        try destination.write { db in try db.execute(sql: "CREATE TABLE before (a)") }
        XCTAssertThrowsError(try source.backup(to: destination, pagesPerStep: 1) { _ in throw Stop() }) { error in
            XCTAssertTrue(error is Stop)
        }
        XCTAssertTrue(try destination.read { try $0.tableExists("before") })
        XCTAssertFalse(try destination.read { try $0.tableExists("secret") })
    }

    func testVacuumAndVacuumInto() throws {
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (randomblob(100000))")
            try db.execute(sql: "DELETE FROM t")
        }
        let before = try FileManager.default.attributesOfItem(atPath: path("db.sqlite"))[.size] as! Int
        try dbQueue.writeWithoutTransaction { db in try db.vacuum() }
        let after = try FileManager.default.attributesOfItem(atPath: path("db.sqlite"))[.size] as! Int
        XCTAssertLessThan(after, before)
        guard Database.sqliteLibVersionNumber >= 3_027_000 else {
            XCTAssertThrowsError(try dbQueue.writeWithoutTransaction { db in try db.vacuum(into: self.path("copy.db")) }) { error in
                XCTAssertTrue("\(error)".contains("VACUUM INTO needs SQLite 3.27"), "\(error)")
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: path("copy.db")))
            return
        }
        // SQLCipher 4: an encrypted, private copy, which the CLI reads with
        // the same key.
        try dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "INSERT INTO t VALUES ('copied')")
            try db.vacuum(into: self.path("copy.db"))
        }
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: path("copy.db"))[.posixPermissions] as? Int, 0o600)
        XCTAssertFalse(Database.hasPlaintextHeader(path: path("copy.db")))
        XCTAssertFalse(try fileBytes(path("copy.db")).contains(Data("copied".utf8)))
        let read = try CommandLineClient.sqlcipher(path("copy.db"), preamble: "PRAGMA key = 'secret';", sql: "SELECT a FROM t;")
        XCTAssertEqual(read.stdout, "copied\n", read.stderr)
        XCTAssertThrowsError(try dbQueue.vacuum(into: path("copy.db")), "an existing file is never overwritten")
    }
}
