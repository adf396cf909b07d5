import Foundation
import SecureStore
import TestSupport
import XCTest

final class DatabaseMigratorTests: SecureStoreTestCase {
    private struct Boom: Error {}

    private func columns(_ dbQueue: DatabaseQueue, _ table: String = "brandRGDB") throws -> [String] {
        // pragma_table_info() needs SQLite 3.16; this is 3.15.2.
        try dbQueue.read { db in
            try Row.fetchAll(db, sql: "PRAGMA table_info(\(table.quotedDatabaseIdentifier))").map { $0["name"] as String }
        }
    }

    /// Everything a failed or refused step must leave untouched.
    private func snapshot(_ dbQueue: DatabaseQueue) throws -> [String] {
        try dbQueue.read { db in
            let history = try String.fetchAll(db, sql: "SELECT identifier FROM securestore_migrations ORDER BY applied_order")
            let data = try Row.fetchAll(db, sql: "SELECT * FROM brandRGDB ORDER BY brandId").map(\.description)
            return [try db.schemaFingerprint()] + history + data
        }
    }

    func testFileMigrationsApplyInOrderAndRecordHistory() throws {
        let dbQueue = try makeEncryptedQueue()
        let migrator = try ZaloraMigrations.fileMigrator()
        XCTAssertEqual(migrator.migrations, ["Zalora-v1", "Zalora-v2", "Zalora-v3"])
        try migrator.migrate(dbQueue)
        XCTAssertEqual(try columns(dbQueue), ["brandId", "image", "tags", "name", "language"])
        try dbQueue.read { db in
            XCTAssertEqual(try migrator.appliedMigrations(db), migrator.migrations)
            XCTAssertTrue(try migrator.hasCompletedMigrations(db))
            XCTAssertFalse(try migrator.hasBeenSuperseded(db))
            let history = try migrator.history(db)
            XCTAssertEqual(history.map(\.order), [1, 2, 3])
            XCTAssertEqual(history.map(\.source), ["sql", "sql", "sql"])
            let upV1 = try String(contentsOf: ZaloraMigrations.directory.appendingPathComponent("0001_Zalora-v1.up.sql"), encoding: .utf8)
            XCTAssertEqual(history[0].checksum, try sha256OfText(upV1))
            XCTAssertTrue(history[1].downSQL?.contains("brandRGDB_v1") == true)
            XCTAssertNotNil(history[0].appliedAt)
            XCTAssertEqual(history[2].schemaFingerprint, try db.schemaFingerprint())
            XCTAssertNotEqual(history[0].schemaFingerprint, history[1].schemaFingerprint)
            XCTAssertTrue(try migrator.validate(db).isConsistent)
        }
        // Migrating again does nothing.
        let before = try snapshot(dbQueue)
        try migrator.migrate(dbQueue)
        XCTAssertEqual(try snapshot(dbQueue), before)
    }

    private func sha256OfText(_ text: String) throws -> String {
        let file = path("text-\(UUID().uuidString)")
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return try sha256(file)
    }

