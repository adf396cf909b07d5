// Before: import GRDB
import SecureStore

// The code of the PortingFromGRDB article.
import Foundation

func insertAndFetchWhereSQLiteHasReturning(_ dbQueue: DatabaseQueue) throws -> (player: Player?, error: String?) {
    try dbQueue.write { db in
        let player = Player(id: nil, name: "Dana", score: 7)
        do {
            // INSERT ... RETURNING *, on SQLite 3.35 and later (SQLCipher 4)
            return (try player.insertAndFetch(db), nil)
        } catch let error as DatabaseError {
            // SQLCipher 3.4.1: "RETURNING needs SQLite 3.35 or later; this SQLCipher runs SQLite 3.15.2"
            return (nil, error.message)
        }
    }
}
