import ArgumentParser
import Foundation
import SecureStore

extension MigrateToolCommand {
    /// `history DB`: the migration audit trail, newest last.
    struct History: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show who applied, rolled back, baselined or repaired which migration: when, how long, from where, with which program, and the outcome; newest last.",
            discussion: """
                Rollbacks and failed attempts are events of their own; nothing is ever removed. A database whose \
                history an older release recorded shows it with who, where and how long unknown, until its next \
                apply adds the audit trail.
                """)

        @Argument(help: "The database.")
        var database: String

        @Option(help: ArgumentHelp("Only events that started at or after this time: a date (2026-11-01), a time (2026-11-01T12:00:00Z) or an age (90m, 24h, 7d).", valueName: "time"))
        var since: String?

        @OptionGroup var key: KeyOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            try Output.run(json: output.json) {
                let start = try since.map(Self.parseSince)
                try DatabaseFile.check(database, for: .read)
                let key = try key.resolve()
                let dbQueue = try DatabaseFile.open(database, key: key, readonly: true, busyTimeout: 5)
                defer { try? dbQueue.close() }
                let events = try dbQueue.read { db in try DatabaseMigrator.auditEvents(db, since: start) }
                if output.json {
                    Output.json(HistoryJSON(file: database, events: events))
                } else if events.isEmpty {
                    Output.line("\(database): no migration events" + (since.map { " since \($0)" } ?? ""))
                } else {
                    for event in events { Output.line(Self.text(event)) }
                }
                return .success
            }
        }

        static func text(_ event: MigrationAuditEvent) -> String {
            let time = event.startedAt.map { ISO8601DateFormatter.withMilliseconds.string(from: $0) } ?? "(time unknown)"
            var text = "\(time)  \(event.action.rawValue)  \(event.identifier): \(event.outcome)"
            if event.isFromHistoryBeforeAuditing {
                return text + " (recorded before auditing: who, where and how long unknown), source \(event.source)"
            }
            if let duration = event.durationMilliseconds { text += " in \(duration) ms" }
            text += " by \(event.userName ?? "?") (uid \(event.uid.map(String.init) ?? "?")) on \(event.host ?? "?")"
            text += " with \(event.process ?? "?"), source \(event.source)"
            return text
        }

        /// A date, a date and time (ISO 8601), or an age before now.
        static func parseSince(_ text: String) throws -> Date {
            let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
            if let unit = text.last.flatMap({ units[$0] }), let count = Double(text.dropLast()), count >= 0 {
                return Date().addingTimeInterval(-count * unit)
            }
            for formatter in [ISO8601DateFormatter.withMilliseconds, ISO8601DateFormatter()] {
                if let date = formatter.date(from: text) { return date }
            }
            let day = ISO8601DateFormatter()
            day.formatOptions = [.withFullDate]
            if let date = day.date(from: text) { return date }
            throw ToolError(.usage, "--since: '\(text)' is not a date (2026-11-01), a time (2026-11-01T12:00:00Z) or an age (90m, 24h, 7d)")
        }
    }
}

/// `history --json`: the events as ``MigrationAuditEvent`` encodes them
/// (`startedAt` in ISO 8601).
struct HistoryJSON: Codable {
    var file: String
    var events: [MigrationAuditEvent]
}
