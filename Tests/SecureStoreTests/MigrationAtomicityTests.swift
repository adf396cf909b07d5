import Foundation
import SecureStore
import TestSupport
import XCTest

/// A migration commits together with its history row, and nothing inside
/// it can break that: SQLite's authorizer refuses transaction control,
/// ATTACH/DETACH, VACUUM and the key, cipher, journal-mode and foreign-key
/// pragmas, in SQL files and Swift closures alike.
///
/// Every test here failed before the authorizer guard: the COMMIT ended
/// the migration's transaction, and the rekey changed the key.
final class MigrationAtomicityTests: SecureStoreTestCase {
    private let passphrase = "atomic passphrase"

    private func makeQueue(_ name: String = "db.sqlite") throws -> DatabaseQueue {
        try makeEncryptedQueue(name, passphrase: passphrase)
    }

    /// A directory holding one migration file per (name, up SQL).
    private func migrations(_ files: [(String, String)], downs: [String: String] = [:]) throws -> URL {
        let folder = directory.appendingPathComponent("migrations-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (index, (name, sql)) in files.enumerated() {
            let stem = String(format: "%04d_%@", index + 1, name)
            try sql.write(to: folder.appendingPathComponent("\(stem).up.sql"), atomically: true, encoding: .utf8)
            if let down = downs[name] {
                try down.write(to: folder.appendingPathComponent("\(stem).down.sql"), atomically: true, encoding: .utf8)
            }
        }
        return folder
    }

