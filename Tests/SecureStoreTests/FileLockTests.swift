import Foundation
import SecureStore
import TestSupport
import XCTest

/// SQLite's locks are POSIX locks: closing any descriptor of a file drops
/// every lock the process holds on it. What the library reads of a database
/// file that may be open (a header, the salt, a backup copy) goes through
/// SQLite's own file layer, never through a descriptor of its own: else the
/// connections that have the file open lose their locks, and another
/// process, closing, takes itself for the WAL's last user, checkpoints it
/// and deletes the WAL they still use.
///
/// Each test keeps a pool open in WAL mode, does something to the file in
/// this process, then lets the `sqlcipher` CLI open and close the file: the
/// WAL must still be there.
final class FileLockTests: SecureStoreTestCase {
    private let passphrase = "file lock key"

    private func makePool() throws -> (DatabasePool, String) {
        let file = path("locked.db")
        let pool = try DatabasePool(path: file, configuration: keyedConfiguration(passphrase: passphrase))
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE item (name TEXT)")
            try db.execute(sql: "INSERT INTO item VALUES ('first')")
        }
        return (pool, file)
    }

    /// Another process opens the file, counts the rows and closes: the pool
    /// keeps its WAL, and goes on writing into it.
    private func assertPoolKeptItsLocks(_ pool: DatabasePool, _ file: String, rows: Int, line: UInt = #line) throws {
        let cli = try CommandLineClient.sqlcipher(file, preamble: "PRAGMA key = '\(passphrase)';", sql: "SELECT count(*) FROM item;")
        XCTAssertEqual(cli.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "\(rows)", cli.stderr, line: line)
        XCTAssertTrue(FileManager.default.fileExists(atPath: file + "-wal"),
                      "the sqlcipher CLI deleted the WAL the pool still uses: the pool had lost its locks", line: line)
        try pool.write { db in try db.execute(sql: "INSERT INTO item VALUES ('after')") }
        try pool.close()
        let dbQueue = try DatabaseQueue(path: file, configuration: keyedConfiguration(passphrase: passphrase))
        XCTAssertEqual(try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item") }, rows + 1, line: line)
        XCTAssertEqual(try dbQueue.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }, "ok", line: line)
    }

    /// A wrong key's open reads the header to say what is wrong.
    func testAFailedOpenKeepsTheLocksOfOpenConnections() throws {
        let (pool, file) = try makePool()
        for readonly in [false, true] {
            var config = keyedConfiguration(passphrase: "a wrong passphrase")
            config.readonly = readonly
            XCTAssertThrowsError(try DatabaseQueue(path: file, configuration: config))
        }
        XCTAssertThrowsError(try DatabasePool(path: file, configuration: keyedConfiguration(passphrase: "a wrong one")))
        XCTAssertFalse(Database.hasPlaintextHeader(path: file))
        try assertPoolKeptItsLocks(pool, file, rows: 1)
    }

    /// A pool reads the salt again after `changePassphrase`, to derive the
    /// new key for its next connection.
    func testDerivingANewKeyKeepsTheLocksOfOpenConnections() throws {
        let (pool, file) = try makePool()
        try pool.changePassphrase("file lock key 2")
        // Readers opened while another one is busy: new connections.
        let readers = DispatchGroup()
        for _ in 0..<4 {
            DispatchQueue.global().async(group: readers) {
                _ = try? pool.read { db in
                    Thread.sleep(forTimeInterval: 0.05)
                    return try Int.fetchOne(db, sql: "SELECT count(*) FROM item")
                }
            }
        }
        readers.wait()
        let cli = try CommandLineClient.sqlcipher(file, preamble: "PRAGMA key = 'file lock key 2';", sql: "SELECT count(*) FROM item;")
        XCTAssertEqual(cli.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "1", cli.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: file + "-wal"),
                      "the sqlcipher CLI deleted the WAL the pool still uses: the pool had lost its locks")
        try pool.write { db in try db.execute(sql: "INSERT INTO item VALUES ('after')") }
        XCTAssertEqual(try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item") }, 2)
    }

    /// `migrate-tool apply` copies the file for its backup inside a write
    /// transaction, then goes on with the same connection.
    func testABackupCopyKeepsTheLocksOfTheConnection() throws {
        let (pool, file) = try makePool()
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            try db.inTransaction(.immediate) {
                try db.copyMainFile(to: path("backup.db"))
                return .commit
            }
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: path("backup.db"))
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        let backup = try DatabaseQueue(path: path("backup.db"), configuration: keyedConfiguration(passphrase: passphrase))
        XCTAssertEqual(try backup.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item") }, 1)
        try backup.close()
        try assertPoolKeptItsLocks(pool, file, rows: 1)
    }
}
