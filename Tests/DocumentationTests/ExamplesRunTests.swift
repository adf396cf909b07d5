import Foundation
import SecureStore
import XCTest

/// Runs the articles' examples on encrypted files in a temporary folder.
final class ExamplesRunTests: DocumentationTestCase {
    func testGettingStartedAndPorting() throws {
        let best = try gettingStarted(path: path("app.db"))
        XCTAssertEqual(best.map(\.name), ["Barbara", "Arthur"])
        XCTAssertNotNil(best.first?.id)
        XCTAssertTrue(Database.hasPlaintextHeader(path: path("app.db")) == false, "the file is encrypted")
        XCTAssertThrowsError(try openDatabase(at: path("app.db"), passphrase: "wrong"))
        let dbQueue = try openDatabase(at: path("app.db"), passphrase: "correct horse battery staple")
        let returned = try insertAndFetchWhereSQLiteHasReturning(dbQueue)
        if Database.sqliteLibVersionNumber >= 3_035_000 {
            XCTAssertEqual(returned.player?.name, "Dana")
            XCTAssertNotNil(returned.player?.id)
            XCTAssertNil(returned.error)
        } else {
            XCTAssertNil(returned.player)
            XCTAssertEqual(returned.error, "RETURNING needs SQLite 3.35 or later; this SQLCipher runs SQLite 3.15.2")
        }
    }

    func testKeysAndEncryption() throws {
        let key = Data((0..<32).map { UInt8($0) })
        let raw = try openWithRawKey(at: path("raw.db"), key: key)
        try raw.write { db in try db.execute(sql: "CREATE TABLE t (a)") }
        try raw.close()
        XCTAssertEqual(try openWithRawKey(at: path("raw.db"), key: key).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }, 0)

        setenv("APP_DB_PASSPHRASE", "from the environment", 1)
        let fromEnvironment = try openWithAKeyFromTheEnvironment(at: path("env.db"))
        try fromEnvironment.write { db in try db.execute(sql: "CREATE TABLE t (a)") }
        XCTAssertNil(getenv("APP_DB_PASSPHRASE"), "taken out of the environment")
        try fromEnvironment.close()
        XCTAssertTrue(try checkFile(at: path("env.db"), passphrase: "from the environment"))
        XCTAssertThrowsError(try openWithAKeyFromTheEnvironment(at: path("env.db")))

        _ = try gettingStarted(path: path("app.db"))
        // A new file meets the guidance on either line (1,300,000 SHA-1
        // iterations on 3.4.x, 256,000 SHA-512 on 4.x); 64,000 is weak.
        XCTAssertFalse(try hasWeakKeyDerivation(try openDatabase(at: path("app.db"), passphrase: "correct horse battery staple")))
        let weak = try DatabaseQueue(path: path("weak.db"), configuration: {
            var config = Configuration()
            config.cipherSettings = CipherSettings(kdfIterations: 64000)
            config.prepareDatabase { db in try db.usePassphrase("weak") }
            return config
        }())
        XCTAssertTrue(try hasWeakKeyDerivation(weak))
        try changeKey(of: try openDatabase(at: path("app.db"), passphrase: "correct horse battery staple"), to: "second")
        try rotateFileKey(at: path("app.db"), from: "second", to: "third")
        XCTAssertThrowsError(try checkFile(at: path("app.db"), passphrase: "second"))
        // The new key opens it with the page size it was given, only.
        XCTAssertThrowsError(try checkFile(at: path("app.db"), passphrase: "third"))
        let bigPages = CipherKey(passphrase: "third", settings: CipherSettings(pageSize: 8192))
        XCTAssertTrue(try Cipher.verify(at: path("app.db"), key: bigPages).isOK)

        let plain = try DatabaseQueue(path: path("plain.db"))
        try plain.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1)") }
        try plain.close()
        try encryptInPlace(plaintextFile: path("plain.db"), passphrase: "now encrypted")
        XCTAssertFalse(Database.hasPlaintextHeader(path: path("plain.db")))
        XCTAssertTrue(try checkFile(at: path("plain.db"), passphrase: "now encrypted"))

        // A file made with legacy settings opens with them only.
        let legacy = try openLegacyFile(at: path("legacy.db"), passphrase: "old")
        try legacy.write { db in try db.execute(sql: "CREATE TABLE t (a)") }
        try legacy.close()
        XCTAssertNoThrow(try openLegacyFile(at: path("legacy.db"), passphrase: "old").read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") })
        XCTAssertThrowsError(try openDatabase(at: path("legacy.db"), passphrase: "old"))
    }

    func testMigrations() throws {
        let sql = folder.appendingPathComponent("migrations")
        try FileManager.default.createDirectory(at: sql, withIntermediateDirectories: true)
        try "ALTER TABLE brand ADD COLUMN language TEXT;".write(to: sql.appendingPathComponent("0002_Zalora-v2.up.sql"), atomically: true, encoding: .utf8)
        try """
            CREATE TABLE brand_old (id TEXT PRIMARY KEY, name TEXT);
            INSERT INTO brand_old SELECT id, name FROM brand;
            DROP TABLE brand;
            ALTER TABLE brand_old RENAME TO brand;
            """.write(to: sql.appendingPathComponent("0002_Zalora-v2.down.sql"), atomically: true, encoding: .utf8)
        let migrator = try makeAppMigrator(sqlDirectory: sql)
        XCTAssertEqual(migrator.migrations, ["Zalora-v1", "Zalora-v2"])
        try checkBeforeRelease(migrator: migrator)

        var config = Configuration()
        config.prepareDatabase { db in try db.usePassphrase("migrations") }
        let dbQueue = try DatabaseQueue(path: path("m.db"), configuration: config)
        try migrateAndInspect(dbQueue, migrator: migrator)
        XCTAssertEqual(try dbQueue.read { db in try migrator.appliedMigrations(db) }, ["Zalora-v1", "Zalora-v2"])
        try rollBackLastRelease(dbQueue, migrator: migrator)
        XCTAssertEqual(try dbQueue.read { db in try migrator.appliedMigrations(db) }, ["Zalora-v1"])
    }

    func testConcurrency() async throws {
        _ = try gettingStarted(path: path("pool.db"))
        let dbPool = try openPool(at: path("pool.db"), passphrase: "correct horse battery staple")
        let cancellable = observePlayers(dbPool)
        let count = try await poolWork(dbPool)
        XCTAssertEqual(count, 3)
        let reported = try await cancellableReport(dbPool)
        XCTAssertEqual(reported, 3)
        let counts = try playersBeforeCleanup(dbPool)
        XCTAssertEqual(counts.before, 3)
        XCTAssertEqual(counts.after, 2)
        cancellable.cancel()
    }
}
