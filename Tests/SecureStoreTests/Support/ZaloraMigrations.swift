import Foundation
import SecureStore

/// The example migrations: as files in Examples/migrations, and the same
/// steps registered in Swift.
enum ZaloraMigrations {
    static var directory: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Examples/migrations")
    }

    /// A copy of the example directory that a test may edit.
    static func copy(to folder: URL) throws -> URL {
        let target = folder.appendingPathComponent("migrations")
        try FileManager.default.copyItem(at: directory, to: target)
        return target
    }

    static func fileMigrator(_ directory: URL = directory) throws -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        try migrator.registerMigrations(from: directory)
        return migrator
    }

    /// The same migrations, in Swift.
    static func swiftMigrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("Zalora-v1") { db in
            try db.execute(sql: "CREATE TABLE brandRGDB (brandId TEXT PRIMARY KEY, image TEXT, keywords TEXT, name TEXT)")
        } rollback: { db in
            try db.execute(sql: "DROP TABLE brandRGDB")
        }
        migrator.registerMigration("Zalora-v2") { db in
            try db.execute(sql: """
                ALTER TABLE brandRGDB ADD COLUMN language TEXT;
                CREATE INDEX brandRGDB_on_language ON brandRGDB(language);
                """)
        } rollback: { db in
            try db.execute(sql: """
                DROP INDEX brandRGDB_on_language;
                CREATE TABLE brandRGDB_v1 (brandId TEXT PRIMARY KEY, image TEXT, keywords TEXT, name TEXT);
                INSERT INTO brandRGDB_v1 SELECT brandId, image, keywords, name FROM brandRGDB;
                DROP TABLE brandRGDB;
                ALTER TABLE brandRGDB_v1 RENAME TO brandRGDB;
                """)
        }
        migrator.registerMigration("Zalora-v3") { db in
            try db.execute(sql: """
                CREATE TABLE brandRGDB_v3 (brandId TEXT PRIMARY KEY, image TEXT, tags TEXT,
                                           name TEXT NOT NULL DEFAULT '', language TEXT);
                INSERT INTO brandRGDB_v3 SELECT brandId, image, keywords, IFNULL(name, ''), language FROM brandRGDB;
                DROP TABLE brandRGDB;
                ALTER TABLE brandRGDB_v3 RENAME TO brandRGDB;
                CREATE INDEX brandRGDB_on_language ON brandRGDB(language);
                """)
        } rollback: { db in
            try db.execute(sql: """
                CREATE TABLE brandRGDB_v2 (brandId TEXT PRIMARY KEY, image TEXT, keywords TEXT, name TEXT, language TEXT);
                INSERT INTO brandRGDB_v2 SELECT brandId, image, tags, name, language FROM brandRGDB;
                DROP TABLE brandRGDB;
                ALTER TABLE brandRGDB_v2 RENAME TO brandRGDB;
                CREATE INDEX brandRGDB_on_language ON brandRGDB(language);
                """)
        }
        return migrator
    }
}
