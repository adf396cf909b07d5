import Foundation
import SecureStore
import TestSupport
import XCTest

/// Proof that files are really encrypted: independent clients (the
/// `sqlcipher` and `sqlite3` CLIs) read and write the same files.
final class EncryptionRoundTripTests: SecureStoreTestCase {
    private let rawKey = Data((0..<32).map { UInt8($0 * 7 & 0xFF) })
    private var rawKeyHex: String { rawKey.map { String(format: "%02x", $0) }.joined() }

    func testFileWrittenBySecureStoreIsReadByTheCLIWithThePassphrase() throws {
        let dbQueue = try makeEncryptedQueue(passphrase: "correct horse")
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT)")
            try db.execute(sql: "INSERT INTO note (body) VALUES (?), (?)", arguments: ["hello", "wörld ✓"])
        }
        try dbQueue.close()

        let result = try CommandLineClient.sqlcipher(
            path("db.sqlite"), preamble: "PRAGMA key = 'correct horse';",
            sql: "SELECT body FROM note ORDER BY id;")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "hello\nwörld ✓\n")

        let withoutKey = try CommandLineClient.sqlcipher(path("db.sqlite"), preamble: "", sql: "SELECT * FROM note;")
        XCTAssertNotEqual(withoutKey.status, 0)
        // "file is encrypted or is not a database" (SQLite 3.15), "file is
        // not a database" (later versions).
        XCTAssertTrue(withoutKey.stderr.contains("is not a database"), withoutKey.stderr)
    }

    func testFileWrittenByTheCLIIsReadBySecureStoreWithThePassphrase() throws {
        let result = try CommandLineClient.sqlcipher(
            path("cli.sqlite"), preamble: "PRAGMA key = 'from the cli';",
            sql: "CREATE TABLE t (a INTEGER, b TEXT); INSERT INTO t VALUES (1, 'one'), (2, 'two');")
        XCTAssertEqual(result.status, 0, result.stderr)

        let dbQueue = try makeEncryptedQueue("cli.sqlite", passphrase: "from the cli")
        let rows = try dbQueue.read { db in try Row.fetchAll(db, sql: "SELECT a, b FROM t ORDER BY a") }
        XCTAssertEqual(rows, [["a": 1, "b": "one"], ["a": 2, "b": "two"]])
    }

    func testRawKeyRoundTripsBothWays() throws {
        let dbQueue = try DatabaseQueue(path: path("raw.sqlite"), configuration: rawKeyConfiguration(rawKey))
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('raw')")
        }
        try dbQueue.close()
        let read = try CommandLineClient.sqlcipher(
            path("raw.sqlite"), preamble: "PRAGMA key = \"x'\(rawKeyHex)'\";", sql: "SELECT v FROM t;")
        XCTAssertEqual(read.stdout, "raw\n", read.stderr)

        let written = try CommandLineClient.sqlcipher(
            path("cli-raw.sqlite"), preamble: "PRAGMA key = \"x'\(rawKeyHex.uppercased())'\";",
            sql: "CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (42);")
        XCTAssertEqual(written.status, 0, written.stderr)
        let cliQueue = try DatabaseQueue(path: path("cli-raw.sqlite"), configuration: rawKeyConfiguration(rawKey))
        XCTAssertEqual(try cliQueue.read { db in try Int.fetchOne(db, sql: "SELECT v FROM t") }, 42)

        // A raw key is not the passphrase made of the same hex digits.
        XCTAssertThrowsError(try makeEncryptedQueue("cli-raw.sqlite", passphrase: rawKeyHex))
    }

    func testPlainSQLiteCannotReadTheFileAndNoPlaintextLeaks() throws {
        let marker = "MARKER-\(UUID().uuidString)"
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE secret_table (value TEXT)")
            try db.execute(sql: "INSERT INTO secret_table VALUES (?)", arguments: [marker])
        }
        try dbQueue.close()

        let bytes = try fileBytes(path("db.sqlite"))
        XCTAssertGreaterThan(bytes.count, 0)
        XCTAssertNotEqual(bytes.prefix(16), Data("SQLite format 3\0".utf8))
        XCTAssertNil(bytes.range(of: Data(marker.utf8)), "the marker row is readable in the file")
        XCTAssertNil(bytes.range(of: Data("secret_table".utf8)), "the schema is readable in the file")
        XCTAssertFalse(Database.hasPlaintextHeader(path: path("db.sqlite")))

        let sqlite = try CommandLineClient.sqlite3(path("db.sqlite"), sql: "SELECT * FROM secret_table;")
        XCTAssertNotEqual(sqlite.status, 0)
        XCTAssertTrue(sqlite.stderr.contains("file is not a database"), sqlite.stderr)
    }

    func testWrongKeyThrowsNotADatabaseAndLeavesTheFileUnchanged() throws {
        let dbQueue = try makeEncryptedQueue(passphrase: "right")
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1)") }
        try dbQueue.close()
        let before = try sha256(path("db.sqlite"))

        XCTAssertThrowsError(try makeEncryptedQueue(passphrase: "wrong")) { error in
            guard let error = error as? DatabaseError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.resultCode, .SQLITE_NOTADB)
            XCTAssertTrue(error.message?.contains("the key is wrong") == true, "\(error)")
            // Code that matches on SQLite's text, as GRDB users do, keeps working.
            let sqliteText = ["file is encrypted or is not a database", "file is not a database"]
            XCTAssertTrue(sqliteText.contains { error.message?.hasPrefix($0) == true }, "\(error)")
            XCTAssertFalse("\(error)".contains("wrong\""), "the key must not appear in the error")
        }
        // catch-pattern matching, GRDB style
        do {
            _ = try makeEncryptedQueue(passphrase: "also wrong")
            XCTFail("expected an error")
        } catch DatabaseError.SQLITE_NOTADB {
        } catch {
            XCTFail("unexpected \(error)")
        }
        XCTAssertEqual(try sha256(path("db.sqlite")), before)
        XCTAssertEqual(try makeEncryptedQueue(passphrase: "right").read { try Int.fetchOne($0, sql: "SELECT a FROM t") }, 1)
    }

    func testOpeningAnEncryptedFileWithoutAKeyFailsClearly() throws {
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (a)") }
        try dbQueue.close()
        XCTAssertThrowsError(try DatabaseQueue(path: path("db.sqlite"))) { error in
            XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_NOTADB)
            XCTAssertTrue("\(error)".contains("cannot be read without a key"), "\(error)")
        }
    }

    func testPlaintextFileGivenAKeyIsReportedAsNotEncrypted() throws {
        let created = try CommandLineClient.sqlite3(path("plain.sqlite"), sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1);")
        XCTAssertEqual(created.status, 0, created.stderr)
        let before = try sha256(path("plain.sqlite"))
        XCTAssertThrowsError(try makeEncryptedQueue("plain.sqlite")) { error in
            XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_NOTADB)
            XCTAssertTrue("\(error)".contains("file is not encrypted"), "\(error)")
        }
        XCTAssertEqual(try sha256(path("plain.sqlite")), before)
        // Without a key it is an ordinary database.
        XCTAssertEqual(try DatabaseQueue(path: path("plain.sqlite")).read { try Int.fetchOne($0, sql: "SELECT a FROM t") }, 1)
    }

    func testChangePassphraseRekeysTheFile() throws {
        let dbQueue = try makeEncryptedQueue(passphrase: "old")
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES ('kept')") }
        try dbQueue.writeWithoutTransaction { db in try db.changePassphrase("new") }
        XCTAssertEqual(try dbQueue.read { try String.fetchOne($0, sql: "SELECT a FROM t") }, "kept")
        try dbQueue.close()

        XCTAssertThrowsError(try makeEncryptedQueue(passphrase: "old")) { error in
            XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_NOTADB)
        }
        XCTAssertEqual(try makeEncryptedQueue(passphrase: "new").read { try String.fetchOne($0, sql: "SELECT a FROM t") }, "kept")

        let oldCLI = try CommandLineClient.sqlcipher(path("db.sqlite"), preamble: "PRAGMA key = 'old';", sql: "SELECT a FROM t;")
        XCTAssertNotEqual(oldCLI.status, 0)
        let newCLI = try CommandLineClient.sqlcipher(path("db.sqlite"), preamble: "PRAGMA key = 'new';", sql: "SELECT a FROM t;")
        XCTAssertEqual(newCLI.stdout, "kept\n", newCLI.stderr)
    }

    func testChangeRawKey() throws {
        let dbQueue = try makeEncryptedQueue(passphrase: "old")
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (7)") }
        try dbQueue.writeWithoutTransaction { db in try db.changeRawKey(rawKey) }
        try dbQueue.close()
        let reopened = try DatabaseQueue(path: path("db.sqlite"), configuration: rawKeyConfiguration(rawKey))
        XCTAssertEqual(try reopened.read { try Int.fetchOne($0, sql: "SELECT a FROM t") }, 7)
    }

    func testChangePassphraseOnAPlaintextDatabaseIsAnError() throws {
        let dbQueue = try DatabaseQueue(path: path("plain.sqlite"))
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (a)") }
        XCTAssertThrowsError(try dbQueue.writeWithoutTransaction { db in try db.changePassphrase("new") }) { error in
            XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_MISUSE)
            XCTAssertTrue("\(error)".contains("unencrypted"), "\(error)")
        }
        try dbQueue.close()
        XCTAssertTrue(Database.hasPlaintextHeader(path: path("plain.sqlite")))
    }

    func testEmptyKeysAreRefused() throws {
        XCTAssertThrowsError(try makeEncryptedQueue(passphrase: "")) { error in
            XCTAssertTrue("\(error)".contains("empty key"), "\(error)")
        }
        XCTAssertThrowsError(try DatabaseQueue(path: path("short.sqlite"), configuration: rawKeyConfiguration(Data(count: 16)))) { error in
            XCTAssertTrue("\(error)".contains("32 bytes"), "\(error)")
        }
    }

    func testNonDefaultCipherSettingsMustBeRepeatedAtEveryOpen() throws {
        let settings = CipherSettings(pageSize: 4096, kdfIterations: 10_000)
        let config = keyedConfiguration(passphrase: "s", cipherSettings: settings)
        let dbQueue = try DatabaseQueue(path: path("custom.sqlite"), configuration: config)
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES ('custom')")
        }
        try dbQueue.close()

        // Same settings: opens.
        let again = try DatabaseQueue(path: path("custom.sqlite"), configuration: config)
        XCTAssertEqual(try again.read { try String.fetchOne($0, sql: "SELECT a FROM t") }, "custom")
        try again.close()

        // Default settings: a clear NOTADB error that names the settings
        // tried: the library's defaults, then its older formats.
        let defaults = CipherSettings.libraryDefaults
        let noSettings = keyedConfiguration(passphrase: "s", cipherSettings: CipherSettings())
        XCTAssertThrowsError(try DatabaseQueue(path: path("custom.sqlite"), configuration: noSettings)) { error in
            XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_NOTADB)
            XCTAssertTrue("\(error)".contains("kdf_iter \(defaults.kdfIterations!), cipher_page_size \(defaults.pageSize!)"), "\(error)")
            XCTAssertTrue("\(error)".contains("nor in the SQLCipher \(SQLCipherLibrary.majorVersion - 1)"), "\(error)")
        }
        // Explicit settings: only those are tried, and named.
        let other = keyedConfiguration(passphrase: "s", cipherSettings: CipherSettings(pageSize: 8192, kdfIterations: 10000))
        XCTAssertThrowsError(try DatabaseQueue(path: path("custom.sqlite"), configuration: other)) { error in
            XCTAssertTrue("\(error)".contains("cipher_page_size 8192"), "\(error)")
            XCTAssertFalse("\(error)".contains("format"), "\(error)")
        }

        // The CLI agrees, with and without the settings.
        let cli = try CommandLineClient.sqlcipher(
            path("custom.sqlite"),
            preamble: "PRAGMA key = 's'; PRAGMA cipher_page_size = 4096; PRAGMA kdf_iter = 10000;",
            sql: "SELECT a FROM t;")
        XCTAssertEqual(cli.stdout, "custom\n", cli.stderr)
        let cliDefaults = try CommandLineClient.sqlcipher(path("custom.sqlite"), preamble: "PRAGMA key = 's';", sql: "SELECT a FROM t;")
        XCTAssertNotEqual(cliDefaults.status, 0)
    }

    func testInvalidCipherSettingsAreRefused() throws {
        let config = keyedConfiguration(passphrase: "s", cipherSettings: CipherSettings(pageSize: 1000))
        XCTAssertThrowsError(try DatabaseQueue(path: path("bad.sqlite"), configuration: config)) { error in
            XCTAssertTrue("\(error)".contains("invalid cipher page size 1000"), "\(error)")
        }
    }

    func testCipherVersion() throws {
        let version = try makeEncryptedQueue().read { db in try db.cipherVersion }
        XCTAssertEqual(version, SQLCipherLibrary.version)
        XCTAssertTrue(version.hasPrefix("\(SQLCipherLibrary.majorVersion)."), version)
        XCTAssertTrue([3, 4].contains(SQLCipherLibrary.majorVersion), version)
        XCTAssertGreaterThanOrEqual(Database.sqliteLibVersionNumber, 3_015_000)
        // What a new file gets is the library's defaults, read back.
        let settings = try makeEncryptedQueue("new.sqlite").read { db in try db.cipherSettings }
        XCTAssertEqual(settings, CipherSettings.libraryDefaults)
        XCTAssertEqual(settings?.compatibility, SQLCipherLibrary.majorVersion)
    }

    func testCipherProviderFipsStatusAndLogging() throws {
        try makeEncryptedQueue().read { db in
            XCTAssertEqual(try db.cipherProvider, "openssl")
            let providerVersion = try db.cipherProviderVersion
            XCTAssertTrue(providerVersion?.hasPrefix("OpenSSL") == true, providerVersion ?? "nil")
            XCTAssertEqual(try db.cipherFipsStatus, "0")
            guard SQLCipherLibrary.majorVersion >= 4 else {
                // SQLCipher 3 has no logs: asking for them is an error that
                // says so, not a pragma that SQLite would silently ignore.
                XCTAssertThrowsError(try db.enableCipherLogging(logLevel: .error, target: .stderr)) { error in
                    XCTAssertTrue("\(error)".contains("needs SQLCipher 4.0 or later"), "\(error)")
                }
                XCTAssertThrowsError(try db.disableCipherLogging())
                return
            }
            // SQLCipher 4 logs to a file when asked, and stops when asked.
            let log = self.path("cipher.log")
            try db.enableCipherLogging(logLevel: .debug, target: .file(log))
            // Keying another connection logs SQLCipher's key derivation.
            try self.makeEncryptedQueue("logged.sqlite").write { db in try db.execute(sql: "CREATE TABLE t (a)") }
            try db.disableCipherLogging()
            let logged = try String(contentsOfFile: log, encoding: .utf8)
            XCTAssertTrue(logged.contains("DEBUG"), logged)
            XCTAssertFalse(logged.contains("secret"), "no key in SQLCipher's log")
            let size = logged.utf8.count
            try self.makeEncryptedQueue("quiet.sqlite").write { db in try db.execute(sql: "CREATE TABLE t (a)") }
            XCTAssertEqual(try String(contentsOfFile: log, encoding: .utf8).utf8.count, size, "nothing logged once disabled")
            // Back to SecureStore's default: no log on standard error.
            try db.execute(sql: "PRAGMA cipher_log = off")
        }
    }

    /// SQLCipher 4 logs warnings and errors to standard error by default:
    /// SecureStore turns that off, so that a wrong key and the detection of
    /// an older format print nothing beyond the error thrown.
    func testNoCipherLogOnStandardErrorByDefault() throws {
        guard SQLCipherLibrary.majorVersion >= 4 else { throw XCTSkip("SQLCipher 3.4.1 has no logging") }
        XCTAssertEqual(try makeEncryptedQueue().read { try String.fetchOne($0, sql: "PRAGMA cipher_log_level") }, "NONE")
    }

    /// A file as an iOS app using GRDB with SQLCipher 3 would leave it: WAL
    /// mode, a `grdb_migrations` table, default cipher settings.
    func testFileInTheShapeOfAGRDBAppOpens() throws {
        let created = try CommandLineClient.sqlcipher(
            path("app.sqlite"), preamble: "PRAGMA key = 'app secret';",
            sql: """
            PRAGMA journal_mode = WAL;
            CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
            INSERT INTO grdb_migrations VALUES ('Zalora-v1');
            CREATE TABLE brandRGDB (brandId TEXT PRIMARY KEY, image TEXT, keywords TEXT, name TEXT);
            INSERT INTO brandRGDB VALUES ('b1', 'img.png', 'shoes,bags', 'Brand One');
            """)
        XCTAssertEqual(created.status, 0, created.stderr)
        let dbQueue = try makeEncryptedQueue("app.sqlite", passphrase: "app secret")
        let (identifier, name) = try dbQueue.read { db in
            (try String.fetchOne(db, sql: "SELECT identifier FROM grdb_migrations"),
             try String.fetchOne(db, sql: "SELECT name FROM brandRGDB WHERE brandId = ?", arguments: ["b1"]))
        }
        XCTAssertEqual(identifier, "Zalora-v1")
        XCTAssertEqual(name, "Brand One")
    }

    /// A file in the manner of SQLCipher's own test databases (key
    /// "testkey", default settings, a table of random blobs).
    func testFileInTheShapeOfSQLCipherTestDatabasesOpens() throws {
        let created = try CommandLineClient.sqlcipher(
            path("sqlcipher-3.0-testkey.db"), preamble: "PRAGMA key = 'testkey';",
            sql: """
            CREATE TABLE t1 (a, b);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
            INSERT INTO t1 SELECT randomblob(16), randomblob(256) FROM n;
            """)
        XCTAssertEqual(created.status, 0, created.stderr)
        let dbQueue = try makeEncryptedQueue("sqlcipher-3.0-testkey.db", passphrase: "testkey")
        XCTAssertEqual(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t1") }, 1000)
        XCTAssertEqual(try dbQueue.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") }, "ok")
    }
}
