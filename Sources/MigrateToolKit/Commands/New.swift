import ArgumentParser
import Foundation
import SecureStore

extension MigrateToolCommand {
    /// `new NAME --migrations DIR`: the next pair of migration files.
    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create the next migration's up and down files in the migrations directory.")

        @Argument(help: "The new migration's identifier, e.g. Zalora-v4.")
        var name: String

        @Option(name: .customLong("migrations"), help: ArgumentHelp("The migrations directory (created if missing).", valueName: "dir"))
        var directory: String

        @OptionGroup var output: OutputOptions

        func validate() throws {
            guard !name.isEmpty, !name.contains(where: { $0.isWhitespace || $0 == "/" || $0 == "\\" }) else {
                throw ValidationError("The name cannot be empty or hold spaces or slashes.")
            }
        }

        func run() throws {
            try Output.run(json: output.json) {
                let folder = URL(fileURLWithPath: directory)
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                // Scan names only: a freshly scaffolded, still empty up file
                // must not stop the next `new`.
                let existing = try FileManager.default.contentsOfDirectory(atPath: folder.path)
                    .compactMap(Self.numberAndIdentifier)
                if existing.contains(where: { $0.identifier == name }) {
                    throw ToolError(.configuration, "\(directory) already has a migration named \"\(name)\"")
                }
                let number = (existing.map(\.number).max() ?? 0) + 1
                let stem = String(format: "%04d_%@", number, name)
                let up = folder.appendingPathComponent("\(stem).up.sql")
                let down = folder.appendingPathComponent("\(stem).down.sql")
                try write("-- \(name): the change. Runs in one transaction.\n", to: up)
                let dropColumn = Database.sqliteLibVersionNumber >= 3_035_000
                    ? "" : " (SQLite \(Database.sqliteLibVersion) has no DROP COLUMN: rebuild the table)"
                try write("-- \(name): undo the change\(dropColumn).\n", to: down)
                if output.json {
                    Output.json(["identifier": name, "up": up.path, "down": down.path])
                } else {
                    Output.line("created \(up.path)")
                    Output.line("created \(down.path)")
                }
                return .success
            }
        }

        private static func numberAndIdentifier(_ fileName: String) -> (number: Int, identifier: String)? {
            let stem: Substring
            if fileName.hasSuffix(".up.sql") { stem = fileName.dropLast(7) }
            else if fileName.hasSuffix(".down.sql") { stem = fileName.dropLast(9) }
            else { return nil }
            guard let underscore = stem.firstIndex(of: "_"), let number = Int(stem[..<underscore]) else { return nil }
            return (number, String(stem[stem.index(after: underscore)...]))
        }

        private func write(_ text: String, to url: URL) throws {
            guard FileManager.default.createFile(atPath: url.path, contents: Data(text.utf8)) else {
                throw ToolError(.cannotCreate, "\(url.path): cannot create")
            }
        }
    }
}
