import MigrateToolKit
import SecureStore

// An app's own migrate tool: its migrations are registered in Swift, and
// every migrate-tool command works on them, without a migrations directory.
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
    // SQLite 3.15.2 has no DROP COLUMN: rebuild the table without it.
    try db.execute(sql: """
        DROP INDEX brandRGDB_on_language;
        CREATE TABLE brandRGDB_v1 (brandId TEXT PRIMARY KEY, image TEXT, keywords TEXT, name TEXT);
        INSERT INTO brandRGDB_v1 SELECT brandId, image, keywords, name FROM brandRGDB;
        DROP TABLE brandRGDB;
        ALTER TABLE brandRGDB_v1 RENAME TO brandRGDB;
        """)
}

MigrateToolCommand.main(migrator: migrator, commandName: "zalora-migrate")
