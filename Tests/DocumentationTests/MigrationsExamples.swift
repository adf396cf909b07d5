// The code of the Migrations article.
import Foundation
import SecureStore

func makeAppMigrator(sqlDirectory: URL) throws -> DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("Zalora-v1") { db in
        try db.execute(sql: "CREATE TABLE brand (id TEXT PRIMARY KEY, name TEXT)")
    } rollback: { db in
        try db.execute(sql: "DROP TABLE brand")
    }
    // 0002_Zalora-v2.up.sql, 0002_Zalora-v2.down.sql, ...
    try migrator.registerMigrations(from: sqlDirectory)
    return migrator
}

func migrateAndInspect(_ dbQueue: DatabaseQueue, migrator: DatabaseMigrator) throws {
    try migrator.migrate(dbQueue)
    let (applied, validation) = try dbQueue.read { db in
        (try migrator.appliedMigrations(db), try migrator.validate(db))
    }
    print("applied: \(applied)")
    if !validation.isConsistent {
        print("edited files: \(validation.checksumMismatches.map(\.identifier))")
    }
}

func rollBackLastRelease(_ dbQueue: DatabaseQueue, migrator: DatabaseMigrator) throws {
    try migrator.rollback(dbQueue, to: "Zalora-v1")
}

func checkBeforeRelease(migrator: DatabaseMigrator) throws {
    let findings = try migrator.lint()
    for finding in findings {
        print(finding)
    }
    let scratch = try DatabaseQueue() // in memory
    let report = try migrator.verifyReversibility(in: scratch, seedSQL: """
        INSERT INTO brand (id, name) VALUES ('b1', 'First');
        """)
    assert(report.passed(), "a down step does not undo its up step")
}
