import Foundation
import Glibc

/// The audit trail's table, `securestore_migration_events`: one row per
/// event, only ever added to, written in the transaction of the step it
/// describes (a failed step's event in a transaction of its own, after the
/// step's rollback).
///
/// Databases whose history predates auditing get the table at their next
/// migration step, with one event per migration already in the history
/// (who, where and how long unknown).
enum MigrationAuditLog {
    static let tableName = "securestore_migration_events"

    /// Who runs this process and where: read once.
    struct Actor: Sendable {
        var userName: String
        var uid: Int
        var host: String

        static let current: Actor = {
            let uid = getuid()
            var name = ProcessInfo.processInfo.environment["USER"] ?? "uid \(uid)"
            var entry = passwd()
            var result: UnsafeMutablePointer<passwd>?
            var buffer = [CChar](repeating: 0, count: 4096)
            if getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, let found = result, let pwName = found.pointee.pw_name {
                name = String(cString: pwName)
            }
            var hostBuffer = [CChar](repeating: 0, count: 256)
            let host = gethostname(&hostBuffer, hostBuffer.count - 1) == 0
                ? String(decoding: hostBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "unknown"
            return Actor(userName: name, uid: Int(uid), host: host)
        }()
    }

    /// Creates the table if needed, filled from the history recorded
    /// before it. Call inside a step's transaction, after the history
    /// table exists.
    static func prepareForWrite(_ db: Database) throws {
        guard try !db.tableExists(tableName) else { return }
        try db.execute(sql: """
            CREATE TABLE \(tableName) (
                id INTEGER PRIMARY KEY,
                identifier TEXT NOT NULL,
                action TEXT NOT NULL,
                outcome TEXT NOT NULL,
                source TEXT NOT NULL,
                user_name TEXT,
                uid INTEGER,
                host TEXT,
                process TEXT,
                started_at TEXT,
                duration_ms INTEGER)
            """)
        for event in try eventsBeforeAuditing(db) { try insert(db, event) }
    }

    /// Records an event of this process, now; `started` is when the step began.
    static func record(
        _ db: Database, identifier: String, action: MigrationAuditEvent.Action, outcome: String,
        source: String, process: String, started: Date
    ) throws {
        let actor = Actor.current
        try insert(db, MigrationAuditEvent(
            identifier: identifier, action: action, outcome: outcome, source: source,
            userName: actor.userName, uid: actor.uid, host: actor.host, process: process,
            startedAt: started, durationMilliseconds: Int((Date().timeIntervalSince(started) * 1000).rounded())))
    }

    /// Records a step that failed, in a transaction of its own, when the
    /// database has an audit trail already (a failed first migration
    /// leaves no trace). Best effort: a database that cannot be written
    /// (read-only, disk full) keeps the error of the step, not this one's.
    static func recordFailure(
        _ db: Database, identifier: String, action: MigrationAuditEvent.Action, source: String,
        process: String, started: Date, error: any Error
    ) {
        guard !db.isInsideTransaction, (try? db.tableExists(tableName)) == true else { return }
        try? db.inTransaction(.immediate) {
            try record(db, identifier: identifier, action: action, outcome: "failed: \(error)",
                       source: source, process: process, started: started)
            return .commit
        }
    }

    /// The events, oldest first; for a database without the table, those
    /// made from its history.
    static func read(_ db: Database) throws -> [MigrationAuditEvent] {
        guard try db.tableExists(tableName) else { return try eventsBeforeAuditing(db) }
        return try Row.fetchAll(db, sql: """
            SELECT identifier, action, outcome, source, user_name, uid, host, process, started_at, duration_ms
            FROM \(tableName) ORDER BY id
            """).map { row in
            MigrationAuditEvent(
                identifier: row["identifier"], action: MigrationAuditEvent.Action(rawValue: row["action"]) ?? .apply,
                outcome: row["outcome"], source: row["source"], userName: row["user_name"], uid: row["uid"],
                host: row["host"], process: row["process"], startedAt: row["started_at"],
                durationMilliseconds: row["duration_ms"])
        }
    }

    /// One event per migration of the history, for databases whose history
    /// predates auditing.
    private static func eventsBeforeAuditing(_ db: Database) throws -> [MigrationAuditEvent] {
        try MigrationHistory.read(db).map { migration in
            MigrationAuditEvent(
                identifier: migration.identifier, action: migration.source == "baseline" ? .baseline : .apply,
                outcome: migration.source == "baseline" ? "baselined" : "applied", source: migration.source,
                startedAt: migration.appliedAt)
        }
    }

    private static func insert(_ db: Database, _ event: MigrationAuditEvent) throws {
        try db.execute(sql: """
            INSERT INTO \(tableName)
                (identifier, action, outcome, source, user_name, uid, host, process, started_at, duration_ms)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [event.identifier, event.action.rawValue, event.outcome, event.source, event.userName,
                             event.uid, event.host, event.process, event.startedAt, event.durationMilliseconds])
    }
}
