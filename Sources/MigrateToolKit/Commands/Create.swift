import ArgumentParser
import Foundation
import SecureStore

extension MigrateToolCommand {
    /// `create DB`: a new, empty, encrypted database.
    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a new, empty encrypted database with the given key and cipher settings.")

        @Argument(help: "The database file to create. It must not exist.")
        var database: String

        @OptionGroup var key: KeyOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            try Output.run(json: output.json) {
                guard !FileManager.default.fileExists(atPath: database) else {
                    throw ToolError(.cannotCreate, "\(database) exists already; create makes new files only")
                }
                guard let key = try key.resolve() else {
                    throw ToolError(.usage, "create makes encrypted databases: give a key (--key-file, --key-env, --key-stdin or --key-fd)")
                }
                // Make the file private before SQLCipher writes to it.
                let descriptor = open(database, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
                guard descriptor >= 0 else {
                    throw ToolError(.cannotCreate, "\(database): cannot create (\(String(cString: strerror(errno))))")
                }
                close(descriptor)
                do {
                    let dbQueue = try DatabaseQueue(path: database, configuration: key.configuration())
                    // What the new file really has, read back from SQLCipher.
                    let (version, settings) = try dbQueue.read { db in (try db.cipherVersion, try CipherSettingsReport(db)) }
                    try dbQueue.close()
                    guard let settings else { throw ToolError(.internalError, "\(database) was created without encryption") }
                    let report = CreateReport(file: database, encrypted: !Database.hasPlaintextHeader(path: database),
                                              sqlcipherVersion: version, cipherSettings: settings)
                    if output.json {
                        Output.json(report)
                    } else {
                        Output.line("created \(database) (encrypted, SQLCipher \(version), \(settings.text))")
                    }
                } catch {
                    try? FileManager.default.removeItem(atPath: database)
                    throw ErrorMapping.toolError(error, file: database)
                }
                return .success
            }
        }
    }
}

struct CreateReport: Codable {
    var file: String
    var encrypted: Bool
    var sqlcipherVersion: String
    var cipherSettings: CipherSettingsReport
}
