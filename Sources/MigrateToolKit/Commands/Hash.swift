import ArgumentParser
import Foundation
import SecureStore

extension MigrateToolCommand {
    /// `hash DIR`: the directory's integrity file.
    struct Hash: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the migrations directory's integrity file (migrations.sum); commit it with the migrations.",
            discussion: """
                Once it exists, apply, status, test and lint refuse the directory (exit 4) when a file was edited, \
                removed, added without running hash again, or added with a number below migrations already in it \
                (two branches that both added the same number), naming the file; --no-integrity overrides.
                """)

        @Argument(help: "The migrations directory.")
        var directory: String

        @OptionGroup var output: OutputOptions

        func run() throws {
            try Output.run(json: output.json) {
                let lines = try MigrationIntegrityFile.write(directory: URL(fileURLWithPath: directory))
                let path = URL(fileURLWithPath: directory).appendingPathComponent(MigrationIntegrityFile.fileName).path
                if output.json {
                    Output.json(HashReport(file: path, files: lines.count))
                } else {
                    Output.line("\(path): \(lines.count) files")
                }
                return .success
            }
        }
    }
}

/// The JSON of `hash`.
struct HashReport: Codable {
    var file: String
    var files: Int
}
