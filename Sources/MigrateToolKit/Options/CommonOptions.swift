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

    @Option(name: .customLong("trusted-key"), help: ArgumentHelp(
        "A public key (keygen's .pub) or a directory of them: the migrations directory must be signed by one (hash --sign); exit 4 otherwise. Repeatable.",
        valueName: "pub"))
    var trustedKeys: [String] = []

    @Flag(name: .customLong("allow-unsigned"), help: "With --trusted-key: use a directory whose signature is missing, wrong or untrusted, with a warning.")
    var allowUnsigned = false

    /// The options with their defaults, for ArgumentParser to fill.
    public init() {}

    /// The migrator: the embedded one of an app's own tool, followed by the
    /// directory's migrations when one is given.
    func migrator(required: Bool) throws -> DatabaseMigrator? {
        var migrator = ToolContext.embeddedMigrator
        if let directory {
            try verifySignature(of: URL(fileURLWithPath: directory))
            var loaded = migrator ?? DatabaseMigrator()
            try loaded.registerMigrations(from: URL(fileURLWithPath: directory), verifyingIntegrity: !noIntegrity)
            migrator = loaded
        }
        if migrator == nil && required {
            throw ToolError(.usage, "--migrations <dir> is required")
        }
        migrator?.auditedProcess = ToolContext.auditedProcess
        return migrator
    }
}

extension MigrationsOptions {
    /// With `--trusted-key`: the directory must be signed by a trusted key
    /// (exit 4 naming why not), unless `--allow-unsigned` (a warning).
    func verifySignature(of directory: URL) throws {
        guard !trustedKeys.isEmpty else { return }
        guard !noIntegrity else {
            throw ToolError(.usage, "--no-integrity cannot be used with --trusted-key: the signature covers \(MigrationIntegrityFile.fileName), which covers the files")
        }
        guard let problem = MigrationSignature.problem(directory: directory, trusted: try SigningKey.trusted(trustedKeys)) else { return }
        guard allowUnsigned else { throw ToolError(.drift, problem + "; refused (--allow-unsigned to use it anyway)") }
        Output.warning(problem + "; used anyway (--allow-unsigned)")
    }

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

/// What a command that replaces the database file (rekey, restore,
/// encrypt in place, upgrade) does when other processes have it open.
public struct WaitForCloseOptions: ParsableArguments {
    @Option(name: .customLong("wait-for-close"), help: ArgumentHelp(
        "Seconds to wait for the processes that have the database open to close it (default 0: refuse at once, exit 75, naming them).",
        valueName: "seconds"))
    var seconds: Double = 0

    /// The options with their defaults, for ArgumentParser to fill.
    public init() {}

    /// Checks the options together, before the command runs.
    public func validate() throws {
        guard seconds >= 0 else { throw ValidationError("--wait-for-close must be zero or more seconds.") }
    }

    /// The library's options for the replacement.
    func replaceOptions(keepingReplacedAt kept: String? = nil) -> Cipher.ReplaceOptions {
        Cipher.ReplaceOptions(waitingForClose: seconds, keepingReplacedAt: kept)
    }

    /// The sentence of a replacing command's `--help`.
    static let help = """
        The file is replaced only when no other process has it open (a service, the sqlcipher shell, any SQLite \
        client): otherwise nothing changes and the command exits 75, naming the processes (stop the service, or \
        --wait-for-close SECONDS). While it works, the file's write lock is held: a client that opens it \
        meanwhile can read, and its writes wait for their busy timeout, then fail with SQLITE_BUSY (nothing it \
        was told succeeded is lost). A symbolic link is followed: the file it names is replaced, the link \
        stays. A file with other hard links is refused (exit 10).
        """
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

    /// How the audit trail names this program: "migrate-tool 0.2.0".
    static var auditedProcess: String { "\(commandName) \(MigrateToolCommand.version)" }

    /// A migrator without migrations (a rollback by the recorded down
    /// steps), whose audit events name this program.
    static func emptyMigrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.auditedProcess = auditedProcess
        return migrator
    }

    static func set(migrator: DatabaseMigrator?, commandName: String) {
        lock.withLock {
            self.migrator = migrator
            self.name = commandName
        }
    }
}
