import Foundation
import SecureStore
import TestSupport
import XCTest

/// `DatabaseQueue.inMemoryCopy(fromPath:configuration:)` and
/// `temporaryCopy(fromPath:configuration:)` of encrypted files: the copy
/// has the rows, the file never changes, a read-only copy refuses writes,
/// and nothing plaintext reaches a disk.
final class DatabaseQueueCopyTests: SecureStoreTestCase {
    private func makeSource() throws -> (path: String, sha: String) {
        let dbQueue = try makeEncryptedQueue("source.sqlite")
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO player (name) VALUES ('Arthur'), ('Barbara')")
        }
        try dbQueue.close()
        return (path("source.sqlite"), try sha256(path("source.sqlite")))
    }

    private func names(_ dbQueue: DatabaseQueue) throws -> [String] {
        try dbQueue.read { try String.fetchAll($0, sql: "SELECT name FROM player ORDER BY id") }
    }

    func testCopiesHaveTheRowsAndTheFileNeverChanges() throws {
        let source = try makeSource()
        let config = keyedConfiguration(passphrase: "secret")
        for copy in [try DatabaseQueue.inMemoryCopy(fromPath: source.path, configuration: config),
                     try DatabaseQueue.temporaryCopy(fromPath: source.path, configuration: config)] {
            XCTAssertEqual(try names(copy), ["Arthur", "Barbara"])
            try copy.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('Craig')") }
            XCTAssertEqual(try names(copy), ["Arthur", "Barbara", "Craig"])
            var migrator = DatabaseMigrator()
            migrator.registerMigration("Zalora-v1") { db in try db.execute(sql: "ALTER TABLE player ADD COLUMN score INTEGER") }
            try migrator.migrate(copy)
            XCTAssertEqual(try copy.read(migrator.appliedMigrations), ["Zalora-v1"])
        }
        XCTAssertEqual(try sha256(source.path), source.sha, "the source file is untouched")
        // The sqlcipher CLI still reads the two original rows with the key.
        let result = try CommandLineClient.sqlcipher(source.path, preamble: "PRAGMA key = 'secret';",
                                                     sql: "SELECT count(*) FROM player;")
        XCTAssertEqual(result.stdout, "2\n", result.stderr)
    }

    func testReadOnlyCopiesRefuseWritesForGood() throws {
        let source = try makeSource()
        var config = keyedConfiguration(passphrase: "secret")
        config.readonly = true
        for copy in [try DatabaseQueue.inMemoryCopy(fromPath: source.path, configuration: config),
                     try DatabaseQueue.temporaryCopy(fromPath: source.path, configuration: config)] {
            for _ in 0..<2 {
                XCTAssertThrowsError(try copy.write { try $0.execute(sql: "DROP TABLE player") }) { error in
                    XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_READONLY, "\(error)")
                }
                // A read in between does not lift it.
                XCTAssertEqual(try names(copy), ["Arthur", "Barbara"])
            }
        }
    }

    func testTheTemporaryCopyOfAnEncryptedFileIsKeyed() throws {
        let source = try makeSource()
        let copy = try DatabaseQueue.temporaryCopy(fromPath: source.path, configuration: keyedConfiguration(passphrase: "secret"))
        XCTAssertTrue(try copy.read { $0.isKeyed })

        // The unnamed database spills to a temporary file: an encrypted
        // source is not backed up into it without a key.
        let encrypted = try makeEncryptedQueue("source.sqlite")
        let unkeyed = try DatabaseQueue(path: "")
        XCTAssertThrowsError(try encrypted.backup(to: unkeyed)) { error in
            XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_MISUSE, "\(error)")
        }
        // In memory, it is, on SQLCipher 3; SQLCipher 4 refuses any unkeyed
        // destination, and says so.
        let inMemory = try DatabaseQueue()
        if SQLCipherLibrary.majorVersion >= 4 {
            XCTAssertThrowsError(try encrypted.backup(to: inMemory)) { error in
                XCTAssertTrue("\(error)".contains("backup is not supported with encrypted databases"), "\(error)")
            }
        } else {
            try encrypted.backup(to: inMemory)
            XCTAssertEqual(try names(inMemory), ["Arthur", "Barbara"])
        }
    }

    func testAWrongKeyFailsWithoutACopy() throws {
        let source = try makeSource()
        XCTAssertThrowsError(try DatabaseQueue.inMemoryCopy(fromPath: source.path, configuration: keyedConfiguration(passphrase: "wrong"))) { error in
            XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_NOTADB, "\(error)")
        }
        XCTAssertEqual(try sha256(source.path), source.sha)
    }

    func testNamedInMemoryDatabasesAreSharedByName() throws {
        let name = "shared-\(UUID().uuidString)"
        let first = try DatabaseQueue(named: name)
        try first.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1)") }
        try withExtendedLifetime(first) {
            XCTAssertEqual(try DatabaseQueue(named: name).read { try Int.fetchOne($0, sql: "SELECT a FROM t") }, 1)
            XCTAssertFalse(try DatabaseQueue(named: "other-\(UUID().uuidString)").read { try $0.tableExists("t") })
            XCTAssertFalse(try DatabaseQueue().read { try $0.tableExists("t") })
        }
        // Nothing was written to a file named like the database.
        XCTAssertFalse(FileManager.default.fileExists(atPath: "file:\(name)?mode=memory&cache=shared"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: name))
        // An encrypted file may be backed up into an empty one: it is memory
        // (SQLCipher 4 refuses, as for any unkeyed destination, and says so).
        let source = try makeSource()
        let encrypted = try DatabaseQueue(path: source.path, configuration: keyedConfiguration(passphrase: "secret"))
        let target = try DatabaseQueue(named: "copy-\(UUID().uuidString)")
        guard SQLCipherLibrary.majorVersion < 4 else {
            XCTAssertThrowsError(try encrypted.backup(to: target)) { error in
                XCTAssertTrue("\(error)".contains("backup is not supported with encrypted databases"), "\(error)")
            }
            return
        }
        try encrypted.backup(to: target)
        XCTAssertEqual(try names(target), ["Arthur", "Barbara"])
        // Into one that has pages, SQLite cannot make room for SQLCipher's
        // reserved bytes: the error says so.
        XCTAssertThrowsError(try encrypted.backup(to: first)) { error in
            let error = error as? DatabaseError
            XCTAssertEqual(error?.resultCode, .SQLITE_READONLY)
            XCTAssertTrue(error?.message?.contains("empty") == true, "\(String(describing: error))")
        }
    }

    func testJulianDaysGiveSQLitesDates() throws {
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.read { db in
            let day = try XCTUnwrap(Double.fetchOne(db, sql: "SELECT julianday('2013-01-01 00:30:00')"))
            XCTAssertEqual(Date(julianDay: day), Date(timeIntervalSince1970: 1_357_000_200))
            let withMilliseconds = try XCTUnwrap(Double.fetchOne(db, sql: "SELECT julianday('2024-02-29 23:59:59.123')"))
            let date = try XCTUnwrap(Date(julianDay: withMilliseconds))
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT strftime('%Y-%m-%d %H:%M:%f', ?)", arguments: [withMilliseconds]),
                           "2024-02-29 23:59:59.123")
            XCTAssertEqual(date.timeIntervalSince1970, 1_709_251_199.123, accuracy: 0.0015)
        }
        XCTAssertNil(Date(julianDay: .nan))
        XCTAssertNil(Date(julianDay: -1))
        XCTAssertNil(Date(julianDay: 6_000_000))
    }
}
