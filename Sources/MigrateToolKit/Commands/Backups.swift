import ArgumentParser
import Foundation
import SecureStore

extension MigrateToolCommand {
    /// `backups DB`: the backups of a database, oldest first.
    struct Backups: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the backups of a database, oldest first: time, size, and the migration each was taken at (read from the backup with the key).")

        @Argument(help: "The database (it need not exist any more).")
        var database: String

        @OptionGroup var location: BackupDirectoryOptions
        @OptionGroup var key: KeyOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            try Output.run(json: output.json) {
                let key = try key.resolve()
                let listing = location.store(for: database).entries().map { entry in
                    BackupListing(entry, contents: Result { try BackupContents.read(entry.path, key: key) })
                }
                if output.json {
                    Output.json(listing)
                } else if listing.isEmpty {
                    Output.line("\(database): no backups in \(location.store(for: database).directory)")
                } else {
                    for item in listing { Output.line(item.text) }
                }
                return .success
            }
        }
    }
}

/// One line of `backups`.
struct BackupListing: Codable {
    var path: String
    var time: String
    var size: Int64
    /// The last applied migration in the backup; nil with none applied or
    /// when it does not open.
    var migration: String?
    var migrationCount: Int?
    /// Why the backup could not be read (wrong key, damaged); nil when it opened.
    var error: String?

    init(_ entry: BackupStore.Entry, contents: Result<BackupContents, any Error>) {
        path = entry.path
        time = ISO8601DateFormatter.withMilliseconds.string(from: entry.time)
        size = entry.size
        switch contents {
        case .success(let contents):
            migration = contents.migration
            migrationCount = contents.migrationCount
        case .failure(let failure):
            error = ErrorMapping.toolError(failure, file: entry.path).message
        }
    }

    var text: String {
        let at: String
        if let error {
            at = "unreadable (\(error))"
        } else if let migration {
            at = "at \(migration) (\(migrationCount ?? 0) migration(s))"
        } else {
            at = "no migrations applied"
        }
        return "\(time)  \(ByteCountFormatter.string(fromByteCount: size, countStyle: .file).padding(toLength: 9, withPad: " ", startingAt: 0))  \(path)  \(at)"
    }
}

extension ISO8601DateFormatter {
    /// `2026-11-23T10:15:00.123Z`.
    static var withMilliseconds: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
