import ArgumentParser
import Foundation
import SecureStore

extension MigrateToolCommand {
    /// `backups DB`: the backups of a database, oldest first.
    struct Backups: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the backups of a database, oldest first: time, size, the migration each was taken at, and the key that opens it.",
            discussion: """
                Each backup is read with the key given; one that it does not open is tried with the other keys of \
                the key file (but those read by a command), so that a backup left on an old key after a rotation \
                shows which key still opens it.
                """)

        @Argument(help: "The database (it need not exist any more).")
        var database: String

        @OptionGroup var location: BackupDirectoryOptions
        @OptionGroup var key: KeyOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            try Output.run(json: output.json) {
                let given = try key.resolve()
                let others = try key.otherKeysInFile()
                let listing = location.store(for: database).entries().map { entry in
                    BackupListing(entry, read: { try BackupContents.read(entry.path, key: $0) }, given: given, others: others)
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
    /// The key that opens it ("key file keys.conf, key [current]"), nil
    /// when none of those tried does; "no key" for a plaintext one.
    var key: String?
    /// False when a key other than the one given opens it.
    var opensWithGivenKey: Bool

    /// Reads the backup with the given key, then, if that key does not
    /// open it, with each of `others`.
    init(_ entry: BackupStore.Entry, read: (DatabaseKey?) throws -> BackupContents,
         given: DatabaseKey?, others: [DatabaseKey]) {
        path = entry.path
        time = ISO8601DateFormatter.withMilliseconds.string(from: entry.time)
        size = entry.size
        var contents = Result { try read(given) }
        var opener = given?.origin ?? "no key"
        opensWithGivenKey = true
        if case .failure(let failure) = contents, ErrorMapping.toolError(failure, file: entry.path).code == .notADatabase {
            for other in others {
                guard let found = try? read(other) else { continue }
                (contents, opener, opensWithGivenKey) = (.success(found), other.origin, false)
                break
            }
        }
        switch contents {
        case .success(let contents):
            migration = contents.migration
            migrationCount = contents.migrationCount
            key = opener
        case .failure(let failure):
            error = ErrorMapping.toolError(failure, file: entry.path).message
            opensWithGivenKey = false
        }
    }

    var text: String {
        let at: String
        if let error {
            at = "unreadable with the keys given (\(error))"
        } else if let migration {
            at = "at \(migration) (\(migrationCount ?? 0) migration(s))"
        } else {
            at = "no migrations applied"
        }
        var text = "\(time)  \(ByteCountFormatter.string(fromByteCount: size, countStyle: .file).padding(toLength: 9, withPad: " ", startingAt: 0))  \(path)  \(at)"
        if let key {
            text += opensWithGivenKey ? "; opens with \(key)" : "; opens with \(key), NOT the key given: `rekey` it, or remove it"
        }
        return text
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
