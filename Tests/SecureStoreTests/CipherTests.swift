import Foundation
import SecureStore
import TestSupport
import XCTest

/// encrypt, decrypt, rekey, backup, upgrade and verify, on files made with
/// the real CLIs, checked with the real CLIs.
final class CipherTests: SecureStoreTestCase {
    private let key = CipherKey(passphrase: "lifecycle key", settings: SecureStoreTestCase.suiteCipherSettings)

    /// A plaintext file of about `megabytes` MB with an index, a migration
    /// history and a user_version.
    private func makePlaintext(_ name: String, megabytes: Int = 1) throws -> String {
        let rows = megabytes * 4200
        let result = try CommandLineClient.sqlite3(path(name), sql: """
            CREATE TABLE item (id INTEGER PRIMARY KEY, payload BLOB, label TEXT);
            CREATE INDEX item_label ON item(label);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
            INSERT INTO item SELECT i, randomblob(200), hex(randomblob(4)) FROM n;
            CREATE TABLE securestore_migrations (identifier TEXT NOT NULL PRIMARY KEY, applied_order INTEGER NOT NULL,
                applied_at TEXT, checksum TEXT, schema_fingerprint TEXT, down_sql TEXT, source TEXT NOT NULL);
            INSERT INTO securestore_migrations VALUES ('v1', 1, NULL, NULL, NULL, NULL, 'swift');
            PRAGMA user_version = 7;
            """)
        XCTAssertEqual(result.status, 0, result.stderr)
        return path(name)
    }

