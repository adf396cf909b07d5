import Foundation
import SecureStore
import TestSupport
import XCTest

/// Files read and written both ways with an independent SQLCipher 4 client:
/// PyPI's `sqlcipher3-binary` (its own SQLCipher 4.x and SQLite, built by
/// others), in a virtual environment that `scripts/python-sqlcipher.sh`
/// prepares outside the project and `scripts/test.sh` names in
/// `SECURESTORE_PYTHON_SQLCIPHER`.
///
/// On SQLCipher 4, both sides use their defaults. On SQLCipher 3.4.1,
/// SecureStore's files are SQLCipher 3 files, which the client reads with
/// `cipher_compatibility = 3`, and a file in SQLCipher 4's default format
/// fails with a message that says it needs SQLCipher 4.
final class InteropTests: SecureStoreTestCase {
    private var python: String!

    override func setUpWithError() throws {
        try super.setUpWithError()
        guard let python = CommandLineClient.pythonSQLCipher else {
            throw XCTSkip("no independent SQLCipher client: run `bash scripts/python-sqlcipher.sh` (scripts/test.sh does)")
        }
        self.python = python
    }

    /// Runs `sql` in the independent client on `file` keyed with `key` (a
    /// passphrase, or `x'<hex>'`), after `setup` pragmas; rows as `a|b` lines.
    private func client(_ file: String, key: String, setup: [String] = [], _ sql: String) throws -> [String] {
        let script = """
            import sys, sqlcipher3
            path, key, setup, sql = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
            db = sqlcipher3.connect(path)
            db.execute("PRAGMA key = " + ('"' + key + '"' if key.startswith("x'") else "'" + key + "'"))
            for pragma in filter(None, setup.split(";")):
                db.execute(pragma)
            for statement in filter(None, sql.split(";")):
                for row in db.execute(statement):
                    print("|".join(str(value) for value in row))
            db.commit()
            """
        let result = try CommandLineClient.run(python, ["-c", script, file, key, setup.joined(separator: ";"), sql], timeout: 120)
        XCTAssertEqual(result.status, 0, result.stderr)
        guard result.status == 0 else { throw CocoaError(.fileReadUnknown) }
        return result.stdout.split(separator: "\n").map(String.init)
    }

    private var clientVersion: String {
        get throws { try client(path("version.db"), key: "v", "PRAGMA cipher_version").first ?? "?" }
    }

    /// The pragmas the client needs to read a file in this library's format.
    private var formatOfThisLibrary: [String] {
        SQLCipherLibrary.majorVersion >= 4 ? [] : ["PRAGMA cipher_compatibility = 3"]
    }

    func testIndependentClientReadsAndWritesWhatSecureStoreMakes() throws {
        XCTAssertTrue(try clientVersion.hasPrefix("4."), "the independent client is SQLCipher 4")
        let file = path("made-by-securestore.db")
        let dbQueue = try makeEncryptedQueue("made-by-securestore.db", passphrase: "interop key")
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO note(body) VALUES ('from SecureStore')")
        }
        try dbQueue.close()
        XCTAssertEqual(try client(file, key: "interop key", setup: formatOfThisLibrary, "SELECT id, body FROM note"),
                       ["1|from SecureStore"])
        _ = try client(file, key: "interop key", setup: formatOfThisLibrary, "INSERT INTO note(body) VALUES ('from Python')")
        XCTAssertEqual(try makeEncryptedQueue("made-by-securestore.db", passphrase: "interop key")
                        .read { try String.fetchAll($0, sql: "SELECT body FROM note ORDER BY id") },
                       ["from SecureStore", "from Python"])
        // The wrong key does not read it.
        let wrong = try CommandLineClient.run(python, ["-c", """
            import sqlcipher3, sys
            db = sqlcipher3.connect(sys.argv[1]); db.execute("PRAGMA key = 'wrong'")
            db.execute("SELECT count(*) FROM sqlite_master").fetchall()
            """, file])
        XCTAssertNotEqual(wrong.status, 0)
        XCTAssertTrue(wrong.stderr.contains("file is not a database"), wrong.stderr)
    }

    func testIndependentClientReadsARawKeyedFile() throws {
        let key = Data((0..<32).map { UInt8(255 - $0) })
        let hex = key.map { String(format: "%02x", $0) }.joined()
        let file = path("raw.db")
        try DatabaseQueue(path: file, configuration: rawKeyConfiguration(key)).write { db in
            try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (7)")
        }
        XCTAssertEqual(try client(file, key: "x'\(hex)'", setup: formatOfThisLibrary, "SELECT a FROM t"), ["7"])
    }

    func testSecureStoreReadsFilesTheIndependentClientMakesInItsDefaultFormat() throws {
        let file = path("made-by-python.db")
        _ = try client(file, key: "python key", "CREATE TABLE t(a TEXT); INSERT INTO t VALUES ('from Python')")
        let config = keyedConfiguration(passphrase: "python key")
        guard SQLCipherLibrary.majorVersion >= 4 else {
            XCTAssertThrowsError(try DatabaseQueue(path: file, configuration: config)) { error in
                XCTAssertTrue("\(error)".contains("It may be a SQLCipher 4 file, which needs SQLCipher 4.0 or later"), "\(error)")
            }
            return
        }
        let pool = try DatabasePool(path: file, configuration: config)
        XCTAssertEqual(try pool.read { try String.fetchOne($0, sql: "SELECT a FROM t") }, "from Python")
        try pool.write { try $0.execute(sql: "INSERT INTO t VALUES ('from SecureStore')") }
        let settings = try pool.read { try XCTUnwrap($0.cipherSettings) }
        XCTAssertEqual(settings.kdfIterations, 256_000)
        XCTAssertEqual(settings.kdfAlgorithm, .sha512)
        try pool.close()
        XCTAssertEqual(try client(file, key: "python key", "SELECT a FROM t ORDER BY rowid"), ["from Python", "from SecureStore"])
    }

    func testSecureStoreReadsSQLCipher3FilesTheIndependentClientMakes() throws {
        let file = path("python-v3.db")
        _ = try client(file, key: "old key", setup: ["PRAGMA cipher_compatibility = 3"],
                       "CREATE TABLE t(a TEXT); INSERT INTO t VALUES ('v3')")
        // SQLCipher 3 reads it with its defaults; SQLCipher 4 detects the format.
        let dbQueue = try DatabaseQueue(path: file, configuration: keyedConfiguration(passphrase: "old key", cipherSettings: CipherSettings()))
        XCTAssertEqual(try dbQueue.read { try String.fetchOne($0, sql: "SELECT a FROM t") }, "v3")
        XCTAssertEqual(try dbQueue.read { try $0.cipherSettings?.compatibility }, 3)
    }
}
