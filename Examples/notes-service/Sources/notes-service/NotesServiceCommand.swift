import ArgumentParser
import Foundation
import Hummingbird
import Logging
import MigrateToolKit
import SecureStore

/// `notes-service`: the notes of each user, as a JSON API over HTTP, kept in
/// an encrypted database.
///
/// ```sh
/// NOTES_JWT_SECRET=... notes-service --database /var/lib/notes/notes.db \
///     --key-command "vault kv get -field=db_key secret/notes" --port 8080
/// ```
///
/// At start it reads the database's key as `migrate-tool` does (a key file,
/// an environment variable, a command; never an argument), opens the file
/// (creating it on the first start) with a `DatabasePool`, and applies its
/// migrations. SIGTERM or SIGINT stops it gracefully: the server finishes
/// the requests it has, then the pool closes (see ``NotesDatabase``).
@main
struct NotesServiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notes-service",
        abstract: "The notes of each user, as a JSON API, in an encrypted SecureStore database.",
        discussion: """
            Routes: GET /health (a read of the database), and with a user's token (Authorization: Bearer \
            <JWT, HS256, the user in `sub`>): GET /notes, POST /notes {"text": ...}, DELETE /notes/<id>.
            """)

    @Option(help: ArgumentHelp("The encrypted database; made on the first start.", valueName: "path"))
    var database: String

    @OptionGroup var key: KeyOptions

    @Option(help: ArgumentHelp("The service's SQL migrations, applied at start.", valueName: "dir"))
    var migrations = "migrations"

    @Option(help: "The address to listen on.")
    var hostname = "127.0.0.1"

    @Option(help: "The port to listen on (0: any free port, printed once listening).")
    var port = 8080

    @Option(name: .customLong("jwt-secret-env"), help: ArgumentHelp(
        "The environment variable that holds the HS256 secret of the users' tokens.", valueName: "variable"))
    var jwtSecretVariable = "NOTES_JWT_SECRET"

    func run() async throws {
        // The service's memory holds the key: out of core files and debuggers.
        try ProcessProtection.enable()
        let logger = {
            var logger = Logger(label: "notes-service")
            logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
            return logger
        }()
        guard let databaseKey = try key.resolve() else {
            throw ValidationError("Give the database's key: --key-file, --key-env, --key-stdin, --key-fd or --key-command.")
        }
        let tokens = try await UserTokens(secretVariable: jwtSecretVariable)
        let notes = try NotesDatabase(path: database, key: databaseKey.key, migrations: URL(fileURLWithPath: migrations),
                                      logger: logger)
        let app = Application(
            router: NotesAPI(database: notes, tokens: tokens).router(),
            configuration: .init(address: .hostname(hostname, port: port), serverName: "notes-service"),
            // Stopped after the server, in the application's service group.
            services: [notes],
            onServerRunning: { channel in
                logger.info("listening", metadata: ["address": "\(channel.localAddress.map { "\($0)" } ?? "?")"])
            },
            logger: logger)
        try await app.runService()
    }
}