    private func leftovers() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("securestore-tmp") || $0.hasSuffix("-journal") }
    }

    /// What the `sqlcipher` CLI reads with a passphrase, or a raw key
    /// written `x'<64 hex digits>'`.
    private func cliCount(_ file: String, passphrase: String?, extra: String = "") throws -> String {
        let preamble = passphrase.map { "PRAGMA key = \($0.hasPrefix("x'") ? "\"\($0)\"" : "'\($0)'"); \(extra)" } ?? ""
        let result = try CommandLineClient.sqlcipher(file, preamble: preamble,
                                                     sql: "SELECT count(*) FROM item; PRAGMA user_version; SELECT identifier FROM securestore_migrations;")
        return result.status == 0 ? result.stdout : "error: \(result.stderr)"
    }

    func testEncryptInPlaceOf20MBKeepsEverything() throws {
        let file = try makePlaintext("big.db", megabytes: 20)
        XCTAssertGreaterThan(try fileBytes(file).count, 20_000_000)
        let plainMarker = try XCTUnwrap(try CommandLineClient.sqlite3(file, sql: "SELECT label FROM item WHERE id = 1;").stdout.split(separator: "\n").first)
        let reported = ProgressBox()
        let summary = try Cipher.encrypt(plaintextAt: file, to: file, key: key, progress: { reported.append($0) })
        XCTAssertEqual(summary.rowCounts["item"], 84_000)
        XCTAssertEqual(summary.userVersion, 7)
        XCTAssertEqual(reported.last, 1)
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertEqual(reported.last, 1, "no report after the last one, 1")
        XCTAssertFalse(Database.hasPlaintextHeader(path: file))
        XCTAssertEqual(try cliCount(file, passphrase: "lifecycle key"), "84000\n7\nv1\n")
        XCTAssertNotEqual(try CommandLineClient.sqlite3(file, sql: "SELECT count(*) FROM item;").status, 0)
        XCTAssertNil(try fileBytes(file).range(of: Data(plainMarker.utf8)))
        let indexes = try DatabaseQueue(path: file, configuration: key.configuration()).read {
            try String.fetchAll($0, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%'")
        }
        XCTAssertEqual(indexes, ["item_label"])
        XCTAssertEqual(try leftovers(), [])
    }

    func testEncryptToAnotherFileAndRefusals() throws {
        let file = try makePlaintext("plain.db")
        try Cipher.encrypt(plaintextAt: file, to: path("enc.db"), key: key)
        XCTAssertTrue(Database.hasPlaintextHeader(path: file), "the source stays")
        XCTAssertThrowsError(try Cipher.encrypt(plaintextAt: file, to: path("enc.db"), key: key)) { error in
            XCTAssertTrue("\(error)".contains("exists already"), "\(error)")
        }
        XCTAssertThrowsError(try Cipher.encrypt(plaintextAt: path("enc.db"), to: path("again.db"), key: key)) { error in
            XCTAssertTrue("\(error)".contains("not a plaintext SQLite database"), "\(error)")
        }
    }

    func testDecryptWritesAPlaintextCopyOnly() throws {
        let file = try makePlaintext("plain.db")
        try Cipher.encrypt(plaintextAt: file, to: file, key: key)
        XCTAssertThrowsError(try Cipher.decrypt(at: file, key: key, to: file))
        let summary = try Cipher.decrypt(at: file, key: key, to: path("out.db"))
        XCTAssertEqual(summary.userVersion, 7)
        XCTAssertEqual(try CommandLineClient.sqlite3(path("out.db"), sql: "SELECT count(*) FROM item; PRAGMA user_version;").stdout, "4200\n7\n")
        XCTAssertFalse(Database.hasPlaintextHeader(path: file))
        XCTAssertEqual(try leftovers(), [])
    }

    func testRekeyAndChangeSettings() throws {
        let file = try makePlaintext("db.db")
        try Cipher.encrypt(plaintextAt: file, to: file, key: key)
        let newKey = CipherKey(passphrase: "rotated", settings: CipherSettings(pageSize: 4096, kdfIterations: 100_000))
        try Cipher.rekey(at: file, from: key, to: newKey)
        XCTAssertTrue(try cliCount(file, passphrase: "lifecycle key").hasPrefix("error"))
        XCTAssertEqual(try cliCount(file, passphrase: "rotated", extra: "PRAGMA cipher_page_size = 4096; PRAGMA kdf_iter = 100000;"), "4200\n7\nv1\n")
        XCTAssertThrowsError(try DatabaseQueue(path: file, configuration: CipherKey(passphrase: "rotated").configuration()))
        // A raw key too.
        let raw = CipherKey(rawKey: Data(repeating: 0x42, count: 32))
        try Cipher.rekey(at: file, from: newKey, to: raw)
        XCTAssertEqual(try DatabaseQueue(path: file, configuration: raw.configuration()).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM item") }, 4200)
        XCTAssertEqual(try leftovers(), [])
    }

    /// The export derives the new file's key itself, beside SQLCipher's
    /// derivation, and verifies the file with it (on SQLCipher 4 with a
    /// salt it chose, on SQLCipher 3 with the one SQLCipher wrote). Every
    /// file must still get a salt of its own, and open in the CLI with the
    /// passphrase alone.
    func testEveryExportedFileHasItsOwnSaltAndOpensWithThePassphrase() throws {
        let file = try makePlaintext("plain.db")
        try Cipher.encrypt(plaintextAt: file, to: path("a.db"), key: key)
        try Cipher.encrypt(plaintextAt: file, to: path("b.db"), key: key)
        let before = try fileBytes(path("b.db")).prefix(16)
        try Cipher.rekey(at: path("b.db"), from: key, to: key)
        let salts = try [path("a.db"), path("b.db")].map { try fileBytes($0).prefix(16) }
        XCTAssertEqual(Set(salts + [before]).count, 3, "three files, three salts")
        for (name, salt) in zip(["a.db", "b.db"], salts) {
            XCTAssertNotEqual(salt, Data("SQLite format 3\u{0}".utf8), name)
            XCTAssertEqual(try cliCount(path(name), passphrase: "lifecycle key"), "4200\n7\nv1\n", name)
        }
        XCTAssertEqual(try leftovers(), [])
    }

    /// The verification compares the copy's schema with the source's: an
    /// export that keeps every table, index, view, trigger, full-text
    /// table and AUTOINCREMENT counter passes it, through encrypt, rekey,
    /// backup and decrypt, and what comes out works as the original did.
    func testEveryOperationKeepsTheWholeSchema() throws {
        let file = path("schema.db")
        let made = try CommandLineClient.sqlite3(file, sql: """
            CREATE TABLE note (id INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL);
            CREATE INDEX note_body ON note(body);
            CREATE TABLE note_log (noteId INTEGER, at TEXT);
            CREATE TRIGGER note_logged AFTER INSERT ON note BEGIN INSERT INTO note_log VALUES (new.id, 'now'); END;
            CREATE VIEW long_note AS SELECT id, body FROM note WHERE length(body) > 5;
            CREATE VIRTUAL TABLE note_search USING fts4(body);
            INSERT INTO note (body) VALUES ('short'), ('a longer note');
            INSERT INTO note_search (body) SELECT body FROM note;
            PRAGMA user_version = 3;
            """)
        XCTAssertEqual(made.status, 0, made.stderr)
        let schemaQuery = "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name;"
        let schema = try CommandLineClient.sqlite3(file, sql: schemaQuery).stdout
        XCTAssertTrue(schema.contains("note_search"), schema)

        try Cipher.encrypt(plaintextAt: file, to: file, key: key)
        let newKey = CipherKey(passphrase: "schema key", settings: SecureStoreTestCase.suiteCipherSettings)
        try Cipher.rekey(at: file, from: key, to: newKey)
        try Cipher.backup(at: file, key: newKey, to: path("backup.db"))
        try Cipher.decrypt(at: path("backup.db"), key: newKey, to: path("plain.db"))

        let encrypted = try CommandLineClient.sqlcipher(file, preamble: "PRAGMA key = 'schema key';", sql: schemaQuery)
        XCTAssertEqual(encrypted.stdout, schema, encrypted.stderr)
        XCTAssertEqual(try CommandLineClient.sqlite3(path("plain.db"), sql: schemaQuery).stdout, schema)
        let used = try CommandLineClient.sqlite3(path("plain.db"), sql: """
            INSERT INTO note (body) VALUES ('third note');
            SELECT count(*) FROM note_log; SELECT max(id) FROM note; SELECT id FROM long_note ORDER BY id;
            SELECT count(*) FROM note_search WHERE note_search MATCH 'longer'; PRAGMA user_version;
            """)
        XCTAssertEqual(used.stdout, "3\n3\n2\n3\n1\n3\n", used.stderr)
        XCTAssertEqual(try leftovers(), [])
    }

    func testWrongKeyChangesNothingAndLeavesNoTemporaryFile() throws {
        let file = try makePlaintext("db.db")
        try Cipher.encrypt(plaintextAt: file, to: file, key: key)
        let before = try sha256(file)
        let wrong = CipherKey(passphrase: "wrong")
        XCTAssertThrowsError(try Cipher.rekey(at: file, from: wrong, to: key)) { error in
            XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_NOTADB)
        }
        XCTAssertThrowsError(try Cipher.decrypt(at: file, key: wrong, to: path("out.db")))
        XCTAssertThrowsError(try Cipher.backup(at: file, key: wrong, to: path("copy.db")))
        XCTAssertThrowsError(try Cipher.upgrade(at: file, key: wrong))
        XCTAssertThrowsError(try Cipher.verify(at: file, key: wrong))
        XCTAssertEqual(try sha256(file), before)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.db")))
        XCTAssertEqual(try leftovers(), [])
    }

    func testBackupIsAnEncryptedCopyWithTheSameKey() throws {
        let file = try makePlaintext("db.db")
        try Cipher.encrypt(plaintextAt: file, to: file, key: key)
        try Cipher.backup(at: file, key: key, to: path("copy.db"))
        XCTAssertEqual(try cliCount(path("copy.db"), passphrase: "lifecycle key"), "4200\n7\nv1\n")
        XCTAssertFalse(Database.hasPlaintextHeader(path: path("copy.db")))
    }

    func testStaleTemporaryFilesAreRemovedByTheNextRun() throws {
        let file = try makePlaintext("db.db")
        let stale = directory.appendingPathComponent(".db.db.securestore-tmp-\(UUID().uuidString)").path
        _ = FileManager.default.createFile(atPath: stale, contents: Data("left by a killed run".utf8))
        try Cipher.encrypt(plaintextAt: file, to: file, key: key)
        XCTAssertFalse(FileManager.default.fileExists(atPath: stale))
    }

    // 2.x: kdf_iter 4000 with HMAC; 1.x: without HMAC; 2.x written on
    // big-endian devices; 2.0 betas (HMAC salt mask 0x00); on a SQLCipher 4
    // library, SQLCipher 3 files too. Every file is made by the CLI of the
    // line under test, from SQLCipher 3's settings (`cipher_compatibility =
    // 3`, which SQLCipher 3.4.1 ignores).

    // One test per format, side by side. The line's newest older format
    // (SQLCipher 3 on SQLCipher 4, 2 on 3.4.1) is upgraded with the
    // defaults (a new file's settings) and tried with a wrong key without
    // a count (every format searched); the others with the suite's count.

    func testUpgradeOfASQLCipher3FileOnSQLCipher4() throws {
        try XCTSkipIf(SQLCipherLibrary.majorVersion < 4, "SQLCipher 3 is the current format of SQLCipher 3.4.1")
        try upgrade([("v3.db", "", .sqlcipher3)], withDefaults: true)
    }

    func testUpgradeOfASQLCipher2File() throws {
        try upgrade([("v2.db", "PRAGMA kdf_iter = 4000;", .sqlcipher2)], withDefaults: SQLCipherLibrary.majorVersion < 4)
    }

    func testUpgradeOfASQLCipher1File() throws {
        try upgrade([("v1.db", "PRAGMA kdf_iter = 4000; PRAGMA cipher_use_hmac = OFF;", .sqlcipher1)], withDefaults: false)
    }

    /// A variant that only explicit settings read.
    func testUpgradeOfASQLCipher2FileFromABigEndianDevice() throws {
        try upgrade([("v2-be.db", "PRAGMA kdf_iter = 4000; PRAGMA cipher_hmac_pgno = be;", .sqlcipher2BigEndian)], withDefaults: false)
    }

    /// The variants that only explicit settings read.
    func testUpgradeOfSQLCipher2BetaFiles() throws {
        try upgrade([
            ("v2-beta.db", "PRAGMA kdf_iter = 4000; PRAGMA cipher_hmac_salt_mask = \"x'00'\";", .sqlcipher2Beta),
            ("v2-beta-be.db", "PRAGMA kdf_iter = 4000; PRAGMA cipher_hmac_pgno = be; PRAGMA cipher_hmac_salt_mask = \"x'00'\";",
             .sqlcipher2BetaBigEndian),
        ], withDefaults: false)
    }

    private func upgrade(_ formats: [(String, String, Cipher.FileFormat)], withDefaults: Bool) throws {
        // A current file open meanwhile: the process-wide salt mask that
        // 2.0 betas need must not disturb other connections.
        let current = try DatabaseQueue(path: path("current.db"), configuration: key.configuration())
        try current.write { db in try db.execute(sql: "CREATE TABLE t (a)") }
        for (name, settings, format) in formats {
            let newSettings = withDefaults ? CipherSettings() : Self.suiteCipherSettings
            let made = try CommandLineClient.sqlcipher(
                path(name), preamble: "PRAGMA key = 'old app'; PRAGMA cipher_compatibility = 3; \(settings)",
                sql: "CREATE TABLE t (a); INSERT INTO t VALUES ('kept'); PRAGMA user_version = 3;")
            XCTAssertEqual(made.status, 0, made.stderr)
            let oldKey = CipherKey(passphrase: "old app")
            // The open finds the older formats of the line (SQLCipher 3, 2
            // and 1), and says which; the rare variants need `upgrade`.
            if [.sqlcipher3, .sqlcipher2, .sqlcipher1].contains(format) {
                let opened = try DatabaseQueue(path: path(name), configuration: oldKey.configuration(readonly: true))
                XCTAssertEqual(try opened.read { try $0.cipherSettings?.compatibility }, format.compatibility, name)
                try opened.close()
            } else {
                XCTAssertThrowsError(try DatabaseQueue(path: path(name), configuration: oldKey.configuration()), "not readable before")
            }
            let before = try sha256(path(name))
            let wrong = CipherKey(passphrase: "wrong", settings: withDefaults ? CipherSettings() : Self.suiteCipherSettings)
            XCTAssertThrowsError(try Cipher.upgrade(at: path(name), key: wrong)) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_NOTADB)
                XCTAssertTrue("\(error)".contains("unchanged"), "\(error)")
            }
            XCTAssertEqual(try sha256(path(name)), before, "a wrong key leaves \(name) unchanged")
            XCTAssertEqual(try Cipher.detectFormat(at: path(name), key: oldKey), format)
            XCTAssertEqual(try Cipher.upgrade(at: path(name), key: oldKey, newSettings: newSettings).format, format)
            XCTAssertEqual(try Cipher.detectFormat(at: path(name), key: oldKey), .current)
            XCTAssertNil(try Cipher.upgrade(at: path(name), key: oldKey).summary, "a current file is left alone")
            XCTAssertEqual(try DatabaseQueue(path: path("current.db"), configuration: key.configuration())
                .read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") }, 0)
            let dbQueue = try DatabaseQueue(path: path(name), configuration: oldKey.configuration())
            XCTAssertEqual(try dbQueue.read { try String.fetchOne($0, sql: "SELECT a FROM t") }, "kept")
            XCTAssertEqual(try dbQueue.read { try Int.fetchOne($0, sql: "PRAGMA user_version") }, 3)
            XCTAssertEqual(try dbQueue.read { try $0.cipherSettings }, newSettings.resolved(over: CipherSettings.newFileDefaults),
                           "upgraded to a new file's settings, under those asked for")
            let cli = try CommandLineClient.sqlcipher(path(name), preamble: "PRAGMA key = 'old app'; \(withDefaults ? Self.newFileKDFPragma : "")",
                                                      sql: "SELECT a FROM t;")
            XCTAssertEqual(cli.stdout, "kept\n", cli.stderr)
        }
    }

    func testFilesArePrivateAndReplacedFilesKeepTheirMode() throws {
        let file = try makePlaintext("db.db", megabytes: 1)
        let previous = umask(0)
        defer { umask(previous) }
        func mode(_ path: String) throws -> Int {
            try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: file)
        try Cipher.encrypt(plaintextAt: file, to: path("encrypted.db"), key: key)
        XCTAssertEqual(try mode(path("encrypted.db")), 0o600)
        try Cipher.encrypt(plaintextAt: file, to: file, key: key)
        XCTAssertEqual(try mode(file), 0o640, "replaced in place: the mode is kept")
        try Cipher.decrypt(at: file, key: key, to: path("plain.db"))
        XCTAssertEqual(try mode(path("plain.db")), 0o600, "the plaintext copy is private")
        try Cipher.backup(at: file, key: key, to: path("copy.db"))
        XCTAssertEqual(try mode(path("copy.db")), 0o600)
        try Cipher.rekey(at: file, from: key, to: CipherKey(passphrase: "next"))
        XCTAssertEqual(try mode(file), 0o640)
    }

    /// Every lifecycle operation closes what it opens (the source, the
    /// copy, the verification's connection, the fsync descriptors), on
    /// success and on a wrong key alike: a leak would be one or more per
    /// operation, 30 here, far above what other threads may hold.
    func testLifecycleOperationsLeaveNoDescriptorOpen() throws {
        func openDescriptors() throws -> Int { try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count }
        // Raw keys: descriptors, not key derivations, are counted here.
        let key = CipherKey(rawKey: Data(repeating: 0x5A, count: 32))
        let wrong = CipherKey(rawKey: Data(repeating: 0xA5, count: 32))
        let file = try makePlaintext("db.db")
        try Cipher.encrypt(plaintextAt: file, to: file, key: key)
        let before = try openDescriptors()
        for round in 0..<10 {
            try Cipher.rekey(at: file, from: key, to: key)
            try Cipher.backup(at: file, key: key, to: path("copy-\(round).db"))
            XCTAssertThrowsError(try Cipher.rekey(at: file, from: wrong, to: key))
        }
        XCTAssertLessThan(try openDescriptors() - before, 5)
        XCTAssertEqual(try cliCount(file, passphrase: "x'\(String(repeating: "5a", count: 32))'"), "4200\n7\nv1\n")
        XCTAssertEqual(try leftovers(), [])
    }

    func testVerifyFindsADamagedPage() throws {
        let file = try makePlaintext("db.db", megabytes: 2)
        try Cipher.encrypt(plaintextAt: file, to: file, key: key)
        let healthy = try Cipher.verify(at: file, key: key)
        XCTAssertTrue(healthy.isOK, "\(healthy)")
        XCTAssertEqual(healthy.rowCounts["item"], 8400)

        // Flip bytes in the middle of the file: one page's HMAC fails.
        let pageSize = try XCTUnwrap(CipherSettings.libraryDefaults.pageSize)
        var bytes = try fileBytes(file)
        let page = bytes.count / pageSize / 2
        for offset in 0..<16 { bytes[page * pageSize + 100 + offset] ^= 0xFF }
        try bytes.write(to: URL(fileURLWithPath: file))
        let damaged = try Cipher.verify(at: file, key: key)
        XCTAssertFalse(damaged.isOK)
        XCTAssertEqual(damaged.damagedPage, page + 1, "\(damaged.integrity.prefix(3))")
        XCTAssertEqual(damaged.damagedTables, ["item"])
    }
}

