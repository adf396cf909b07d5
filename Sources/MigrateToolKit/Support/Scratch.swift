import Foundation
import SecureStore

/// A new private (0700) directory, removed with what it holds when `body`
/// returns: where scratch databases and rehearsal copies go.
enum ScratchDirectory {
    static func with<T>(in parent: String?, _ body: (URL) throws -> T) throws -> T {
        var created = false
        do {
            return try PrivateFile.withTemporaryDirectory(in: parent, prefix: "migrate-tool-scratch-") { directory in
                created = true
                return try body(directory)
            }
        } catch let error as DatabaseError where !created {
            throw ToolError(.cannotCreate, "cannot make a scratch directory in \(parent ?? NSTemporaryDirectory()): \(error.message ?? "\(error)")")
        }
    }
}

/// An encrypted database with a random key in a scratch directory: for
/// checks that must never touch the user's files.
enum ScratchDatabase {
    static func with<T>(in parent: String?, _ body: (DatabaseQueue) throws -> T) throws -> T {
        try ScratchDirectory.with(in: parent) { directory in
            var config = Configuration()
            let passphrase = UUID().uuidString
            config.prepareDatabase { db in try db.usePassphrase(passphrase) }
            let dbQueue = try DatabaseQueue(path: directory.appendingPathComponent("scratch.db").path, configuration: config)
            defer { try? dbQueue.close() }
            return try body(dbQueue)
        }
    }
}

extension DatabaseMigrator {
    /// How the schema of `db` differs from its migrations up to
    /// `identifier`, replayed on a scratch database: what "schema drift"
    /// means, line by line.
    func driftDifferences(_ db: Database, since identifier: String) throws -> [String] {
        let expected = try ScratchDatabase.with(in: nil) { scratch in
            try migrate(scratch, upTo: identifier)
            return try scratch.read { db in try db.schemaSnapshot() }
        }
        return try db.schemaSnapshot().differences(from: expected)
    }
}
