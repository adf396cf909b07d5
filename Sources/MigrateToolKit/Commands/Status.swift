import ArgumentParser
import Foundation
import SecureStore

extension MigrateToolCommand {
    /// `status DB --migrations DIR [--check]`: where a database stands.
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the current migration and what is pending; --check fails when anything needs attention.")

        @Argument(help: "The database file.")
        var database: String

        @Flag(name: .long, help: "Exit 3 when migrations are pending, 4 on drift or a changed file, 5 when superseded, 78 when a pending migration holds a statement that apply refuses.")
        var check = false

        @OptionGroup var migrations: MigrationsOptions
        @OptionGroup var key: KeyOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            try Output.run(json: output.json) {
                let (key, migrator) = try migrations.prepare(reading: database, key: key)
                let dbQueue = try DatabaseFile.open(database, key: key, readonly: true, busyTimeout: 5)
                defer { try? dbQueue.close() }
                var report = try dbQueue.read { db in
                    let validation = try migrator.validate(db)
                    let pending = MigrationPlan(direction: .up, steps: validation.pending)
                    return StatusReport(file: database, cipherSettings: try CipherSettingsReport(db),
                                        current: try migrator.history(db).last?.identifier,
                                        pending: validation.pending, superseded: validation.superseded,
                                        checksumMismatches: validation.checksumMismatches.map(\.identifier),
                                        schemaDrift: validation.schemaDrift != nil,
                                        forbiddenStatements: try migrator.forbiddenStatements(db, in: pending)
                                            .map(ForbiddenStatementReport.init))
                }
                if report.schemaDrift, let current = report.current, report.superseded.isEmpty {
                    report.schemaDifferences = try dbQueue.read { db in try migrator.driftDifferences(db, since: current) }
                }
                if output.json {
                    Output.json(report)
                } else {
                    Output.line("\(database): at \(report.current ?? "(no migration)"), \(report.pending.count) pending\(report.pending.isEmpty ? "" : ": " + report.pending.joined(separator: ", "))")
                    Output.line("cipher: \(report.cipherSettings?.text ?? "none (plaintext)")")
                    if !report.superseded.isEmpty { Output.line("superseded: \(report.superseded.joined(separator: ", "))") }
                    if !report.checksumMismatches.isEmpty { Output.line("changed after apply: \(report.checksumMismatches.joined(separator: ", "))") }
                    if report.schemaDrift { Output.line("schema drift: the schema changed outside migrations") }
                    for difference in report.schemaDifferences ?? [] { Output.line("  \(difference)") }
                    for forbidden in report.forbiddenStatements {
                        Output.line("refused: \(forbidden.file):\(forbidden.line): \(forbidden.statement): \(forbidden.reason)")
                    }
                }
                return check ? report.checkCode : .success
            }
        }
    }
}

struct StatusReport: Codable {
    var file: String
    /// What the file was opened with; nil for a plaintext file.
    var cipherSettings: CipherSettingsReport?
    var current: String?
    var pending: [String]
    var superseded: [String]
    var checksumMismatches: [String]
    var schemaDrift: Bool
    /// With drift: how the schema differs from its migrations replayed.
    var schemaDifferences: [String]?
    /// Statements of pending migrations that `apply` refuses.
    var forbiddenStatements: [ForbiddenStatementReport]

    var checkCode: ToolExitCode {
        if !forbiddenStatements.isEmpty { return .configuration }
        if !superseded.isEmpty { return .superseded }
        if !checksumMismatches.isEmpty || schemaDrift { return .drift }
        if !pending.isEmpty { return .pending }
        return .success
    }
}

/// A statement `apply` refuses, for JSON: `{ "migration", "file", "line",
/// "statement", "kind", "reason" }`.
struct ForbiddenStatementReport: Codable {
    var migration: String
    var file: String
    var line: Int
    var statement: String
    var kind: String
    var reason: String

    init(_ forbidden: ForbiddenStatement) {
        migration = forbidden.identifier
        file = forbidden.path
        line = forbidden.line
        statement = forbidden.statement
        kind = forbidden.refusal.kind.rawValue
        reason = forbidden.refusal.description
    }
}
