import Foundation

extension DatabaseMigrator {
    /// The database's migration audit trail, oldest first: every migration
    /// applied, rolled back, baselined or repaired, with who, where, which
    /// program, when and how long; `since` keeps the events that started
    /// at or after it.
    ///
    /// ```swift
    /// let lastWeek = Date().addingTimeInterval(-7 * 86_400)
    /// let events = try dbQueue.read { db in try DatabaseMigrator.auditEvents(db, since: lastWeek) }
    /// ```
    ///
    /// A database whose history an older release recorded has no trail
    /// yet: its history is returned as events whose who, where and how long
    /// are unknown (``MigrationAuditEvent/isFromHistoryBeforeAuditing``),
    /// and the trail is made from it at the next migration step.
    public static func auditEvents(_ db: Database, since: Date? = nil) throws -> [MigrationAuditEvent] {
        let events = try MigrationAuditLog.read(db)
        guard let since else { return events }
        return events.filter { event in event.startedAt.map { $0 >= since } ?? false }
    }

    /// The app's bundle name, or its executable's name.
    static var defaultAuditedProcess: String {
        (Bundle.main.object(forInfoDictionaryKey: "CFBundleName") as? String) ?? ProcessInfo.processInfo.processName
    }
}
