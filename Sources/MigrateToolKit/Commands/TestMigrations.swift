import ArgumentParser
import Foundation
import SecureStore

extension MigrateToolCommand {
    /// `test --migrations DIR [--seed FILE]`: every down step undoes its up
    /// step, on a scratch encrypted database (never the user's file).
    struct TestMigrations: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "test",
            abstract: "Check that each migration's down step restores the schema and the rows, on a scratch encrypted database.",
            discussion: """
                For each migration in order: record the schema and the rows, apply it, roll it back (the schema and \
                the rows must be as before), apply it again (the schema must be as after the first time). With \
                --seed, the seed's statements run before each migration (those naming a table or column that does \
                not exist yet wait for a later one), so that a down step that loses data, or an up step that fails \
                on real data, shows. No key is needed: the scratch database has a random one, and is removed.
                """)

        @OptionGroup var migrations: MigrationsOptions

        @Option(name: .long, help: ArgumentHelp("SQL that puts data into the scratch database before each migration.", valueName: "file"))
        var seed: String?

        @Flag(name: .customLong("allow-irreversible"), help: "Let migrations without a down step pass (they are still reported).")
        var allowIrreversible = false

        @Option(name: .customLong("scratch-dir"), help: ArgumentHelp("Where the scratch database goes (default: the temporary directory).", valueName: "dir"))
        var scratchDirectory: String?

        @OptionGroup var output: OutputOptions

        func run() throws {
            try Output.run(json: output.json) {
                guard let migrator = try migrations.migrator(required: true) else { return .usage }
                let seedSQL = try seed.map { path -> String in
                    guard let text = FileManager.default.contents(atPath: path).flatMap({ String(data: $0, encoding: .utf8) }) else {
                        throw ToolError(.noSuchFile, "cannot read the seed file \(path)")
                    }
                    return text
                }
                let report = try ScratchDatabase.with(in: scratchDirectory) { dbQueue in
                    try seedSQL.map { try migrator.verifyReversibility(in: dbQueue, seedSQL: $0) }
                        ?? migrator.verifyReversibility(in: dbQueue)
                }
                let passed = report.passed(allowingIrreversible: allowIrreversible)
                if output.json {
                    Output.json(TestReport(passed: passed, steps: report.steps))
                } else {
                    report.steps.forEach(Self.print)
                    let failing = report.steps.filter { !$0.isReversible && ($0.hasDownStep || $0.error != nil) }.count
                    let withoutDown = report.steps.filter { !$0.hasDownStep }.count
                    Output.line("\(report.steps.count) migrations checked: \(report.steps.count - failing - withoutDown) reversible, "
                                + "\(failing) not, \(withoutDown) without a down step" + (passed ? "" : " (failed)"))
                }
                return passed ? .success : .notReversible
            }
        }

        private static func print(_ step: ReversibilityReport.Step) {
            let notRestored = !step.schemaNotRestored.isEmpty || !step.dataNotRestored.isEmpty
            let verdict: String
            if notRestored {
                verdict = "NOT reversible"
            } else if let error = step.error {
                verdict = "FAILED: \(error)"
            } else if !step.hasDownStep {
                verdict = "no down step (irreversible)"
            } else {
                verdict = step.isReversible ? "reversible" : "NOT reversible"
            }
            Output.line("\(step.identifier): \(verdict)")
            for line in step.schemaNotRestored { Output.line("  schema after down: \(line)") }
            for line in step.dataNotRestored { Output.line("  rows after down: \(line)") }
            for line in step.upNotRepeatable { Output.line("  schema after up again: \(line)") }
            if notRestored, let error = step.error { Output.line("  the check stops here: \(error)") }
            for counts in step.rowCounts {
                let show = { (count: Int?) in count.map(String.init) ?? "-" }
                Output.line("  \(counts.table): \(show(counts.beforeUp)) rows before up, \(show(counts.afterUp)) after up, \(show(counts.afterDown)) after down")
            }
        }
    }
}

/// The JSON of `test`.
struct TestReport: Codable {
    var passed: Bool
    var steps: [ReversibilityReport.Step]
}
