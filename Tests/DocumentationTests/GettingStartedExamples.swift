// The code of the GettingStarted article, compiled and run by the tests.
// ArticleCodeTests checks that every Swift block of the articles appears
// here (or in another file of this folder) line for line.
import Foundation
import SecureStore

struct Player: Codable, FetchableRecord, MutablePersistableRecord {
    var id: Int64?
    var name: String
    var score: Int

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

func makeMigrator() -> DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("createPlayer") { db in
        try db.create(table: "player") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("name", .text).notNull()
            t.column("score", .integer).notNull().defaults(to: 0)
        }
    }
    return migrator
}

func openDatabase(at path: String, passphrase: String) throws -> DatabaseQueue {
    var config = Configuration()
    config.prepareDatabase { db in
        try db.usePassphrase(passphrase)
    }
    let dbQueue = try DatabaseQueue(path: path, configuration: config)
    try makeMigrator().migrate(dbQueue)
    return dbQueue
}

func gettingStarted(path: String) throws -> [Player] {
    let dbQueue = try openDatabase(at: path, passphrase: "correct horse battery staple")
    try dbQueue.write { db in
        var player = Player(id: nil, name: "Arthur", score: 100)
        try player.insert(db)
        _ = try Player(id: nil, name: "Barbara", score: 250).inserted(db)
    }
    let best = try dbQueue.read { db in
        try Player.order(Column("score").desc).limit(10).fetchAll(db)
    }
    return best
}
