import Foundation

/// One row of the migration history kept in the database.
public struct AppliedMigration: Sendable, Hashable {
    /// The migration's identifier, e.g. "Zalora-v1".
    public var identifier: String
    /// Its position in the order migrations were applied (1, 2, ...).
    public var order: Int
    /// When it was applied; nil for history adopted from GRDB.
    public var appliedAt: Date?
    /// SHA-256 of the up SQL, for migrations read from files.
    public var checksum: String?
    /// SHA-256 of the normalized schema right after this migration.
    public var schemaFingerprint: String?
    /// The down SQL, kept so that a tool without the file can roll back.
    public var downSQL: String?
    /// Where the migration came from: "swift", "sql" or "grdb" (adopted).
    public var source: String
}
