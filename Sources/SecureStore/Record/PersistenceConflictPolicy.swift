/// How a record's INSERT and UPDATE statements resolve constraint
/// conflicts: `INSERT OR REPLACE`, `UPDATE OR IGNORE`...
///
/// ```swift
/// struct Player: MutablePersistableRecord {
///     static let persistenceConflictPolicy = PersistenceConflictPolicy(insert: .replace, update: .replace)
/// }
/// ```
public struct PersistenceConflictPolicy: Sendable {
    /// The conflict resolution of INSERT.
    public let conflictResolutionForInsert: Database.ConflictResolution
    /// The conflict resolution of UPDATE.
    public let conflictResolutionForUpdate: Database.ConflictResolution

    /// A policy; SQLite's default is `.abort` for both.
    public init(insert: Database.ConflictResolution = .abort, update: Database.ConflictResolution = .abort) {
        conflictResolutionForInsert = insert
        conflictResolutionForUpdate = update
    }

    /// The keyword after INSERT or UPDATE: `OR REPLACE `, or nothing for ABORT.
    static func sql(_ resolution: Database.ConflictResolution) -> String {
        resolution == .abort ? "" : "OR \(resolution.rawValue) "
    }
}
