// Before: import GRDB
import SecureStore

// The code of the PortingFromGRDB article.
import Foundation

func insertReturningNeedsNewerSQLite(_ dbQueue: DatabaseQueue) throws -> String? {
    try dbQueue.write { db in
        var player = Player(id: nil, name: "Dana", score: 7)
        do {
            player = try player.insertAndFetch(db)
        } catch let error as DatabaseError {
            // "RETURNING needs SQLite 3.35 or later; this SQLCipher runs SQLite 3.15.2"
            return error.message
        }
        return nil
    }
}
