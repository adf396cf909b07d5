import Foundation
@testable import SecureStore
import TestSupport
import XCTest

/// New files keyed with a passphrase get a KDF that meets OWASP's PBKDF2
/// guidance (1,300,000 iterations of SHA-1 on SQLCipher 3.4.x, SQLCipher
/// 4's 256,000 of SHA-512 on 4.x); existing files keep opening with what
/// they were made with; an explicit lower count works, with a warning.
final class NewFileKeyDerivationTests: SecureStoreTestCase {
    private let sqlcipher3 = SQLCipherLibrary.majorVersion == 3
    /// What a new file gets: 1,300,000 on SQLCipher 3.4.x, 256,000 on 4.x.
    private var recommended: Int { sqlcipher3 ? 1_300_000 : 256_000 }

    /// The warnings the library logs while `body` runs.
    private func warnings(during body: () throws -> Void) rethrows -> [String] {
        let logged = Locked<[String]>([])
        let previous = Database.logError
        Database.logError = { code, message in if code == .SQLITE_WARNING { logged.mutate { $0.append(message) } } }
        defer { Database.logError = previous }
        try body()
        return logged.value
    }

    private func kdfIterations(_ dbQueue: DatabaseQueue) throws -> Int? {
        try dbQueue.read { db in try db.cipherSettings?.kdfIterations }
    }

    func testANewFileMeetsTheGuidanceAndOpensAgainWithoutSettings() throws {
        let config = keyedConfiguration(passphrase: "strong", cipherSettings: CipherSettings())
        let logged = try warnings {
            let dbQueue = try DatabaseQueue(path: path("new.db"), configuration: config)
            try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1)") }
            XCTAssertEqual(try kdfIterations(dbQueue), recommended)
            let settings = try XCTUnwrap(try dbQueue.read { db in try db.cipherSettings })
            XCTAssertFalse(KeyDerivationStrength(settings).isWeak, "\(settings)")
            XCTAssertEqual(settings.resolved(), CipherSettings.newFileDefaults)
            try dbQueue.close()
        }
        XCTAssertEqual(logged, [], "no warning for the defaults")

        // Opened again with the same configuration: found, and kept.
        let reopened = try DatabaseQueue(path: path("new.db"), configuration: config)
        XCTAssertEqual(try reopened.read { db in try Int.fetchOne(db, sql: "SELECT a FROM t") }, 1)
        XCTAssertEqual(try kdfIterations(reopened), recommended)
        try reopened.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        try reopened.close()

