import Foundation
@testable import SecureStore
import TestSupport
import XCTest

/// Replacing a database file (`Cipher.rekey`, `encrypt` in place,
/// `upgrade`) never happens under a connection, and a connection whose file
/// was replaced by anything never writes into the replaced file.
final class FileReplacementTests: SecureStoreTestCase {
    private let oldKey = CipherKey(rawKey: Data(repeating: 0xAB, count: 32))
    private let newKey = CipherKey(rawKey: Data(repeating: 0xCD, count: 32))

    /// A file with ten rows in `t`, keyed with the old raw key.
    private func makeFile(_ name: String = "app.db", wal: Bool = false) throws -> String {
        let file = path(name)
        var config = oldKey.configuration()
        if wal { config.journalMode = .wal }
        let dbQueue = try DatabaseQueue(path: file, configuration: config)
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY)")
            for id in 1...10 { try db.execute(sql: "INSERT INTO t (id) VALUES (?)", arguments: [id]) }
        }
        try dbQueue.close()
        return file
    }

    private func rows(_ file: String, key: CipherKey) throws -> Int? {
        try Cipher.summary(at: file, key: key).rowCounts["t"]
    }

    private func assertInUse(_ body: () throws -> Void, naming words: [String], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            let error = error as? DatabaseError
            XCTAssertEqual(error?.extendedResultCode, .SECURESTORE_BUSY_IN_USE, "\(String(describing: error))", file: file, line: line)
            for word in words {
                XCTAssertTrue(error?.message?.contains(word) == true, "\(word) in \(error?.message ?? "")", file: file, line: line)
            }
        }
    }

    func testReplacementsRefuseWhileAPoolOrQueueOfThisProcessHasTheFile() throws {
        for wal in [true, false] {
            let file = try makeFile(wal ? "pool.db" : "queue.db", wal: wal)
            let writer: any DatabaseWriter = wal ? try DatabasePool(path: file, configuration: oldKey.configuration())
                : try DatabaseQueue(path: file, configuration: oldKey.configuration())
            assertInUse({ try Cipher.rekey(at: file, from: self.oldKey, to: self.newKey) }, naming: ["this process", "1 connection"])
            // Nothing changed, and the connection goes on.
            try writer.write { db in try db.execute(sql: "INSERT INTO t (id) VALUES (11)") }
            XCTAssertEqual(try writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }, 11)
            try writer.close()
            try Cipher.rekey(at: file, from: oldKey, to: newKey)
            XCTAssertEqual(try rows(file, key: newKey), 11)
            XCTAssertThrowsError(try rows(file, key: oldKey))
        }
    }

    func testEncryptInPlaceRefusesWhileAPlaintextQueueIsOpen() throws {
        let file = path("plain.db")
        let dbQueue = try DatabaseQueue(path: file)
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY)") }
        assertInUse({ try Cipher.encrypt(plaintextAt: file, to: file, key: self.newKey) }, naming: ["in use"])
        XCTAssertTrue(Database.hasPlaintextHeader(path: file))
        try dbQueue.close()
        try Cipher.encrypt(plaintextAt: file, to: file, key: newKey)
        XCTAssertFalse(Database.hasPlaintextHeader(path: file))
    }

    /// What a `mv`, a `cp` to a new name and a rename, or a tool that
    /// ignores SecureStore's lock does: a WAL connection notices before its
    /// next transaction (SQLite itself notices only in rollback mode).
    func testAConnectionWhoseFileWasReplacedFailsItsNextTransaction() throws {
        for wal in [true, false] {
            let file = try makeFile(wal ? "pool.db" : "queue.db", wal: wal)
            let writer: any DatabaseWriter = wal ? try DatabasePool(path: file, configuration: oldKey.configuration())
                : try DatabaseQueue(path: file, configuration: oldKey.configuration())
            try writer.write { db in try db.execute(sql: "INSERT INTO t (id) VALUES (11)") }
            // Another file takes the name, as `cp other app.db.new && mv
            // app.db.new app.db` would, after the old WAL (which the next
            // connection would read with the new file).
            let other = try makeFile(wal ? "other-pool.db" : "other-queue.db")
            for suffix in ["-wal", "-shm"] { unlink(file + suffix) }
            XCTAssertEqual(rename(other, file), 0)
            XCTAssertThrowsError(try writer.write { db in try db.execute(sql: "INSERT INTO t (id) VALUES (12)") }) { error in
                XCTAssertEqual((error as? DatabaseError)?.extendedResultCode, .SQLITE_READONLY_DBMOVED, "\(error)")
            }
            XCTAssertThrowsError(try writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }) { error in
                XCTAssertEqual((error as? DatabaseError)?.extendedResultCode, .SQLITE_READONLY_DBMOVED, "\(error)")
            }
            try writer.close()
            XCTAssertEqual(try rows(file, key: oldKey), 10, "the file at the path is the other one, untouched")
        }
    }

    func testAConnectionWhoseFileWasDeletedFailsItsNextTransaction() throws {
        let file = try makeFile(wal: true)
        let dbPool = try DatabasePool(path: file, configuration: oldKey.configuration())
        PrivateFile.removeDatabaseFiles(file)
        XCTAssertThrowsError(try dbPool.write { db in try db.execute(sql: "INSERT INTO t (id) VALUES (11)") }) { error in
            XCTAssertEqual((error as? DatabaseError)?.extendedResultCode, .SQLITE_READONLY_DBMOVED, "\(error)")
        }
        try dbPool.close()
    }

    /// A connection that opens while a replacement holds the file waits
    /// for it (its busy timeout), or fails at once without one.
    func testOpeningDuringAReplacementWaitsOrFails() throws {
        let file = try makeFile()
        let replacement = try FileReplacement(path: file, waitingForClose: 0)
        XCTAssertThrowsError(try DatabaseQueue(path: file, configuration: oldKey.configuration())) { error in
            XCTAssertEqual((error as? DatabaseError)?.extendedResultCode, .SECURESTORE_BUSY_REPLACING, "\(error)")
        }
        var waiting = oldKey.configuration()
        waiting.busyMode = .timeout(30)
        let opened = BackgroundWork { [waiting] in try DatabaseQueue(path: file, configuration: waiting) }
        replacement.release()
        let dbQueue = try opened.value()
        XCTAssertEqual(try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }, 10)
        try dbQueue.close()
    }

    /// The protocol, as another program sees and follows it: a read lock
    /// on byte 0x7FC00000 + pid, in `/proc/locks`.
    func testTheLockProtocolIsVisibleAndFollowedByAnotherProgram() throws {
        let file = try makeFile()
        let dbQueue = try DatabaseQueue(path: file, configuration: oldKey.configuration())
        let locks = try String(contentsOfFile: "/proc/locks", encoding: .utf8)
        let inode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: file)[.systemFileNumber] as? UInt64)
        let byte = 0x7FC0_0000 + Int(getpid())
        XCTAssertTrue(locks.split(separator: "\n").contains { $0.contains("OFDLCK") && $0.contains("READ") && $0.contains(":\(inode) \(byte) \(byte)") },
                      locks)
        try dbQueue.close()

        // A Python program that takes the read lock as the protocol says.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = ["python3", "-c", """
            import fcntl, os, struct, sys
            fd = os.open(sys.argv[1], os.O_RDONLY)
            fcntl.fcntl(fd, 37, struct.pack("hhqqi4x", fcntl.F_RDLCK, 0, 0x7FC00000 + os.getpid(), 1, 0))
            print("held", flush=True)
            sys.stdin.read()
            """, file]
        let input = Pipe(), output = Pipe()
        holder.standardInput = input
        holder.standardOutput = output
        try holder.run()
        XCTAssertTrue(String(decoding: output.fileHandleForReading.availableData, as: UTF8.self).hasPrefix("held"))
        assertInUse({ try Cipher.rekey(at: file, from: self.oldKey, to: self.newKey) },
                    naming: ["pid \(holder.processIdentifier)", "a SecureStore connection"])
        try input.fileHandleForWriting.close()
        holder.waitUntilExit()
        try Cipher.rekey(at: file, from: oldKey, to: newKey)
        XCTAssertEqual(try rows(file, key: newKey), 10)
    }

    func testAReplacementActsOnTheFileASymbolicLinkNames() throws {
        try FileManager.default.createDirectory(atPath: path("real"), withIntermediateDirectories: false)
        let target = try makeFile("real/app.db", wal: true)
        try FileManager.default.createSymbolicLink(atPath: path("app.db"), withDestinationPath: "real/app.db")
        try Cipher.rekey(at: path("app.db"), from: oldKey, to: newKey)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: path("app.db")), "real/app.db")
        XCTAssertEqual(try rows(target, key: newKey), 10)
        XCTAssertThrowsError(try rows(target, key: oldKey))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["app.db", "real"])
    }

    func testAReplacementRefusesAFileWithOtherHardLinks() throws {
        let file = try makeFile()
        XCTAssertEqual(link(file, path("other-name.db")), 0)
        XCTAssertThrowsError(try Cipher.rekey(at: file, from: oldKey, to: newKey)) { error in
            XCTAssertEqual((error as? DatabaseError)?.extendedResultCode, .SECURESTORE_CANTOPEN_HARD_LINKS, "\(error)")
            XCTAssertTrue("\(error)".contains("2 hard links"), "\(error)")
        }
        XCTAssertEqual(try rows(file, key: oldKey), 10)
        XCTAssertEqual(try rows(path("other-name.db"), key: oldKey), 10)
    }

    func testConnectionsToMemoryTakeNoFileLock() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY)") }
        let locks = try String(contentsOfFile: "/proc/locks", encoding: .utf8)
        XCTAssertFalse(locks.contains(" \(0x7FC0_0000 + Int(getpid())) "))
    }
}