    private func tables(_ dbQueue: DatabaseQueue) throws -> [String] {
        try dbQueue.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        }
    }

    private func history(_ dbQueue: DatabaseQueue) throws -> [String] {
        try dbQueue.read { db in
            guard try db.tableExists("securestore_migrations") else { return [] }
            return try String.fetchAll(db, sql: "SELECT identifier FROM securestore_migrations ORDER BY applied_order")
        }
    }

    /// The key still opens the file, for an independent client.
    private func assertKeyStillOpens(_ name: String = "db.sqlite", file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try CommandLineClient.sqlcipher(path(name), preamble: "PRAGMA key = '\(passphrase)';",
                                                     sql: "SELECT count(*) FROM sqlite_master;")
        XCTAssertEqual(result.status, 0, "the key no longer opens the file: \(result.stderr)", file: file, line: line)
    }

    // MARK: SQL files

    func testCommitInTheMiddleOfAFileIsRefusedBeforeAnythingChanges() throws {
        let dbQueue = try makeQueue()
        var migrator = DatabaseMigrator()
        try migrator.registerMigrations(from: migrations([
            ("one", "CREATE TABLE a(x);"),
            ("two", "CREATE TABLE b(x);\nCOMMIT;\nCREATE TABLE c(x);\nINSERT INTO nosuch VALUES (1);\n"),
        ]))
        XCTAssertThrowsError(try migrator.migrate(dbQueue)) { error in
            guard case let .forbiddenStatement(identifier, path, line, statement, reason)? = error as? MigrationError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(identifier, "two")
            XCTAssertTrue(path?.hasSuffix("0002_two.up.sql") == true)
            XCTAssertEqual(line, 2)
            XCTAssertEqual(statement, "COMMIT")
            XCTAssertTrue(reason.contains("transaction"), reason)
            XCTAssertTrue("\(error)".contains("0002_two.up.sql:2"), "\(error)")
        }
        // Files are checked before any migration runs: not even "one".
        XCTAssertEqual(try tables(dbQueue), [])
        XCTAssertEqual(try history(dbQueue), [])
        try migrator.migrate(dbQueue, upTo: "one")
        XCTAssertEqual(try tables(dbQueue), ["a", "securestore_migration_events", "securestore_migrations"])
        XCTAssertThrowsError(try migrator.migrate(dbQueue))
        XCTAssertEqual(try tables(dbQueue), ["a", "securestore_migration_events", "securestore_migrations"])
        XCTAssertEqual(try history(dbQueue), ["one"])
    }

    func testRekeyInAFileIsRefusedAndTheKeyStillOpensTheFile() throws {
        let dbQueue = try makeQueue()
        var migrator = DatabaseMigrator()
        try migrator.registerMigrations(from: migrations([("rekey", "CREATE TABLE a(x);\nPRAGMA rekey = 'stolen';\n")]))
        XCTAssertThrowsError(try migrator.migrate(dbQueue)) { error in
            guard case let .forbiddenStatement(_, _, line, statement, _)? = error as? MigrationError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(line, 2)
            // The new key is a secret: only the pragma's name is shown.
            XCTAssertEqual(statement, "PRAGMA rekey = ...")
            XCTAssertFalse("\(error)".contains("stolen"), "\(error)")
        }
        try dbQueue.close()
        try assertKeyStillOpens()
    }

    func testEveryKindOfForbiddenStatementIsFoundWithItsLine() throws {
        let sql = """
            -- a comment first
            CREATE TABLE a(x);
            BEGIN;
            END; ROLLBACK;
            VACUUM;
            ATTACH 'other.db' AS other;
            DETACH other;
            PRAGMA key = 'secret';
            PRAGMA cipher_page_size = 4096;
            PRAGMA kdf_iter = 1;
            PRAGMA cipher_migrate;
            PRAGMA journal_mode = WAL;
            PRAGMA foreign_keys = OFF;
            """
        let folder = try migrations([("all", sql)])
        let file = try XCTUnwrap(SQLMigrationFile.load(directory: folder).first)
        let found = try file.forbiddenStatements()
        XCTAssertEqual(found.map(\.line), [3, 4, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13])
        XCTAssertEqual(found.map(\.refusal.kind), [
            .transaction, .transaction, .transaction, .vacuum, .attach, .attach,
            .cipherPragma, .cipherPragma, .cipherPragma, .cipherPragma, .journalMode, .foreignKeys,
        ])
        XCTAssertEqual(found.map(\.statement)[0...6], ["BEGIN", "END", "ROLLBACK", "VACUUM", "ATTACH 'other.db' AS other",
                                                        "DETACH other", "PRAGMA key = ..."])
        XCTAssertFalse(found.contains { $0.statement.contains("secret") })
    }

    func testSavepointsTriggersReadsAndStringsAreAllowed() throws {
        let dbQueue = try makeQueue()
        var migrator = DatabaseMigrator()
        let sql = """
            CREATE TABLE a(x);
            CREATE TABLE log(y);
            CREATE TRIGGER a_log AFTER INSERT ON a BEGIN INSERT INTO log VALUES (new.x); END;
            SAVEPOINT s1;
            INSERT INTO a VALUES ('COMMIT; VACUUM;');
            ROLLBACK TO s1;
            INSERT INTO a VALUES (2);
            RELEASE s1;
            PRAGMA foreign_keys;
            PRAGMA journal_mode;
            PRAGMA cipher_version;
            REINDEX;
            """
        try migrator.registerMigrations(from: migrations([("fine", sql)]))
        XCTAssertEqual(try SQLMigrationFile.load(directory: migrations([("fine", sql)]))[0].forbiddenStatements(), [])
        try migrator.migrate(dbQueue)
        XCTAssertEqual(try dbQueue.read { try Int.fetchAll($0, sql: "SELECT y FROM log") }, [2])
        XCTAssertEqual(try history(dbQueue), ["fine"])
    }

    func testADownFileIsCheckedBeforeTheRollback() throws {
        let dbQueue = try makeQueue()
        var migrator = DatabaseMigrator()
        try migrator.registerMigrations(from: migrations([("one", "CREATE TABLE a(x);")],
                                                         downs: ["one": "DROP TABLE a;\nCOMMIT;\n"]))
        try migrator.migrate(dbQueue)
        XCTAssertThrowsError(try migrator.rollback(dbQueue, steps: 1)) { error in
            guard case let .forbiddenStatement(_, path, line, _, _)? = error as? MigrationError else { return XCTFail("\(error)") }
            XCTAssertTrue(path?.hasSuffix("0001_one.down.sql") == true)
            XCTAssertEqual(line, 2)
        }
        XCTAssertEqual(try tables(dbQueue), ["a", "securestore_migration_events", "securestore_migrations"])
        XCTAssertEqual(try history(dbQueue), ["one"])
    }

    // MARK: Swift migrations

    func testSwiftMigrationsAreRefusedAsTheyRun() throws {
        let statements = [
            "COMMIT", "BEGIN IMMEDIATE", "ROLLBACK", "VACUUM", "ATTACH ':memory:' AS other",
            "PRAGMA rekey = 'stolen'", "PRAGMA journal_mode = WAL", "PRAGMA foreign_keys = ON",
        ]
        for (index, statement) in statements.enumerated() {
            let name = "swift-\(index).sqlite"
            let dbQueue = try makeQueue(name)
            var migrator = DatabaseMigrator()
            migrator.registerMigration("first") { db in try db.execute(sql: "CREATE TABLE a(x)") }
            migrator.registerMigration("second") { db in
                try db.execute(sql: "CREATE TABLE b(x)")
                try db.execute(sql: statement)
                try db.execute(sql: "CREATE TABLE c(x)")
            }
            XCTAssertThrowsError(try migrator.migrate(dbQueue), statement) { error in
                guard case let .forbiddenStatement(identifier, path, _, _, _)? = error as? MigrationError else {
                    return XCTFail("\(statement): \(error)")
                }
                XCTAssertEqual(identifier, "second")
                XCTAssertNil(path)
                XCTAssertFalse("\(error)".contains("stolen"), "\(error)")
            }
            XCTAssertEqual(try tables(dbQueue), ["a", "securestore_migration_events", "securestore_migrations"], statement)
            XCTAssertEqual(try history(dbQueue), ["first"], statement)
            try dbQueue.close()
            try assertKeyStillOpens(name)
        }
    }

    func testKeyChangesAndTransactionHelpersAreRefusedInSwiftMigrations() throws {
        let dbQueue = try makeQueue()
        let attempts: [(String, @Sendable (Database) throws -> Void)] = [
            ("changePassphrase", { db in try db.changePassphrase("stolen") }),
            ("usePassphrase", { db in try db.usePassphrase("stolen") }),
            ("commit", { db in try db.commit() }),
            ("inTransaction", { db in try db.inTransaction { .commit } }),
        ]
        for (name, attempt) in attempts {
            var migrator = DatabaseMigrator()
            migrator.registerMigration(name) { db in
                try db.execute(sql: "CREATE TABLE t_\(name)(x)")
                try attempt(db)
            }
            XCTAssertThrowsError(try migrator.migrate(dbQueue), name) { error in
                guard case .forbiddenStatement? = error as? MigrationError else { return XCTFail("\(name): \(error)") }
            }
            XCTAssertEqual(try tables(dbQueue), [], name)
        }
        // A savepoint is fine.
        var migrator = DatabaseMigrator()
        migrator.registerMigration("savepoint") { db in
            try db.inSavepoint {
                try db.execute(sql: "CREATE TABLE kept(x)")
                return .commit
            }
        }
        try migrator.migrate(dbQueue)
        XCTAssertEqual(try tables(dbQueue), ["kept", "securestore_migration_events", "securestore_migrations"])
        try dbQueue.close()
        try assertKeyStillOpens()
    }

    func testAStatementPreparedBeforeTheMigrationIsRefusedWhenRunInIt() throws {
        let dbQueue = try makeQueue()
        let commit = try dbQueue.writeWithoutTransaction { db in try db.cachedStatement(sql: "COMMIT") }
        _ = commit
        var migrator = DatabaseMigrator()
        migrator.registerMigration("cached") { db in
            try db.execute(sql: "CREATE TABLE a(x)")
            try db.cachedStatement(sql: "COMMIT").execute()
        }
        XCTAssertThrowsError(try migrator.migrate(dbQueue)) { error in
            guard case .forbiddenStatement? = error as? MigrationError else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(try tables(dbQueue), [])
        // Outside migrations the same statement works.
        try dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN")
            try db.cachedStatement(sql: "COMMIT").execute()
        }
    }

    // MARK: Outside migrations

    func testCompilingATrailingRekeyNeverRunsIt() throws {
        // SQLCipher runs its key pragmas when they compile: checking that
        // SQL holds a single statement must not compile the second one.
        let dbQueue = try makeQueue()
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE a(x)") }
        try dbQueue.writeWithoutTransaction { db in
            XCTAssertThrowsError(try db.makeStatement(sql: "SELECT 1; PRAGMA rekey = 'stolen'"))
        }
        try dbQueue.close()
        try assertKeyStillOpens()
    }

    func testScriptsAreSplitBySQLiteTokenizer() throws {
        let sql = """
            CREATE TRIGGER t AFTER INSERT ON a BEGIN SELECT 1; SELECT ';'; END;
            -- a comment; with a semicolon
            INSERT INTO a VALUES ('x;y'); /* ; */ SELECT 2
            """
        let statements = Database.statements(inScript: sql).map { $0.sql.trimmingCharacters(in: .whitespacesAndNewlines) }
        XCTAssertEqual(statements.count, 3, "\(statements)")
        XCTAssertTrue(statements[0].hasSuffix("END;"))
        XCTAssertTrue(statements[1].hasSuffix("('x;y');"))
        XCTAssertTrue(statements[2].hasSuffix("SELECT 2"))
    }
}