        // An independent client reads it with that count, and only with it.
        let cli = try CommandLineClient.sqlcipher(path("new.db"), preamble: "PRAGMA key = 'strong'; PRAGMA kdf_iter = \(recommended);",
                                                  sql: "SELECT count(*) FROM t;")
        XCTAssertEqual(cli.stdout, "2\n", cli.stderr)
        if sqlcipher3 {
            let cliDefaults = try CommandLineClient.sqlcipher(path("new.db"), preamble: "PRAGMA key = 'strong';", sql: "SELECT count(*) FROM t;")
            XCTAssertNotEqual(cliDefaults.status, 0, "SQLCipher 3.4.1's default 64,000 does not open it")
        }
    }

    func testAFileMadeWithTheLibraryDefaultsKeepsThem() throws {
        // Made by the sqlcipher CLI with its defaults (64,000 on 3.4.1),
        // or in SQLCipher 3's format on 4.x.
        let preamble = "PRAGMA key = 'old';" + (sqlcipher3 ? "" : " PRAGMA cipher_compatibility = 3;")
        let made = try CommandLineClient.sqlcipher(path("old.db"), preamble: preamble, sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1);")
        XCTAssertEqual(made.status, 0, made.stderr)
        let dbQueue = try DatabaseQueue(path: path("old.db"), configuration: keyedConfiguration(passphrase: "old", cipherSettings: CipherSettings()))
        XCTAssertEqual(try kdfIterations(dbQueue), 64000)
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        try dbQueue.close()
        let cli = try CommandLineClient.sqlcipher(path("old.db"), preamble: preamble, sql: "SELECT count(*) FROM t;")
        XCTAssertEqual(cli.stdout, "2\n", "the file keeps its settings: \(cli.stderr)")
    }

    /// GRDB's way to set cipher options, pragmas after the key: a new file
    /// gets the new-file count with them, and opens again with them.
    func testPragmasAfterTheKeyKeepWorking() throws {
        var config = Configuration()
        config.prepareDatabase { db in
            try db.usePassphrase("grdb way")
            try db.execute(sql: "PRAGMA cipher_page_size = 8192")
        }
        let dbQueue = try DatabaseQueue(path: path("grdb.db"), configuration: config)
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1)") }
        XCTAssertEqual(try dbQueue.read { db in try db.cipherSettings?.pageSize }, 8192)
        XCTAssertEqual(try kdfIterations(dbQueue), recommended)
        try dbQueue.close()
        let reopened = try DatabaseQueue(path: path("grdb.db"), configuration: config)
        XCTAssertEqual(try reopened.read { db in try Int.fetchOne(db, sql: "SELECT a FROM t") }, 1)
        XCTAssertEqual(try kdfIterations(reopened), recommended)
        try reopened.close()
        let dbPool = try DatabasePool(path: path("grdb.db"), configuration: config)
        XCTAssertEqual(concurrentReads(dbPool, readers: 2) { db in try Int.fetchOne(db, sql: "SELECT a FROM t") }, [1, 1])
        let cli = try CommandLineClient.sqlcipher(path("grdb.db"), preamble: "PRAGMA key = 'grdb way'; PRAGMA cipher_page_size = 8192; \(Self.newFileKDFPragma)",
                                                  sql: "SELECT a FROM t;")
        XCTAssertEqual(cli.stdout, "1\n", cli.stderr)
    }

    func testAnExplicitLowerCountWorksWithAWarning() throws {
        let config = keyedConfiguration(passphrase: "weak", cipherSettings: CipherSettings(kdfIterations: 64000))
        let logged = try warnings {
            let dbQueue = try DatabaseQueue(path: path("weak.db"), configuration: config)
            try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (a)") }
            XCTAssertEqual(try kdfIterations(dbQueue), 64000)
            try dbQueue.close()
        }
        XCTAssertEqual(logged.count, 1, "\(logged)")
        let guidance = sqlcipher3 ? "guidance 1,300,000" : "guidance 210,000"
        XCTAssertTrue(logged.first?.contains("weak key derivation") == true && logged.first?.contains(guidance) == true, "\(logged)")
        XCTAssertTrue(logged.first?.contains(path("weak.db")) == true, "the warning names the file: \(logged)")
        XCTAssertFalse(logged.joined().contains("'weak'"), "never the passphrase")
        // Opening it again is no new file: no warning.
        XCTAssertEqual(try warnings { _ = try DatabaseQueue(path: path("weak.db"), configuration: config) }, [])
    }

    func testARawKeyHasNoDerivationToStrengthen() throws {
        let key = Data((0..<32).map { UInt8($0) })
        let logged = try warnings {
            let dbQueue = try DatabaseQueue(path: path("raw.db"), configuration: rawKeyConfiguration(key))
            try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (a)") }
            XCTAssertEqual(try kdfIterations(dbQueue), CipherSettings.libraryDefaults.kdfIterations)
        }
        XCTAssertEqual(logged, [])
        let hex = key.map { String(format: "%02x", $0) }.joined()
        let cli = try CommandLineClient.sqlcipher(path("raw.db"), preamble: "PRAGMA key = \"x'\(hex)'\";", sql: "SELECT count(*) FROM t;")
        XCTAssertEqual(cli.stdout, "0\n", cli.stderr)
    }

    func testAPoolDerivesTheStrongKeyOnce() throws {
        var config = keyedConfiguration(passphrase: "pool", cipherSettings: CipherSettings())
        config.maximumReaderCount = 4
        let dbPool = try DatabasePool(path: path("pool.db"), configuration: config)
        try dbPool.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1)") }
        let counts = concurrentReads(dbPool, readers: 4) { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }
        XCTAssertEqual(counts, [1, 1, 1, 1])
        XCTAssertEqual(dbPool.keyDerivationCount, 1, "the writer made the file (SQLCipher derived); the readers share one key")
        XCTAssertEqual(try dbPool.read { db in try db.cipherSettings?.kdfIterations }, recommended)
        try dbPool.close()

        // An existing strong file: the writer finds the format, the readers
        // start with it.
        let reopened = try DatabasePool(path: path("pool.db"), configuration: config)
        let afterWriter = reopened.keyDerivationCount
        let values = concurrentReads(reopened, readers: 4) { db in try Int.fetchOne(db, sql: "SELECT a FROM t") }
        XCTAssertEqual(values, [1, 1, 1, 1])
        XCTAssertLessThanOrEqual(reopened.keyDerivationCount, afterWriter + 1, "four readers, at most one more derivation")
    }

    func testCipherEncryptAndRekeyGiveNewPassphrasesTheStrongCount() throws {
        let plain = try DatabaseQueue(path: path("plain.db"))
        try plain.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1)") }
        try plain.close()
        let logged = try warnings {
            try Cipher.encrypt(plaintextAt: path("plain.db"), to: path("enc.db"), key: CipherKey(passphrase: "first"))
        }
        XCTAssertEqual(logged, [])
        let encrypted = try DatabaseQueue(path: path("enc.db"), configuration: keyedConfiguration(passphrase: "first", cipherSettings: CipherSettings()))
        XCTAssertEqual(try kdfIterations(encrypted), recommended)
        try encrypted.close()

        // A weak file, re-keyed to a new passphrase that names no count.
        let weak = CipherKey(passphrase: "first", settings: CipherSettings(kdfIterations: 64000))
        try Cipher.rekey(at: path("enc.db"), from: CipherKey(passphrase: "first"), to: weak)
        try Cipher.rekey(at: path("enc.db"), from: weak, to: CipherKey(passphrase: "second"))
        let rekeyed = try DatabaseQueue(path: path("enc.db"), configuration: keyedConfiguration(passphrase: "second", cipherSettings: CipherSettings()))
        XCTAssertEqual(try kdfIterations(rekeyed), recommended)
        XCTAssertEqual(try rekeyed.read { db in try Int.fetchOne(db, sql: "SELECT a FROM t") }, 1)
        try rekeyed.close()

        // An explicit lower count for the new key: kept, with a warning.
        let lowered = try warnings {
            try Cipher.rekey(at: path("enc.db"), from: CipherKey(passphrase: "second"), to: weak)
        }
        XCTAssertEqual(lowered.count, 1, "\(lowered)")
        // (On SQLCipher 4 a 64,000-iteration SHA-512 file is no format the
        // open looks for: the count is given, as it must be.)
        let reopened = try DatabaseQueue(path: path("enc.db"), configuration: keyedConfiguration(passphrase: "first", cipherSettings: weak.settings))
        XCTAssertEqual(try kdfIterations(reopened), 64000)
    }

    func testAWrongKeyNamesEveryFormatTried() throws {
        let dbQueue = try DatabaseQueue(path: path("new.db"), configuration: keyedConfiguration(passphrase: "right", cipherSettings: CipherSettings()))
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (a)") }
        try dbQueue.close()
        XCTAssertThrowsError(try DatabaseQueue(path: path("new.db"), configuration: keyedConfiguration(passphrase: "wrong", cipherSettings: CipherSettings()))) { error in
            XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_NOTADB)
            XCTAssertTrue("\(error)".contains("SQLCipher 3 (1,300,000 iterations)"), "\(error)")
        }
    }
}
