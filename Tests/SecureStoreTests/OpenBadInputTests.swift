import Foundation
import SecureStore
import TestSupport
import XCTest

/// The library's open path against bad files: `DatabaseQueue` and
/// `DatabasePool` throw a `DatabaseError` that says what is wrong (never a
/// crash), and the file is byte for byte the same afterwards.
final class OpenBadInputTests: SecureStoreTestCase {
    private let passphrase = "open path key"

    private enum Opener: CaseIterable {
        case queue, readonlyQueue, pool
    }

    private func open(_ file: String, with opener: Opener, passphrase: String? = nil) throws {
        var config = keyedConfiguration(passphrase: passphrase ?? self.passphrase)
        switch opener {
        case .queue:
            try DatabaseQueue(path: file, configuration: config).close()
        case .readonlyQueue:
            config.readonly = true
            try DatabaseQueue(path: file, configuration: config).close()
        case .pool:
            try DatabasePool(path: file, configuration: config).close()
        }
    }

    /// Opening fails with one of `codes`, a message containing `mentions`,
    /// and the file unchanged.
    private func assertRefused(
        _ file: String, codes: Set<ResultCode>, mentions: String, passphrase: String? = nil, line: UInt = #line
    ) throws {
        for opener in Opener.allCases {
            let before = try sha256(file)
            do {
                try open(file, with: opener, passphrase: passphrase)
                XCTFail("\(opener) opened \(file)", line: line)
            } catch let error as DatabaseError {
                XCTAssertTrue(codes.contains(error.resultCode), "\(opener): \(error)", line: line)
                XCTAssertTrue("\(error)".contains(mentions), "\(opener): \(error)", line: line)
            }
            XCTAssertEqual(try sha256(file), before, "\(opener) changed \(file)", line: line)
            for suffix in ["-wal", "-shm", "-journal"] {
                XCTAssertFalse(FileManager.default.fileExists(atPath: file + suffix), "\(opener) left \(file)\(suffix)", line: line)
            }
        }
    }

