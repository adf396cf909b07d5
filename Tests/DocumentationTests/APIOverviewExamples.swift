// The code of the APIOverview and MigratorInDepth articles. ArticleCodeTests
// checks that their Swift blocks appear here line for line; the tests below
// run them on encrypted files.
import Foundation
import SecureStore

/// The tour's own names, apart from the GettingStarted article's `Player`.
enum APITour {
    struct Player: Codable, FetchableRecord, MutablePersistableRecord {
        var id: Int64?
        var name: String
        var score: Int
        mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
    }

    static func openAndQuery(path: String) async throws -> DatabaseQueue {
        var config = Configuration()
        config.prepareDatabase { db in
            try db.usePassphrase("secret")          // or db.useRawKey(32 bytes)
        }
        let dbQueue = try DatabaseQueue(path: path, configuration: config)   // path: "/var/lib/app/app.db"

        try await dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
            try db.execute(sql: "INSERT INTO player (name) VALUES (?)", arguments: ["Arthur"])
        }
        let names = try await dbQueue.read { db in try String.fetchAll(db, sql: "SELECT name FROM player") }
        print(names)
        return dbQueue
    }

    static func records(_ dbQueue: DatabaseQueue) throws {
        try dbQueue.write { db in
            try db.execute(sql: "ALTER TABLE player ADD COLUMN score INTEGER")
        }
        try dbQueue.write { db in
            var player = Player(id: nil, name: "Arthur", score: 100)
            try player.insert(db)                                   // player.id is set
            let best = try Player.filter(Column("score") > 50).order(Column("name").desc).limit(10).fetchAll(db)
            let count = try Player.filter(["Arthur", "Barbara"].contains(Column("name"))).fetchCount(db)
            try Player.filter(Column("score") == nil).updateAll(db, Column("score").set(to: 0))
            let one = try Player.fetchOne(db, key: 1)
            print(best, count, one as Any)
        }
    }

    static func schema(_ db: Database) throws {
        try db.create(table: "team") { t in
            t.autoIncrementedPrimaryKey("id")
        }
        try db.create(table: "player") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("name", .text).notNull().collate(.nocase)
            t.column("teamId", .integer).references("team", onDelete: .cascade).indexed()
            t.column("legacy", .text)
        }
        try db.alter(table: "player") { t in
            t.add(column: "score", .integer).notNull().defaults(to: 0)
            t.rename(column: "name", to: "fullName")   // RENAME COLUMN from SQLite 3.25; a table rebuild below
            t.drop(column: "legacy")                   // DROP COLUMN from SQLite 3.35; a table rebuild below
        }
    }

    @MainActor static func observe(_ dbPool: DatabasePool) async throws {
        let observation = ValueObservation.tracking { db in
            try Player.order { $0.score.desc }.fetchAll(db)
        }
        let cancellable = observation.start(in: dbPool, scheduling: .immediate) { error in
            // handle the error
        } onChange: { players in
            print("fresh players: \(players)")
        }
        defer { cancellable.cancel() }
        for try await count in ValueObservation.tracking(Player.fetchCount).values(in: dbPool) { print(count) }
    }

    static func migrate(_ dbQueue: DatabaseQueue, migrationsDirectory: URL) throws {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("Zalora-v1") { db in
            try db.execute(sql: "CREATE TABLE brandRGDB (brandId TEXT PRIMARY KEY, image TEXT, keywords TEXT, name TEXT)")
        } rollback: { db in
            try db.execute(sql: "DROP TABLE brandRGDB")
        }
        try migrator.registerMigrations(from: migrationsDirectory)  // a URL: SQL files, optional

        try migrator.migrate(dbQueue, upTo: "Zalora-v1")   // up to one migration
        try migrator.migrate(dbQueue)                      // everything pending
        try migrator.rollback(dbQueue, to: "Zalora-v1")    // or rollback(dbQueue, steps: 1)
        let report = try dbQueue.read { db in try migrator.validate(db) }
        let plan = try dbQueue.read { db in try migrator.plan(db, upTo: nil) }   // dry run
        print(report, plan)
    }
}

extension APITour.Player {
    enum Columns {
        static let score = Column("score")
    }
}