    func testSwiftAndFileMigrationsMakeTheSameSchema() throws {
        let fromFiles = try makeEncryptedQueue("files.sqlite")
        let fromSwift = try makeEncryptedQueue("swift.sqlite")
        try ZaloraMigrations.fileMigrator().migrate(fromFiles)
        try ZaloraMigrations.swiftMigrator().migrate(fromSwift)
        XCTAssertEqual(try columns(fromFiles), try columns(fromSwift))
        let indexes = { (q: DatabaseQueue) in try q.read { try String.fetchAll($0, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%'") } }
        XCTAssertEqual(try indexes(fromFiles), ["brandRGDB_on_language"])
        XCTAssertEqual(try indexes(fromSwift), ["brandRGDB_on_language"])
    }

    func testMigrateUpToAndRollBackToEachPoint() throws {
        for migrator in [try ZaloraMigrations.fileMigrator(), ZaloraMigrations.swiftMigrator()] {
            let dbQueue = try makeEncryptedQueue("db-\(UUID().uuidString).sqlite")
            try migrator.migrate(dbQueue, upTo: "Zalora-v1")
            XCTAssertEqual(try columns(dbQueue), ["brandId", "image", "keywords", "name"])
            try dbQueue.write { db in
                try db.execute(sql: "INSERT INTO brandRGDB VALUES ('b1', 'i.png', 'shoes', 'One'), ('b2', NULL, NULL, NULL)")
            }
            try migrator.migrate(dbQueue, upTo: "Zalora-v2")
            try dbQueue.write { db in try db.execute(sql: "UPDATE brandRGDB SET language = 'en' WHERE brandId = 'b1'") }
            try migrator.migrate(dbQueue)
            XCTAssertEqual(try dbQueue.read { try Row.fetchAll($0, sql: "SELECT brandId, tags, name, language FROM brandRGDB ORDER BY brandId") },
                           [["brandId": "b1", "tags": "shoes", "name": "One", "language": "en"],
                            ["brandId": "b2", "tags": nil, "name": "", "language": nil]])

            try migrator.rollback(dbQueue, to: "Zalora-v2")
            XCTAssertEqual(try columns(dbQueue), ["brandId", "image", "keywords", "name", "language"])
            XCTAssertEqual(try dbQueue.read { try String.fetchOne($0, sql: "SELECT keywords FROM brandRGDB WHERE language = 'en'") }, "shoes")
            XCTAssertEqual(try dbQueue.read { try migrator.appliedMigrations($0) }, ["Zalora-v1", "Zalora-v2"])

            XCTAssertNil(try dbQueue.read { try migrator.validate($0).schemaDrift }, "a rebuilt table is not drift")

            try migrator.rollback(dbQueue, to: "Zalora-v1")
            XCTAssertEqual(try columns(dbQueue), ["brandId", "image", "keywords", "name"])
            XCTAssertNil(try dbQueue.read { try migrator.validate($0).schemaDrift }, "a rebuilt table is not drift")
            XCTAssertEqual(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM brandRGDB") }, 2)

            try migrator.rollback(dbQueue, steps: 1)
            XCTAssertEqual(try dbQueue.read { try $0.tableExists("brandRGDB") }, false)
            XCTAssertEqual(try dbQueue.read { try migrator.appliedMigrations($0) }, [])

            // Re-apply after rollback.
            try migrator.migrate(dbQueue)
            XCTAssertEqual(try dbQueue.read { try migrator.appliedMigrations($0) }, migrator.migrations)
            try migrator.rollback(dbQueue, steps: 3)
            XCTAssertEqual(try dbQueue.read { try migrator.history($0) }, [])
        }
    }

    func testRefusedRequestsChangeNothing() throws {
        let dbQueue = try makeEncryptedQueue()
        let migrator = try ZaloraMigrations.fileMigrator()
        try migrator.migrate(dbQueue, upTo: "Zalora-v2")
        let before = try snapshot(dbQueue)
        XCTAssertThrowsError(try migrator.migrate(dbQueue, upTo: "Zalora-v9")) { error in
            XCTAssertEqual(error as? MigrationError, .unknownMigration("Zalora-v9"))
        }
        XCTAssertThrowsError(try migrator.migrate(dbQueue, upTo: "Zalora-v1")) { error in
            XCTAssertEqual(error as? MigrationError, .targetAlreadyPassed(target: "Zalora-v1", appliedAfter: ["Zalora-v2"]))
        }
        XCTAssertThrowsError(try migrator.rollback(dbQueue, to: "Zalora-v3")) { error in
            XCTAssertEqual(error as? MigrationError, .targetNotApplied("Zalora-v3"))
        }
        XCTAssertThrowsError(try migrator.rollback(dbQueue, steps: 3)) { error in
            XCTAssertEqual(error as? MigrationError, .invalidStepCount(requested: 3, applied: 2))
        }
        XCTAssertEqual(try snapshot(dbQueue), before)
    }

    func testDuplicateIdentifierIsAThrownError() throws {
        let dbQueue = try makeEncryptedQueue()
        var migrator = ZaloraMigrations.swiftMigrator()
        migrator.registerMigration("Zalora-v1") { _ in }
        XCTAssertThrowsError(try migrator.migrate(dbQueue)) { error in
            XCTAssertEqual(error as? MigrationError, .duplicateIdentifier("Zalora-v1"))
            XCTAssertEqual("\(error)", "migration \"Zalora-v1\" is registered twice")
        }
        XCTAssertFalse(try dbQueue.read { try $0.tableExists("brandRGDB") })
        XCTAssertThrowsError(try dbQueue.read { try migrator.validate($0) })
    }

    func testMigrationThatThrowsHalfwayLeavesThePreviousState() throws {
        let dbQueue = try makeEncryptedQueue()
        var migrator = ZaloraMigrations.swiftMigrator()
        migrator.registerMigration("broken") { db in
            try db.execute(sql: "CREATE TABLE half (a)")
            try db.execute(sql: "DELETE FROM brandRGDB")
            throw Boom()
        }
        try migrator.migrate(dbQueue, upTo: "Zalora-v3")
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO brandRGDB (brandId, name) VALUES ('b1', 'One')") }
        let before = try snapshot(dbQueue)
        XCTAssertThrowsError(try migrator.migrate(dbQueue)) { error in
            XCTAssertTrue(error is Boom, "the migration's own error is rethrown unchanged: \(error)")
        }
        XCTAssertEqual(try snapshot(dbQueue), before)
        XCTAssertFalse(try dbQueue.read { try $0.tableExists("half") })
        // The file is still encrypted and readable by the CLI.
        try dbQueue.close()
        let cli = try CommandLineClient.sqlcipher(path("db.sqlite"), preamble: "PRAGMA key = 'secret';",
                                                  sql: "SELECT identifier FROM securestore_migrations ORDER BY applied_order;")
        XCTAssertEqual(cli.stdout, "Zalora-v1\nZalora-v2\nZalora-v3\n", cli.stderr)
    }

    func testFailingSQLFileNamesTheFileAndLine() throws {
        let folder = try ZaloraMigrations.copy(to: directory)
        try """
            -- adds a table, then fails
            CREATE TABLE extra (a);

            INSERT INTO no_such_table VALUES (1);
            """.write(to: folder.appendingPathComponent("0004_bad.up.sql"), atomically: true, encoding: .utf8)
        let dbQueue = try makeEncryptedQueue()
        let migrator = try ZaloraMigrations.fileMigrator(folder)
        try migrator.migrate(dbQueue, upTo: "Zalora-v3")
        let before = try snapshot(dbQueue)
        XCTAssertThrowsError(try migrator.migrate(dbQueue)) { error in
            guard case let .sqlFailed(identifier, path, line, dbError)? = error as? MigrationError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(identifier, "bad")
            XCTAssertTrue(path.hasSuffix("0004_bad.up.sql"))
            XCTAssertEqual(line, 4)
            XCTAssertEqual(dbError.message, "no such table: no_such_table")
            XCTAssertTrue("\(error)".hasSuffix("0004_bad.up.sql:4: migration \"bad\" failed: no such table: no_such_table (SQLite error 1)"), "\(error)")
        }
        XCTAssertEqual(try snapshot(dbQueue), before)
    }

    func testForeignKeyViolationFailsTheMigrationAndNamesTheTable() throws {
        for checks in [DatabaseMigrator.ForeignKeyChecks.deferred, .immediate] {
            let dbQueue = try makeEncryptedQueue("fk-\(checks).sqlite")
            var migrator = DatabaseMigrator()
            migrator.registerMigration("parent") { db in
                try db.execute(sql: "CREATE TABLE parent (id INTEGER PRIMARY KEY)")
            }
            migrator.registerMigration("orphan", foreignKeyChecks: checks) { db in
                try db.execute(sql: "CREATE TABLE child (parentId INTEGER REFERENCES parent(id))")
                try db.execute(sql: "INSERT INTO child VALUES (42)")
            }
            XCTAssertThrowsError(try migrator.migrate(dbQueue)) { error in
                XCTAssertEqual((error as? DatabaseError)?.extendedResultCode, .SQLITE_CONSTRAINT_FOREIGNKEY, "\(error)")
                if checks == .deferred {
                    // GRDB's message: the foreign key and the row.
                    XCTAssertEqual((error as? DatabaseError)?.message,
                                   "FOREIGN KEY constraint violation - from child(parentId) to parent(id), in [parentId:42]")
                }
            }
            try dbQueue.read { db in
                XCTAssertEqual(try migrator.appliedMigrations(db), ["parent"])
                XCTAssertFalse(try db.tableExists("child"))
                XCTAssertEqual(try Bool.fetchOne(db, sql: "PRAGMA foreign_keys"), true, "foreign keys are back on")
            }
        }
    }

    func testDeferredChecksAllowATableRebuildThatEndsConsistent() throws {
        let dbQueue = try makeEncryptedQueue()
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE parent (id INTEGER PRIMARY KEY, name TEXT);
                CREATE TABLE child (parentId INTEGER REFERENCES parent(id) ON DELETE CASCADE);
                INSERT INTO parent VALUES (1, 'p'); INSERT INTO child VALUES (1);
                """)
        }
        migrator.registerMigration("rebuild parent") { db in
            try db.execute(sql: """
                CREATE TABLE parent_new (id INTEGER PRIMARY KEY, title TEXT);
                INSERT INTO parent_new SELECT id, name FROM parent;
                DROP TABLE parent;
                ALTER TABLE parent_new RENAME TO parent;
                """)
        }
        try migrator.migrate(dbQueue)
        XCTAssertEqual(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM child") }, 1, "no cascade during the rebuild")
    }

    func testMissingDownStepRefusesTheWholeRollback() throws {
        let dbQueue = try makeEncryptedQueue()
        var migrator = DatabaseMigrator()
        migrator.registerMigration("a") { db in try db.execute(sql: "CREATE TABLE a (x)") } rollback: { db in try db.execute(sql: "DROP TABLE a") }
        migrator.registerMigration("b") { db in try db.execute(sql: "CREATE TABLE b (x)") }
        migrator.registerMigration("c") { db in try db.execute(sql: "CREATE TABLE c (x)") } rollback: { db in try db.execute(sql: "DROP TABLE c") }
        try migrator.migrate(dbQueue)
        XCTAssertThrowsError(try migrator.rollback(dbQueue, to: "a")) { error in
            XCTAssertEqual(error as? MigrationError, .missingRollback("b"))
        }
        XCTAssertEqual(try dbQueue.read { try migrator.appliedMigrations($0) }, ["a", "b", "c"])
        XCTAssertTrue(try dbQueue.read { try $0.tableExists("c") })
        try migrator.rollback(dbQueue, steps: 1)
        XCTAssertEqual(try dbQueue.read { try migrator.appliedMigrations($0) }, ["a", "b"])
    }

    func testChecksumDriftIsReported() throws {
        let folder = try ZaloraMigrations.copy(to: directory)
        let dbQueue = try makeEncryptedQueue()
        try ZaloraMigrations.fileMigrator(folder).migrate(dbQueue)
        let file = folder.appendingPathComponent("0002_Zalora-v2.up.sql")
        try (String(contentsOf: file, encoding: .utf8) + "\n-- edited after release\n").write(to: file, atomically: true, encoding: .utf8)
        let validation = try dbQueue.read { try ZaloraMigrations.fileMigrator(folder).validate($0) }
        XCTAssertEqual(validation.checksumMismatches.map(\.identifier), ["Zalora-v2"])
        XCTAssertFalse(validation.isConsistent)
        XCTAssertNil(validation.schemaDrift)
    }

    func testSupersededDatabaseIsReportedAndAnOlderReleaseRollsBackWithStoredDownSQL() throws {
        let dbQueue = try makeEncryptedQueue()
        try ZaloraMigrations.fileMigrator().migrate(dbQueue)
        // An older release knows only v1 and v2, in Swift, without down steps.
        var older = DatabaseMigrator()
        older.registerMigration("Zalora-v1") { _ in }
        older.registerMigration("Zalora-v2") { _ in }
        try dbQueue.read { db in
            XCTAssertTrue(try older.hasBeenSuperseded(db))
            XCTAssertEqual(try older.validate(db).superseded, ["Zalora-v3"])
            XCTAssertEqual(try older.plan(db, rollbackTo: "Zalora-v2"), MigrationPlan(direction: .down, steps: ["Zalora-v3"]))
        }
        try older.rollback(dbQueue, to: "Zalora-v2")
        XCTAssertEqual(try columns(dbQueue), ["brandId", "image", "keywords", "name", "language"])
        XCTAssertFalse(try dbQueue.read { try older.hasBeenSuperseded($0) })
        // v2 and v1 were applied from files: their stored down SQL works too.
        try older.rollback(dbQueue, steps: 2)
        XCTAssertFalse(try dbQueue.read { try $0.tableExists("brandRGDB") })
    }

    func testSchemaDriftIsReported() throws {
        let dbQueue = try makeEncryptedQueue()
        let migrator = try ZaloraMigrations.fileMigrator()
        try migrator.migrate(dbQueue)
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO brandRGDB (brandId, name) VALUES ('x', 'y')") }
        XCTAssertNil(try dbQueue.read { try migrator.validate($0).schemaDrift }, "data changes are not drift")
        try dbQueue.write { db in try db.execute(sql: "CREATE INDEX hotfix ON brandRGDB(name)") }
        let drift = try XCTUnwrap(try dbQueue.read { try migrator.validate($0).schemaDrift })
        XCTAssertEqual(drift.lastMigration, "Zalora-v3")
        XCTAssertNotEqual(drift.recorded, drift.current)
    }

    func testPlansChangeNothing() throws {
        let dbQueue = try makeEncryptedQueue()
        let migrator = try ZaloraMigrations.fileMigrator()
        try dbQueue.read { db in
            XCTAssertEqual(try migrator.plan(db), MigrationPlan(direction: .up, steps: migrator.migrations))
            XCTAssertEqual(try migrator.plan(db, upTo: "Zalora-v2").steps, ["Zalora-v1", "Zalora-v2"])
        }
        try migrator.migrate(dbQueue)
        try dbQueue.read { db in
            XCTAssertEqual(try migrator.plan(db, rollbackTo: "Zalora-v1").steps, ["Zalora-v3", "Zalora-v2"])
            XCTAssertEqual(try migrator.plan(db, rollbackSteps: 1).steps, ["Zalora-v3"])
            XCTAssertTrue(try migrator.plan(db).isEmpty)
        }
    }

    func testGRDBHistoryIsAdoptedAndKeptInStep() throws {
        let created = try CommandLineClient.sqlcipher(path("grdb.sqlite"), preamble: "PRAGMA key = 'secret';", sql: """
            CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
            CREATE TABLE brandRGDB (brandId TEXT PRIMARY KEY, image TEXT, keywords TEXT, name TEXT);
            INSERT INTO grdb_migrations VALUES ('Zalora-v1');
            INSERT INTO brandRGDB VALUES ('b1', NULL, NULL, 'kept');
            """)
        XCTAssertEqual(created.status, 0, created.stderr)
        let dbQueue = try makeEncryptedQueue("grdb.sqlite")
        let migrator = ZaloraMigrations.swiftMigrator()
        XCTAssertEqual(try dbQueue.read { try migrator.appliedMigrations($0) }, ["Zalora-v1"])
        try migrator.migrate(dbQueue, upTo: "Zalora-v2")
        try dbQueue.read { db in
            let history = try migrator.history(db)
            XCTAssertEqual(history.map(\.identifier), ["Zalora-v1", "Zalora-v2"])
            XCTAssertEqual(history.map(\.source), ["grdb", "swift"])
            XCTAssertEqual(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier"),
                           ["Zalora-v1", "Zalora-v2"])
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT name FROM brandRGDB"), "kept")
        }
        try migrator.rollback(dbQueue, steps: 1)
        XCTAssertEqual(try dbQueue.read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations") }, ["Zalora-v1"])
    }

    func testCompletedMigrationsFollowRegistrationOrder() throws {
        let dbQueue = try makeEncryptedQueue()
        var first = DatabaseMigrator()
        first.registerMigration("a") { _ in }
        first.registerMigration("c") { _ in }
        try first.migrate(dbQueue)
        var second = DatabaseMigrator()
        second.registerMigration("a") { _ in }
        second.registerMigration("b") { _ in }
        second.registerMigration("c") { _ in }
        try dbQueue.read { db in
            XCTAssertEqual(try second.appliedMigrations(db), ["a", "c"])
            XCTAssertEqual(try second.completedMigrations(db), ["a"])
            XCTAssertFalse(try second.hasCompletedMigrations(db))
            XCTAssertEqual(try second.appliedIdentifiers(db), ["a", "c"])
        }
        try second.migrate(dbQueue)
        XCTAssertTrue(try dbQueue.read { try second.hasCompletedMigrations($0) })
    }

    func testConcurrentMigratorsApplyEachStepOnce() throws {
        var config = keyedConfiguration(passphrase: "secret")
        config.busyMode = .timeout(10)
        let queues = try (0..<3).map { _ in try DatabaseQueue(path: path("db.sqlite"), configuration: config) }
        var migrator = DatabaseMigrator()
        for n in 0..<10 {
            migrator.registerMigration("step \(n)") { db in
                try db.execute(sql: "CREATE TABLE t\(n) (a); INSERT INTO t\(n) VALUES (1)")
            }
        }
        let errors = ErrorBox()
        let sharedMigrator = migrator
        DispatchQueue.concurrentPerform(iterations: queues.count) { index in
            do { try sharedMigrator.migrate(queues[index]) } catch { errors.append(error) }
        }
        XCTAssertTrue(errors.isEmpty)
        try queues[0].read { db in
            XCTAssertEqual(try migrator.appliedMigrations(db).count, 10)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM securestore_migrations"), 10)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM t9"), 1)
        }
    }

    func testEraseDatabaseOnSchemaChange() throws {
        let dbQueue = try makeEncryptedQueue()
        var v1 = DatabaseMigrator()
        v1.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE t (a)") }
        try v1.migrate(dbQueue)
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }

        var edited = DatabaseMigrator()
        edited.eraseDatabaseOnSchemaChange = true
        edited.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE t (a, b)") }
        XCTAssertTrue(try dbQueue.read { try edited.hasSchemaChanges($0) })
        try edited.migrate(dbQueue)
        XCTAssertEqual(try columns(dbQueue, "t"), ["a", "b"])
        XCTAssertEqual(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") }, 0)
        XCTAssertFalse(try dbQueue.read { try edited.hasSchemaChanges($0) })
    }

    func testAsyncMigrate() async throws {
        let dbQueue = try makeEncryptedQueue()
        try await ZaloraMigrations.swiftMigrator().migrate(dbQueue)
        let applied = try await dbQueue.read { db in try ZaloraMigrations.swiftMigrator().appliedMigrations(db) }
        XCTAssertEqual(applied.count, 3)
    }
}

final class SchemaFingerprintTests: SecureStoreTestCase {
    func testRebuiltAndRenamedTableHasTheSameFingerprint() throws {
        let original = try DatabaseQueue()
        let rebuilt = try DatabaseQueue()
        try original.write { db in try db.execute(sql: "CREATE TABLE t (a TEXT DEFAULT 'X  Y', b INT)") }
        try rebuilt.write { db in
            try db.execute(sql: """
                CREATE TABLE t_new (a TEXT DEFAULT 'X  Y',
                    b INT);
                ALTER TABLE t_new RENAME TO t;
                """)
        }
        XCTAssertEqual(try rebuilt.read { try String.fetchOne($0, sql: "SELECT sql FROM sqlite_master") }?.contains("\"t\""), true)
        XCTAssertEqual(try original.read { try $0.schemaFingerprint() }, try rebuilt.read { try $0.schemaFingerprint() })
    }

    func testAddedColumnMatchesARebuiltTable() throws {
        let altered = try DatabaseQueue(), rebuilt = try DatabaseQueue()
        try altered.write { db in try db.execute(sql: "CREATE TABLE t (\n  a TEXT\n);\nALTER TABLE t ADD COLUMN b INT") }
        try rebuilt.write { db in try db.execute(sql: "CREATE TABLE t (a TEXT, b INT)") }
        XCTAssertEqual(try altered.read { try $0.schemaFingerprint() }, try rebuilt.read { try $0.schemaFingerprint() })
    }

    func testFingerprintSeesRealChanges() throws {
        let one = try DatabaseQueue(), two = try DatabaseQueue(), three = try DatabaseQueue()
        try one.write { db in try db.execute(sql: "CREATE TABLE t (a TEXT DEFAULT 'x')") }
        try two.write { db in try db.execute(sql: "CREATE TABLE t (a TEXT DEFAULT 'X')") }
        try three.write { db in try db.execute(sql: "CREATE TABLE t (a TEXT DEFAULT 'x'); CREATE INDEX i ON t(a)") }
        let prints = try [one, two, three].map { q in try q.read { try $0.schemaFingerprint() } }
        XCTAssertEqual(Set(prints).count, 3, "string literals keep their case; indexes count")
    }
}
