import ArgumentParser
import Foundation
import SecureStore

/// Output and logging options, shared by every command.
public struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print one JSON document on standard output (no progress display).")
    var json = false

    @Flag(name: .shortAndLong, help: "Log each step on standard error.")
    var verbose = false

    /// The options with their defaults, for ArgumentParser to fill.
    public init() {}
}

/// Where the migrations come from.
public struct MigrationsOptions: ParsableArguments {
    @Option(name: .customLong("migrations"), help: ArgumentHelp(
        "Directory of SQL migrations: <number>_<identifier>.up.sql and .down.sql.", valueName: "dir"))
    var directory: String?

    @Flag(name: .customLong("no-integrity"), help: "Use the directory even if its files do not match its migrations.sum.")
    var noIntegrity = false

    /// The options with their defaults, for ArgumentParser to fill.
    public init() {}

    /// The migrator: the embedded one of an app's own tool, followed by the
    /// directory's migrations when one is given.
    func migrator(required: Bool) throws -> DatabaseMigrator? {
        var migrator = ToolContext.embeddedMigrator
        if let directory {
            var loaded = migrator ?? DatabaseMigrator()
            try loaded.registerMigrations(from: URL(fileURLWithPath: directory), verifyingIntegrity: !noIntegrity)
            migrator = loaded
        }
        if migrator == nil && required {
            throw ToolError(.usage, "--migrations <dir> is required")
        }
        return migrator
    }
}

extension MigrationsOptions {
    /// What a command that reads `database` with migrations needs first: the
    /// file checked, the key, the migrator (required).
    func prepare(reading database: String, key: KeyOptions) throws -> (key: DatabaseKey?, migrator: DatabaseMigrator) {
        try DatabaseFile.check(database, for: .read)
        let resolved = try key.resolve()
        guard let migrator = try migrator(required: true) else { throw ToolError(.usage, "--migrations <dir> is required") }
        return (resolved, migrator)
    }
}

/// How long to wait for another run's lock.
public struct LockOptions: ParsableArguments {
    @Option(name: .customLong("lock-timeout"), help: ArgumentHelp(
        "Seconds to wait for another run to release the database.", valueName: "seconds"))
    var seconds: Double = 30

    /// The options with their defaults, for ArgumentParser to fill.
    public init() {}

    /// Checks the options together, before the command runs.
    public func validate() throws {
        guard seconds >= 0 else { throw ValidationError("--lock-timeout must be zero or more seconds.") }
    }
}

/// Running several database files.
public struct BatchOptions: ParsableArguments {
    @Option(name: .long, help: "Process this many files at once.")
    var jobs: Int = 1

    @Flag(name: .customLong("fail-fast"), help: "Stop at the first file that fails.")
    var failFast = false

    /// The options with their defaults, for ArgumentParser to fill.
    public init() {}

    /// Checks the options together, before the command runs.
    public func validate() throws {
        guard jobs >= 1 else { throw ValidationError("--jobs must be 1 or more.") }
    }
}

/// What an app's own tool adds: its migrator, registered in Swift.
public enum ToolContext {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var migrator: DatabaseMigrator?
    nonisolated(unsafe) private static var name = "migrate-tool"

    static var embeddedMigrator: DatabaseMigrator? { lock.withLock { migrator } }
    static var commandName: String { lock.withLock { name } }

    static func set(migrator: DatabaseMigrator?, commandName: String) {
        lock.withLock {
            self.migrator = migrator
            self.name = commandName
        }
    }
}
