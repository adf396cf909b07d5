import Foundation

/// One entry of a database's migration audit trail: a migration applied,
/// rolled back, baselined or repaired (or an attempt that failed), who did
/// it, where, with which program, when and for how long.
///
/// Events are only ever added: a rollback is an event of its own, and the
/// events of a migration stay after it is rolled back. Read them with
/// ``DatabaseMigrator/auditEvents(_:since:)``:
///
/// ```swift
/// let events = try dbQueue.read { db in try DatabaseMigrator.auditEvents(db) }
/// for event in events {
///     print(event.identifier, event.action, event.outcome, event.userName ?? "?", event.durationMilliseconds ?? 0)
/// }
/// ```
///
/// ## Topics
///
/// ### What happened
///
/// - ``identifier``
/// - ``action``
/// - ``outcome``
/// - ``source``
///
/// ### Who, where and when
///
/// - ``userName``
/// - ``uid``
/// - ``host``
/// - ``process``
/// - ``startedAt``
/// - ``durationMilliseconds``
public struct MigrationAuditEvent: Sendable, Hashable, Codable {
    /// What was done to the migration.
    public enum Action: String, Sendable, Hashable, Codable {
        /// The migration ran (or, for an event recorded before auditing
        /// existed, is in the history).
        case apply
        /// Its down step ran.
        case rollback
        /// It was recorded as applied without running (``DatabaseMigrator/baseline(_:at:force:)``).
        case baseline
        /// Its recorded checksum or schema fingerprint was updated (``DatabaseMigrator/repair(_:)``).
        case repair
    }

    /// The migration's identifier, e.g. "Zalora-v7".
    public var identifier: String
    /// What was done.
    public var action: Action
    /// How it ended: "applied", "rolled back", "baselined", "repaired", or
    /// "failed: " and the error (the database was left as before).
    public var outcome: String
    /// Where the migration came from: "sql" (a migrations directory's
    /// file), "swift" (registered in code), "baseline", "repair", or "grdb"
    /// (a GRDB history adopted).
    public var source: String
    /// The user who ran it; nil for history recorded before auditing.
    public var userName: String?
    /// That user's numeric id.
    public var uid: Int?
    /// The machine's host name.
    public var host: String?
    /// The program: "migrate-tool 0.2.0", or an app's name
    /// (``DatabaseMigrator/auditedProcess``).
    public var process: String?
    /// When the step started (for history recorded before auditing: when
    /// the migration was applied, if known).
    public var startedAt: Date?
    /// How long the step took, in milliseconds.
    public var durationMilliseconds: Int?

    /// True for events made from history that older releases recorded
    /// without auditing: who, where and how long are unknown.
    public var isFromHistoryBeforeAuditing: Bool { userName == nil && uid == nil && process == nil }
}
