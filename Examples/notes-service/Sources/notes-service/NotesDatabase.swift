import Foundation
import Logging
import SecureStore
import ServiceLifecycle

/// The notes, in an encrypted file: a `DatabasePool` opened at start, with
/// the service's migrations applied, and closed by the graceful shutdown of
/// swift-service-lifecycle (after the server stopped taking requests).
///
/// The migrations are SQL files (`migrations/`), the same that a deploy
/// script gives `migrate-tool`: a release's new migrations can be applied
/// with `migrate-tool apply` while the previous release still serves, and
/// the new release finds them applied when it starts. `migrate-tool rekey`
/// and `restore` refuse (exit 75) until the service stops.
final class NotesDatabase: Service {
    let pool: DatabasePool
    private let logger: Logger

    init(path: String, key: CipherKey, migrations: URL, logger: Logger) throws {
        var configuration = key.configuration()
        configuration.label = "notes"
        // A request waits for another one's write rather than failing.
        configuration.busyMode = .timeout(5)
        pool = try DatabasePool(path: path, configuration: configuration)
        self.logger = logger
        var migrator = DatabaseMigrator()
        try migrator.registerMigrations(from: migrations)
        try migrator.migrate(pool)
        let applied = try pool.read(migrator.appliedMigrations)
        logger.info("database open", metadata: ["path": "\(path)", "migrations": "\(applied)"])
    }

    /// Waits for the graceful shutdown, then closes the pool.
    func run() async throws {
        try? await gracefulShutdown()
        try pool.close()
        logger.info("database closed")
    }

    /// The notes of `user`, oldest first.
    func notes(of user: String) async throws -> [Note] {
        try await pool.read { db in
            try Note.filter(Note.Columns.user == user).order(Note.Columns.id).fetchAll(db)
        }
    }

    /// Adds a note for `user`.
    func add(_ text: String, for user: String) async throws -> Note {
        try await pool.write { db in
            var note = Note(id: nil, user: user, text: text, createdAt: Date())
            try note.insert(db)
            return note
        }
    }

    /// Deletes a note of `user`; false when `user` has no such note.
    func delete(_ id: Int64, of user: String) async throws -> Bool {
        try await pool.write { db in
            try Note.filter(Note.Columns.id == id && Note.Columns.user == user).deleteAll(db) > 0
        }
    }

    /// How many notes there are: the health check's read.
    func count() async throws -> Int {
        try await pool.read { db in try Note.fetchCount(db) }
    }
}

/// A note of a user.
struct Note: Codable, Sendable, FetchableRecord, MutablePersistableRecord {
    var id: Int64?
    var user: String
    var text: String
    var createdAt: Date

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let user = Column(CodingKeys.user)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}
