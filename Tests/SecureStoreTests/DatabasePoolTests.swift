import Dispatch
import Foundation
@testable import SecureStore
import TestSupport
import XCTest

final class DatabasePoolTests: SecureStoreTestCase {
    private func makePool(passphrase: String = "secret", readers: Int = 4) throws -> DatabasePool {
        var config = keyedConfiguration(passphrase: passphrase)
        config.maximumReaderCount = readers
        return try DatabasePool(path: path("pool.sqlite"), configuration: config)
    }

    func testWALModeAndEncryptedRoundTripWithTheCLI() throws {
        let dbPool = try makePool()
        try dbPool.write { db in
            try db.execute(sql: "CREATE TABLE t (a TEXT); INSERT INTO t VALUES ('pooled')")
        }
        XCTAssertEqual(try dbPool.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }, "wal")
        // GRDB's pool setting: synchronous = NORMAL (1) on the writer.
        XCTAssertEqual(try dbPool.write { try Int.fetchOne($0, sql: "PRAGMA synchronous") }, 1)
        XCTAssertEqual(try dbPool.read { try String.fetchOne($0, sql: "SELECT a FROM t") }, "pooled")
        try dbPool.close()
        let cli = try CommandLineClient.sqlcipher(path("pool.sqlite"), preamble: "PRAGMA key = 'secret';", sql: "SELECT a FROM t;")
        XCTAssertEqual(cli.stdout, "pooled\n", cli.stderr)
        XCTAssertNotEqual(try CommandLineClient.sqlite3(path("pool.sqlite"), sql: "SELECT a FROM t;").status, 0)
        XCTAssertThrowsError(try makePool(passphrase: "wrong")) { error in
            XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_NOTADB)
        }
    }

    func testCheckpointTruncatesTheWALFile() throws {
        let dbPool = try makePool()
        try dbPool.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (randomblob(10000))") }
        let wal = path("pool.sqlite") + "-wal"
        XCTAssertGreaterThan(try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int ?? 0, 0)
        let frames = try dbPool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        XCTAssertEqual(frames.walFrameCount, 0)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int, 0)
        XCTAssertEqual(try dbPool.read { db in try Int.fetchOne(db, sql: "SELECT length(a) FROM t") }, 10000)
        // Not in WAL mode: nothing to copy.
        let dbQueue = try makeEncryptedQueue("queue.sqlite")
        let none = try dbQueue.inDatabase { db in try db.checkpoint() }
        XCTAssertEqual(none.walFrameCount, -1)
    }

    func testKeyIsDerivedOncePerPool() throws {
        try makePool().write { db in try db.execute(sql: "CREATE TABLE t (a)") }
        let dbPool = try makePool(readers: 5)
        // Five readers busy at once: five connections.
        let group = DispatchGroup()
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        for _ in 0..<5 {
            DispatchQueue.global().async(group: group) {
                _ = try? dbPool.read { db -> Int? in
                    started.signal()
                    release.wait()
                    return try Int.fetchOne(db, sql: "SELECT count(*) FROM t")
                }
            }
        }
        for _ in 0..<5 { started.wait() }
        for _ in 0..<5 { release.signal() }
        group.wait()
        XCTAssertEqual(dbPool.keyDerivationCount, 1, "six connections, one PBKDF2")
    }

    func testReadsSeeASnapshotWhileAWriteIsInProgress() throws {
        let dbPool = try makePool()
        try dbPool.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1)") }
        let inserted = DispatchSemaphore(value: 0), readDone = DispatchSemaphore(value: 0)
        let writeDone = DispatchGroup()
        DispatchQueue.global().async(group: writeDone) {
            try? dbPool.write { db in
                try db.execute(sql: "INSERT INTO t VALUES (2)")
                inserted.signal()
                readDone.wait()
            }
        }
        inserted.wait()
        // The write transaction is open: a concurrent read sees the old state.
        XCTAssertEqual(try dbPool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") }, 1)
        readDone.signal()
        writeDone.wait()
        XCTAssertEqual(try dbPool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") }, 2)
        XCTAssertThrowsError(try dbPool.read { db in try db.execute(sql: "INSERT INTO t VALUES (3)") })
    }

    /// Two writers and eight readers for SECURESTORE_POOL_SECONDS (3 in CI,
    /// 30 in the documented run): no error, no SQLITE_BUSY reaching the
    /// caller, and no reader ever sees half of a transaction.
    func testConcurrentWritersAndReadersMakeNoErrors() async throws {
        let seconds = Double(ProcessInfo.processInfo.environment["SECURESTORE_POOL_SECONDS"] ?? "") ?? 3
        let deadline = Date().addingTimeInterval(seconds)
        let dbPool = try makePool()
        try await dbPool.write { db in try db.execute(sql: "CREATE TABLE t (n INTEGER, pair INTEGER)") }
        let (writes, reads) = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for writer in 0..<2 {
                group.addTask {
                    var n = 0
                    while Date() < deadline {
                        // Two rows per transaction: readers must never see one alone.
                        let value = writer * 1_000_000 + n
                        try await dbPool.write { db in
                            try db.execute(sql: "INSERT INTO t VALUES (?, 0), (?, 1)", arguments: [value, value])
                        }
                        n += 1
                    }
                    return (n, 0)
                }
            }
            for _ in 0..<8 {
                group.addTask {
                    var reads = 0
                    while Date() < deadline {
                        let (count, pairs) = try await dbPool.read { db in
                            (try Int.fetchOne(db, sql: "SELECT count(*) FROM t") ?? -1,
                             try Int.fetchOne(db, sql: "SELECT count(*) FROM t WHERE pair = 1") ?? -1)
                        }
                        XCTAssertEqual(count % 2, 0, "a half-written transaction was visible")
                        XCTAssertEqual(pairs * 2, count, "the snapshot changed within one read")
                        reads += 1
                    }
                    return (0, reads)
                }
            }
            var total = (0, 0)
            for try await (w, r) in group { total = (total.0 + w, total.1 + r) }
            return total
        }
        let rows = try await dbPool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }
        XCTAssertEqual(rows, writes * 2)
        XCTAssertGreaterThan(writes, 0)
        XCTAssertGreaterThan(reads, 0)
        print("pool load: \(seconds) s, \(writes) write transactions, \(reads) read transactions, 0 errors")
    }

    func testChangePassphraseKeepsReadersWorking() throws {
        let dbPool = try makePool()
        try dbPool.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1)") }
        XCTAssertEqual(try dbPool.read { try Int.fetchOne($0, sql: "SELECT a FROM t") }, 1)
        try dbPool.changePassphrase("rotated")
        // Readers (re)opened after the change read with the new key.
        XCTAssertEqual(try dbPool.read { try Int.fetchOne($0, sql: "SELECT a FROM t") }, 1)
        try dbPool.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        XCTAssertEqual(try dbPool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") }, 2)
        try dbPool.close()
        XCTAssertThrowsError(try makePool(passphrase: "secret"))
        XCTAssertEqual(try makePool(passphrase: "rotated").read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") }, 2)
        let cli = try CommandLineClient.sqlcipher(path("pool.sqlite"), preamble: "PRAGMA key = 'rotated';", sql: "SELECT count(*) FROM t;")
        XCTAssertEqual(cli.stdout, "2\n", cli.stderr)
    }

    /// GRDB's way: change the key in a barrier, then invalidate the readers,
    /// whose `prepareDatabase` gives the new passphrase when they reopen.
    func testInvalidateReadOnlyConnectionsReopensTheReadersWithTheNewPassphrase() throws {
        let passphrase = Locked("secret")
        var config = Configuration()
        config.prepareDatabase { db in try db.usePassphrase(passphrase.value) }
        let dbPool = try DatabasePool(path: path("pool.sqlite"), configuration: config)
        try dbPool.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1)") }
        let before = try dbPool.read { db in db.description }
        try dbPool.barrierWriteWithoutTransaction { db in
            passphrase.value = "new secret"
            try db.changePassphrase("new secret")
            dbPool.invalidateReadOnlyConnections()
        }
        let (after, count) = try dbPool.read { db in (db.description, try Int.fetchOne(db, sql: "SELECT count(*) FROM t")) }
        XCTAssertNotEqual(after, before, "the reader of before the change is closed")
        XCTAssertEqual(count, 1)
        try dbPool.close()
        let cli = try CommandLineClient.sqlcipher(path("pool.sqlite"), preamble: "PRAGMA key = 'new secret'; \(Self.newFileKDFPragma)",
                                                  sql: "SELECT count(*) FROM t;")
        XCTAssertEqual(cli.stdout, "1\n", cli.stderr)
    }

    /// GRDB's way to set cipher options: pragmas after the key, in
    /// prepareDatabase. The pool's readers, keyed with a key the pool
    /// derives once, must derive it with that `kdf_iter` too.
    func testKDFIterationsSetInPrepareDatabaseReachThePoolsReaders() throws {
        let created = try CommandLineClient.sqlcipher(path("kdf.sqlite"), preamble: "PRAGMA key = 'secret'; PRAGMA kdf_iter = 128000;",
                                                      sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1);")
        XCTAssertEqual(created.status, 0, created.stderr)
        var config = Configuration()
        config.prepareDatabase { db in
            try db.usePassphrase("secret")
            try db.execute(sql: "PRAGMA kdf_iter = 128000")
        }
        config.maximumReaderCount = 3
        let dbPool = try DatabasePool(path: path("kdf.sqlite"), configuration: config)
        try dbPool.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        // Three readers at once: each opens with the pool's derived key.
        let counts = concurrentReads(dbPool, readers: 3) { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "PRAGMA kdf_iter"), 128000)
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM t")
        }
        XCTAssertEqual(counts, [2, 2, 2])
        XCTAssertLessThanOrEqual(dbPool.keyDerivationCount, 2, "the key is derived once per iteration count, not per reader")
        // A new file: SQLCipher derives the writer's key, the pool the readers'.
        let fresh = try DatabasePool(path: path("fresh.sqlite"), configuration: config)
        try fresh.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1)") }
        XCTAssertEqual(try fresh.read { db in try Int.fetchOne(db, sql: "SELECT a FROM t") }, 1)
        try fresh.close()
        let cli = try CommandLineClient.sqlcipher(path("fresh.sqlite"), preamble: "PRAGMA key = 'secret'; PRAGMA kdf_iter = 128000;",
                                                  sql: "SELECT a FROM t;")
        XCTAssertEqual(cli.stdout, "1\n", cli.stderr)
    }

    /// GRDB's way to read a SQLCipher 3 file with SQLCipher 4, and the
    /// format SecureStore finds by itself: in both, every reader of a pool
    /// reads with the key the file was made with, derived once.
    func testSQLCipher3FileInAPoolWithCompatibilityInPrepareDatabaseOrDetected() throws {
        let v3 = CommandLineClient.sqlcipherMajorVersion >= 4 ? "PRAGMA cipher_compatibility = 3;" : ""
        let created = try CommandLineClient.sqlcipher(path("v3.sqlite"), preamble: "PRAGMA key = 'secret'; \(v3)",
                                                      sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1);")
        XCTAssertEqual(created.status, 0, created.stderr)
        var grdbWay = Configuration()
        grdbWay.prepareDatabase { db in
            try db.usePassphrase("secret")
            try db.execute(sql: "PRAGMA cipher_compatibility = 3")
        }
        // Without an iteration count, so that the open finds the format.
        for config in [grdbWay, keyedConfiguration(passphrase: "secret", cipherSettings: CipherSettings())] {
            var config = config
            config.maximumReaderCount = 3
            let dbPool = try DatabasePool(path: path("v3.sqlite"), configuration: config)
            try dbPool.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
            let counts = concurrentReads(dbPool, readers: 3) { db in
                XCTAssertEqual(try db.cipherSettings?.kdfIterations, 64000)
                XCTAssertEqual(try db.cipherSettings?.pageSize, 1024)
                return try Int.fetchOne(db, sql: "SELECT count(*) FROM t")
            }
            XCTAssertEqual(counts.count, 3)
            XCTAssertEqual(Set(counts).count, 1, "\(counts)")
            XCTAssertFalse(counts.contains(-1), "every reader reads: \(counts)")
            XCTAssertLessThanOrEqual(dbPool.keyDerivationCount, 2, "derived once per setting, not per reader")
            try dbPool.close()
        }
        // Still a SQLCipher 3 file that SQLCipher 3 settings read.
        let cli = try CommandLineClient.sqlcipher(path("v3.sqlite"), preamble: "PRAGMA key = 'secret'; \(v3)",
                                                  sql: "SELECT count(*) FROM t;")
        XCTAssertEqual(cli.stdout, "3\n", cli.stderr)
    }

    func testAReaderInUseWhenInvalidatedIsClosedWhenItsReadEnds() throws {
        let dbPool = try makePool(readers: 1)
        try dbPool.write { db in try db.execute(sql: "CREATE TABLE t (a)") }
        let first = try dbPool.read { db in
            dbPool.invalidateReadOnlyConnections()
            return db.description
        }
        let second = try dbPool.read { db in db.description }
        let third = try dbPool.read { db in db.description }
        XCTAssertNotEqual(first, second)
        XCTAssertEqual(second, third, "a reader that was not invalidated is reused")
    }

    func testMigratorAndRecordsWorkOnAPool() throws {
        let dbPool = try makePool()
        let migrator = ZaloraMigrations.swiftMigrator()
        try migrator.migrate(dbPool)
        XCTAssertEqual(try dbPool.read { try migrator.appliedMigrations($0) }, migrator.migrations)
        try dbPool.write { db in
            try db.execute(sql: "INSERT INTO brandRGDB (brandId, name, language) VALUES ('b1', 'One', 'en')")
        }
        XCTAssertEqual(try dbPool.read { try Row.fetchOne($0, sql: "SELECT name FROM brandRGDB") }, ["name": "One"])
        try migrator.rollback(dbPool, to: "Zalora-v1")
        XCTAssertEqual(try dbPool.read { try migrator.appliedMigrations($0) }, ["Zalora-v1"])
        XCTAssertEqual(try dbPool.read { try String.fetchOne($0, sql: "SELECT keywords FROM brandRGDB") }, nil)
    }

    /// As GRDB's pools: the -wal and -shm files exist as soon as the pool is
    /// open, and a closed pool neither reads nor writes (SQLITE_MISUSE), even
    /// though a read would have opened a new reader.
    func testOpenPoolHasItsWALFilesAndAClosedPoolRefusesAccess() throws {
        let dbPool = try makePool()
        XCTAssertTrue(FileManager.default.fileExists(atPath: dbPool.path + "-wal"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: dbPool.path + "-shm"))
        try dbPool.read { db in _ = try Int.fetchOne(db, sql: "SELECT 1") }
        try dbPool.close()
        for access in [
            { try dbPool.read { db in _ = try Int.fetchOne(db, sql: "SELECT 1") } },
            { try dbPool.write { db in try db.execute(sql: "SELECT 1") } },
        ] as [() throws -> Void] {
            XCTAssertThrowsError(try access()) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_MISUSE, "\(error)")
            }
        }
        try dbPool.close()   // closing again does nothing
    }

    func testReleaseMemoryClosesIdleReadersUnlessTheyArePersistent() throws {
        for persistent in [false, true] {
            let opened = Locked(0)
            var config = keyedConfiguration(passphrase: "secret")
            config.prepareDatabase { _ in opened.mutate { $0 += 1 } }
            config.persistentReadOnlyConnections = persistent
            let dbPool = try DatabasePool(path: path("release-\(persistent).sqlite"), configuration: config)
            try dbPool.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1)") }
            XCTAssertEqual(try dbPool.read { try Int.fetchOne($0, sql: "SELECT a FROM t") }, 1)
            let afterFirstRead = opened.value   // the writer and one reader
            dbPool.releaseMemory()
            XCTAssertEqual(try dbPool.read { try Int.fetchOne($0, sql: "SELECT a FROM t") }, 1)
            XCTAssertEqual(opened.value, persistent ? afterFirstRead : afterFirstRead + 1, "persistent: \(persistent)")
        }
    }
}
