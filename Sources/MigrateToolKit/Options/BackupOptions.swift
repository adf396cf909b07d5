import ArgumentParser

/// Where a database's backups are: `--backup-dir`.
public struct BackupDirectoryOptions: ParsableArguments {
    @Option(name: .customLong("backup-dir"), help: ArgumentHelp(
        "Folder of the database's backups (default: the database's own folder). Made 0700 when missing.", valueName: "dir"))
    var directory: String?

    /// The options with their defaults, for ArgumentParser to fill.
    public init() {}

    /// The backups of `database`.
    func store(for database: String) -> BackupStore {
        BackupStore(database: database, directory: directory)
    }
}

/// The backups a changing command takes: where, how many to keep, or none.
public struct BackupOptions: ParsableArguments {
    /// How many backups of a database `--keep-backups` keeps by default.
    static let defaultKeep = 5

    @OptionGroup var location: BackupDirectoryOptions

    @Option(name: .customLong("keep-backups"), help: ArgumentHelp(
        "After a successful run, keep this many newest backups of the database and remove older ones (0: keep all).",
        valueName: "n"))
    var keep: Int = BackupOptions.defaultKeep

    @Flag(name: .customLong("no-backup"), help: "Do not copy the database before changing it.")
    var noBackup = false

    /// The options with their defaults, for ArgumentParser to fill.
    public init() {}

    /// Checks the options together, before the command runs.
    public func validate() throws {
        guard keep >= 0 else { throw ValidationError("--keep-backups must be 0 (keep all) or more.") }
    }

    /// The backups of `database`.
    func store(for database: String) -> BackupStore { location.store(for: database) }

    /// The options as a value that a batch of jobs shares.
    var policy: BackupPolicy {
        BackupPolicy(directory: location.directory, keep: keep, enabled: !noBackup)
    }
}

/// Whether a run takes backups, where, and how many it keeps.
struct BackupPolicy: Sendable {
    var directory: String?
    var keep: Int
    var enabled: Bool

    func store(for database: String) -> BackupStore {
        BackupStore(database: database, directory: directory)
    }
}
