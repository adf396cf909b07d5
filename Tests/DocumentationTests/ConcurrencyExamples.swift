// The code of the Concurrency article.
import Foundation
import SecureStore

func openPool(at path: String, passphrase: String) throws -> DatabasePool {
    var config = Configuration()
    config.maximumReaderCount = 4
    config.prepareDatabase { db in
        try db.usePassphrase(passphrase)
    }
    return try DatabasePool(path: path, configuration: config)
}

func poolWork(_ dbPool: DatabasePool) async throws -> Int {
    try await dbPool.write { db in
        try db.execute(sql: "INSERT INTO player (name, score) VALUES (?, ?)", arguments: ["Craig", 42])
    }
    return try await dbPool.read { db in
        try Player.fetchCount(db)
    }
}

func observePlayers(_ dbPool: DatabasePool) -> AnyDatabaseCancellable {
    let observation = ValueObservation.tracking { db in
        try Player.fetchCount(db)
    }
    return observation.start(in: dbPool, scheduling: .async(onQueue: .main)) { error in
        print("observation failed: \(error)")
    } onChange: { count in
        print("\(count) players")
    }
}

func cancellableReport(_ dbPool: DatabasePool) async throws -> Int {
    let task = Task {
        try await dbPool.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM player") ?? 0
        }
    }
    // task.cancel() here would make `task.value` throw CancellationError.
    return try await task.value
}

func playersBeforeCleanup(_ dbPool: DatabasePool) throws -> (before: Int, after: Int) {
    let snapshot = try dbPool.makeSnapshot()
    try dbPool.write { db in try db.execute(sql: "DELETE FROM player WHERE score < 50") }
    let before = try snapshot.read { db in try Player.fetchCount(db) }
    let after = try dbPool.read { db in try Player.fetchCount(db) }
    return (before, after)
}
