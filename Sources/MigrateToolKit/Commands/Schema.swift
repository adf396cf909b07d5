import ArgumentParser
import Foundation
import SecureStore

extension MigrateToolCommand {
    /// `schema SOURCE`: the schema as SQL, in a stable order, for review.
    struct Schema: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the schema of a database, or of a migrations directory at a migration, as SQL in a stable order.",
            discussion: """
                SOURCE is a database file (give its key), or DIR@ID: the migrations of DIR applied up to ID (or DIR@ for \
                all of them) on a scratch encrypted database, which is removed. Tables come first, then indexes, views \
                and triggers, each by name; the migration history is left out. Commit the output next to the \
                migrations and review it in pull requests; --json gives it structured.
                """)

        @Argument(help: "A database file, or DIR@ID for a migrations directory at a migration.")
        var source: String?

        @Option(name: .customLong("migrations"), help: ArgumentHelp("Instead of SOURCE: a migrations directory...", valueName: "dir"))
        var directory: String?

        @Option(name: .long, help: ArgumentHelp("...applied up to this migration (default: all).", valueName: "id"))
        var at: String?

        @OptionGroup var key: KeyOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            guard (source == nil) != (directory == nil) else {
                throw ValidationError("Give a SOURCE (a database file, or DIR@ID), or --migrations DIR [--at ID].")
            }
        }

        func run() throws {
            try Output.run(json: output.json) {
                let schema = try SchemaSource(source ?? "\(directory ?? "")@\(at ?? "")").read(key: key)
                if output.json {
                    Output.json(schema.snapshot)
                } else {
                    for statement in schema.statements { Output.line(statement + ";") }
                }
                return .success
            }
        }
    }

    /// `diff A B`: what changed from one schema to another.
    struct Diff: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compare two schemas (database files or DIR@ID); exit 4 when they differ.")

        @Argument(help: "The schema before: a database file, or DIR@ID.")
        var before: String

        @Argument(help: "The schema after: a database file, or DIR@ID.")
        var after: String

        @OptionGroup var key: KeyOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            try Output.run(json: output.json) {
                let old = try SchemaSource(before).read(key: key).snapshot
                let new = try SchemaSource(after).read(key: key).snapshot
                let differences = new.differences(from: old)
                if output.json {
                    Output.json(DiffReport(before: before, after: after, differences: differences))
                } else {
                    differences.forEach(Output.line)
                    if differences.isEmpty { Output.line("same schema") }
                }
                return differences.isEmpty ? .success : .drift
            }
        }
    }
}

struct DiffReport: Codable {
    var before: String
    var after: String
    var differences: [String]
}

/// A schema to read: a database file, or a migrations directory applied up
/// to a migration on a scratch database.
struct SchemaSource {
    enum Kind {
        case file(String)
        case migrations(directory: String, upTo: String?)
    }

    let kind: Kind

    /// `DIR@ID` (or `DIR@`) names migrations; anything else a file.
    init(_ text: String) {
        if let at = text.lastIndex(of: "@") {
            var isDirectory: ObjCBool = false
            let directory = String(text[..<at])
            if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue {
                let identifier = String(text[text.index(after: at)...])
                kind = .migrations(directory: directory, upTo: identifier.isEmpty ? nil : identifier)
                return
            }
        }
        kind = .file(text)
    }

    /// The snapshot, and the SQL of each object in the snapshot's order.
    func read(key: KeyOptions) throws -> (snapshot: SchemaSnapshot, statements: [String]) {
        let read = { (db: Database) throws -> (SchemaSnapshot, [String]) in
            let snapshot = try db.schemaSnapshot()
            let sql = try Dictionary(Row.fetchAll(db, sql: "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL").map {
                ("\($0["type"] as String) \(($0["name"] as String).lowercased())", $0["sql"] as String)
            }, uniquingKeysWith: { first, _ in first })
            let order = ["table", "index", "view", "trigger"]
            let statements = snapshot.objects
                .sorted { (order.firstIndex(of: $0.type) ?? 4, $0.name) < (order.firstIndex(of: $1.type) ?? 4, $1.name) }
                .compactMap { sql["\($0.type) \($0.name)"] }
            return (snapshot, statements)
        }
        switch kind {
        case .file(let path):
            try DatabaseFile.check(path, for: .read)
            let dbQueue = try DatabaseFile.open(path, key: try key.resolve(), readonly: true, busyTimeout: 5)
            defer { try? dbQueue.close() }
            return try dbQueue.read(read)
        case let .migrations(directory, identifier):
            var migrator = DatabaseMigrator()
            try migrator.registerMigrations(from: URL(fileURLWithPath: directory))
            if let identifier, !migrator.migrations.contains(identifier) {
                throw ToolError(.usage, "\(directory) has no migration \"\(identifier)\" (it has: \(migrator.migrations.joined(separator: ", ")))")
            }
            return try ScratchDatabase.with(in: nil) { dbQueue in
                if let identifier { try migrator.migrate(dbQueue, upTo: identifier) } else { try migrator.migrate(dbQueue) }
                return try dbQueue.read(read)
            }
        }
    }
}