    private func makeGoodFile() throws -> String {
        let dbQueue = try makeEncryptedQueue("good.db", passphrase: passphrase)
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE filler (payload TEXT)")
            for _ in 0..<300 { try db.execute(sql: "INSERT INTO filler VALUES (hex(randomblob(100)))") }
        }
        try dbQueue.close()
        return path("good.db")
    }

    func testWrongKeyPlaintextSQLCipher4AndRandomBytes() throws {
        let good = try makeGoodFile()
        try assertRefused(good, codes: [.SQLITE_NOTADB], mentions: "the key is wrong", passphrase: "not the key")

        XCTAssertEqual(try CommandLineClient.sqlite3(path("plain.db"), sql: "CREATE TABLE t (a);").status, 0)
        try assertRefused(path("plain.db"), codes: [.SQLITE_NOTADB], mentions: "not encrypted")

        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/sqlcipher4-defaults.db")
        try FileManager.default.copyItem(atPath: fixture.path, toPath: path("sqlcipher4.db"))
        if SQLCipherLibrary.majorVersion >= 4 {
            // SQLCipher 4.12's defaults, read by this SQLCipher 4 library.
            let dbQueue = try DatabaseQueue(path: path("sqlcipher4.db"),
                                            configuration: CipherKey(passphrase: "fixture key").configuration(readonly: true))
            XCTAssertEqual(try dbQueue.read { try String.fetchOne($0, sql: "SELECT a FROM t") }, "made by SQLCipher 4 defaults")
            XCTAssertEqual(try dbQueue.read { try $0.cipherSettings }, CipherSettings.sqlcipher4Defaults)
            try dbQueue.close()
            try assertRefused(path("sqlcipher4.db"), codes: [.SQLITE_NOTADB], mentions: "the key is wrong")
        } else {
            try assertRefused(path("sqlcipher4.db"), codes: [.SQLITE_NOTADB], mentions: "may be a SQLCipher 4 file")
        }

        _ = FileManager.default.createFile(atPath: path("random.db"), contents: Data((0..<16384).map { _ in UInt8.random(in: 0...255) }))
        try assertRefused(path("random.db"), codes: [.SQLITE_NOTADB], mentions: "not a database")
    }

    func testTruncatedFiles() throws {
        let good = try fileBytes(makeGoodFile())
        // Less than a page (1 byte, a header's worth) is never read as an
        // empty database, nor overwritten.
        for cut in [1, 100, Int.random(in: 2..<1024), Int.random(in: 1025..<(good.count - 1)), Int.random(in: 1025..<(good.count - 1))] {
            let file = path("truncated-\(cut).db")
            _ = FileManager.default.createFile(atPath: file, contents: good.prefix(cut))
            // The key check reads sqlite_master; a cut further on shows up
            // when the damaged page is read, and never changes the file.
            do {
                for opener in Opener.allCases where opener != .pool {
                    let before = try sha256(file)
                    do {
                        var config = keyedConfiguration(passphrase: passphrase)
                        config.readonly = opener == .readonlyQueue
                        let dbQueue = try DatabaseQueue(path: file, configuration: config)
                        _ = try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM filler") }
                        XCTFail("cut at \(cut): \(opener) read every row")
                    } catch let error as DatabaseError {
                        XCTAssertTrue([.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode), "cut at \(cut): \(error)")
                    }
                    XCTAssertEqual(try sha256(file), before, "cut at \(cut): \(opener) changed the file")
                }
            }
        }
    }

    /// SQLCipher 1's format has no HMAC: its probe with a wrong key
    /// decrypts page 1 to noise, whose WAL flag SQLite follows 1 time in
    /// 256, creating `-wal` and `-shm` files beside the file. A read-write
    /// connection deletes them as it closes; a read-only one cannot, and
    /// the failed open removes them. 2,000 read-only opens with wrong raw
    /// keys, half of them by `Cipher.detectFormat`, which tries each format
    /// with its own settings: without the removal, some leave them (all
    /// but 1 time in 2,500).
    func testWrongKeysLeaveNoWALFiles() throws {
        let file = try makeGoodFile()
        for attempt in 0..<2000 {
            XCTAssertThrowsError(try attempt.isMultiple(of: 2)
                ? openReadOnlyWithRandomRawKey(file)
                : detectFormatWithRandomRawKey(file)) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_NOTADB, "attempt \(attempt)")
            }
            let left = ["-wal", "-shm"].filter { FileManager.default.fileExists(atPath: file + $0) }
            guard left.isEmpty else { return XCTFail("wrong key \(attempt) left \(left)") }
        }
        XCTAssertEqual(try DatabaseQueue(path: file, configuration: keyedConfiguration(passphrase: passphrase))
            .read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM filler") }, 300)
    }

    /// The probe's files are removed only under an exclusive lock, as
    /// SQLite removes a WAL: while another connection reads the file (it
    /// could be starting a WAL session of its own), they stay.
    func testProbeFilesStayWhileAnotherConnectionReads() throws {
        let file = try makeGoodFile()
        let reader = try DatabaseQueue(path: file, configuration: keyedConfiguration(passphrase: passphrase))
        var leftWhileReading = false
        try reader.inDatabase { db in
            // A read transaction holds SQLite's shared lock until it ends.
            try db.inTransaction(.deferred) {
                XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM filler"), 300)
                // 1 open in 256 creates them: 5,000 fail to, 1 time in 10^8.
                for _ in 0..<5000 where !leftWhileReading {
                    XCTAssertThrowsError(try openReadOnlyWithRandomRawKey(file))
                    leftWhileReading = FileManager.default.fileExists(atPath: file + "-wal")
                }
                return .commit
            }
        }
        XCTAssertTrue(leftWhileReading, "no probe created a -wal file, or one was removed under a reader's lock")
        XCTAssertEqual(try reader.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM filler") }, 300)
    }

    private func detectFormatWithRandomRawKey(_ file: String) throws {
        _ = try Cipher.detectFormat(at: file, key: CipherKey(rawKey: Self.randomRawKey()))
    }

    private static func randomRawKey() -> Data {
        Data((0..<32).map { _ in UInt8.random(in: 0...255) })
    }

    private func openReadOnlyWithRandomRawKey(_ file: String) throws {
        let key = Self.randomRawKey()
        var config = Configuration()
        config.readonly = true
        config.prepareDatabase { db in try db.useRawKey(key) }
        try DatabaseQueue(path: file, configuration: config).close()
    }

    func testDirectoryAndMissingFile() throws {
        try FileManager.default.createDirectory(atPath: path("directory.db"), withIntermediateDirectories: false)
        for opener in Opener.allCases {
            XCTAssertThrowsError(try open(path("directory.db"), with: opener)) { error in
                XCTAssertTrue("\(error)".contains("directory.db"), "\(opener): \(error)")
            }
        }
        // A read-only open of a missing file creates nothing.
        XCTAssertThrowsError(try open(path("missing.db"), with: .readonlyQueue)) { error in
            XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_CANTOPEN, "\(error)")
            XCTAssertTrue("\(error)".contains("missing.db"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("missing.db")))
    }

    /// As in SQLite and GRDB, an empty file is an empty database: a
    /// read-write open makes it a new encrypted database (the first page
    /// fixes the salt), a read-only open leaves it as it is.
    func testZeroByteFile() throws {
        _ = FileManager.default.createFile(atPath: path("empty.db"), contents: Data())
        try open(path("empty.db"), with: .readonlyQueue)
        XCTAssertEqual(try fileBytes(path("empty.db")).count, 0)
        try open(path("empty.db"), with: .queue)
        XCTAssertGreaterThan(try fileBytes(path("empty.db")).count, 0)
        XCTAssertFalse(Database.hasPlaintextHeader(path: path("empty.db")))
    }

    func testReadOnlyFileOpensForReading() throws {
        let good = try makeGoodFile()
        try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: good)
        let before = try sha256(good)
        try open(good, with: .readonlyQueue)
        XCTAssertEqual(try sha256(good), before)
    }
}
