import ArgumentParser
import Foundation
import SecureStore

extension MigrateToolCommand {
    /// `lint DIR`: what a migrations directory would do, before it does it.
    struct Lint: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a migrations directory: destructive changes, statements that break a migration, down steps that do not undo.",
            discussion: """
                Each finding has a stable code, a severity, the file and the line: drop-table, drop-column, \
                unfiltered-write (warnings); breaks-transaction, fails, not-null-without-default, down-not-restoring \
                (errors); missing-down, case-mismatch (warnings). The migrations run on a scratch in-memory \
                database, never on a file of yours. Silence a finding with a comment on the line before its \
                statement: -- lint: allow drop-table (or: allow destructive).
                """)

        @Argument(help: "The migrations directory.")
        var directory: String?

        @Option(name: .customLong("fail-on"), help: "Exit 9 for findings of this severity or worse: warning or error.")
        var failOn: MigrationLintFinding.Severity = .error

        @Flag(name: .customLong("no-integrity"), help: "Lint the directory even if its files do not match its migrations.sum.")
        var noIntegrity = false

        @OptionGroup var output: OutputOptions

        func run() throws {
            try Output.run(json: output.json) {
                var options = MigrationsOptions()
                options.directory = directory
                options.noIntegrity = noIntegrity
                // Options made here, not parsed: every one is set.
                options.trustedKeys = []
                options.allowUnsigned = false
                guard let migrator = try options.migrator(required: true) else { return .usage }
                let findings = try migrator.lint()
                let failing = findings.contains { $0.severity >= failOn }
                if output.json {
                    Output.json(LintReport(failed: failing, findings: findings))
                } else {
                    findings.forEach { Output.line($0.description) }
                    let errors = findings.filter { $0.severity == .error }.count
                    Output.line("\(migrator.migrations.count) migrations: \(errors) errors, \(findings.count - errors) warnings")
                }
                return failing ? .lintFindings : .success
            }
        }
    }
}

extension MigrationLintFinding.Severity: ExpressibleByArgument {}

/// The JSON of `lint`.
struct LintReport: Codable {
    var failed: Bool
    var findings: [MigrationLintFinding]
}