final class ProgressBox: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Double] = []
    func append(_ value: Double) { lock.withLock { values.append(value) } }
    var last: Double? { lock.withLock { values.last } }
}

/// Every operation on a file of more than 20 MB keeps data, schema,
/// indexes, user_version and migration history.
final class LargeFileCipherTests: SecureStoreTestCase {
    func testEveryOperationOnA20MBFile() throws {
        let file = path("big.db")
        let made = try CommandLineClient.sqlcipher(file, preamble: """
            PRAGMA key = 'v2 key'; PRAGMA cipher_compatibility = 3; PRAGMA kdf_iter = 4000;
            """, sql: """
            CREATE TABLE item (id INTEGER PRIMARY KEY, payload BLOB, label TEXT);
            CREATE INDEX item_label ON item(label);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 84000)
            INSERT INTO item SELECT i, randomblob(200), hex(randomblob(4)) FROM n;
            CREATE TABLE securestore_migrations (identifier TEXT NOT NULL PRIMARY KEY, applied_order INTEGER NOT NULL,
                applied_at TEXT, checksum TEXT, schema_fingerprint TEXT, down_sql TEXT, source TEXT NOT NULL);
            INSERT INTO securestore_migrations VALUES ('v1', 1, NULL, NULL, NULL, NULL, 'swift');
            PRAGMA user_version = 11;
            """)
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertGreaterThan(try fileBytes(file).count, 20_000_000)

        func check(_ path: String, _ key: CipherKey?, _ step: String) throws {
            let config = key?.configuration(readonly: true) ?? Configuration()
            let dbQueue = try DatabaseQueue(path: path, configuration: config)
            try dbQueue.read { db in
                XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM item"), 84_000, step)
                XCTAssertEqual(try Int.fetchOne(db, sql: "PRAGMA user_version"), 11, step)
                XCTAssertEqual(try String.fetchAll(db, sql: "SELECT identifier FROM securestore_migrations"), ["v1"], step)
                XCTAssertEqual(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%'"), ["item_label"], step)
                XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM item INDEXED BY item_label WHERE label >= ''"), 84_000, step)
            }
            try dbQueue.close()
        }

        let key = CipherKey(passphrase: "v2 key")
        try Cipher.upgrade(at: file, key: key)
        try check(file, key, "upgrade")
        let rotated = CipherKey(passphrase: "rotated", settings: CipherSettings(pageSize: 4096, kdfIterations: 100_000))
        try Cipher.rekey(at: file, from: key, to: rotated)
        try check(file, rotated, "rekey")
        try Cipher.backup(at: file, key: rotated, to: path("copy.db"))
        try check(path("copy.db"), rotated, "backup")
        try Cipher.decrypt(at: file, key: rotated, to: path("plain.db"))
        try check(path("plain.db"), nil, "decrypt")
        try Cipher.encrypt(plaintextAt: path("plain.db"), to: path("plain.db"), key: key)
        try check(path("plain.db"), key, "encrypt")
        XCTAssertTrue(try Cipher.verify(at: file, key: rotated).isOK)
    }
}

final class PlaintextGuardTests: SecureStoreTestCase {
    /// SQLite's backup API writes plaintext copies of keyed databases into
    /// unkeyed destinations in SQLCipher 3.4.1: one source file may call it,
    /// `Database.backup(to:)`, whose guard refuses them (BackupTests).
    func testOnlyTheGuardedBackupCallsTheBackupAPI() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        XCTAssertGreaterThan(files.count, 20)
        for file in files {
            let text = try String(contentsOfFile: sources.path + "/" + file, encoding: .utf8)
            if file == "SecureStore/Core/Database+Backup.swift" {
                let guardEnd = try XCTUnwrap(text.range(of: "if isKeyed, !destination.isKeyed, !destination.isInMemory {"))
                let firstCall = try XCTUnwrap(text.range(of: "sqlite3_backup_init("))
                XCTAssertLessThan(guardEnd.lowerBound, firstCall.lowerBound, "the guard comes before the backup starts")
            } else {
                XCTAssertFalse(text.contains("sqlite3_backup_"), "\(file) calls the backup API")
            }
        }
    }

    func testNonDefaultSettingsFileFromTheCLIRekeysToNewFileDefaults() throws {
        let made = try CommandLineClient.sqlcipher(path("custom.db"), preamble: "PRAGMA key = 'k'; PRAGMA kdf_iter = 10000; PRAGMA cipher_page_size = 4096;",
                                                   sql: "CREATE TABLE t (a); INSERT INTO t VALUES ('custom');")
        XCTAssertEqual(made.status, 0, made.stderr)
        let custom = CipherKey(passphrase: "k", settings: CipherSettings(pageSize: 4096, kdfIterations: 10_000))
        try Cipher.rekey(at: path("custom.db"), from: custom, to: CipherKey(passphrase: "k"))
        let cli = try CommandLineClient.sqlcipher(path("custom.db"), preamble: "PRAGMA key = 'k'; \(Self.newFileKDFPragma)", sql: "SELECT a FROM t;")
        XCTAssertEqual(cli.stdout, "custom\n", cli.stderr)
    }
}
