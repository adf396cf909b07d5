import ArgumentParser
import Foundation
import SecureStore

/// The root command of migrate-tool.
///
/// An app builds its own tool around its Swift migrations in one line:
///
/// ```swift
/// import MigrateToolKit
///
/// @main enum AppMigrate {
///     static func main() { MigrateToolCommand.main(migrator: AppDatabase.migrator, commandName: "app-migrate") }
/// }
/// ```
public struct MigrateToolCommand: ParsableCommand {
    /// The command's name, abstract, subcommands and exit-code table.
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: ToolContext.commandName,
            abstract: "Inspect, apply and roll back migrations on SQLCipher-encrypted databases.",
            discussion: """
                Keys never go on the command line: use --key-file, --key-env, --key-stdin, --key-fd or --key-command.

                \(ToolExitCode.helpTable)
                """,
            version: versionText,
            subcommands: [Inspect.self, Status.self, Apply.self, Rollback.self, TestMigrations.self, Rehearse.self, Lint.self, Hash.self, Baseline.self, Repair.self, Schema.self, Diff.self, Create.self, New.self,
                          Encrypt.self, Decrypt.self, Rekey.self, Upgrade.self, Verify.self, Backup.self, Backups.self, Restore.self, Audit.self, History.self, Keygen.self]
        )
    }

    static let version = "0.2.0"

    /// The tool's version and the SQLCipher and SQLite it runs on.
    static var versionText: String {
        "\(ToolContext.commandName) \(version) (SQLCipher \(SQLCipherLibrary.version), SQLite \(Database.sqliteLibVersion))"
    }

    /// The command, ready for ArgumentParser to fill.
    public init() {}

    /// Runs the tool with an app's own migrations (and its own name).
    /// `--migrations` then adds SQL files after them, and becomes optional.
    ///
    /// First of all, before any key is read, the process is made
    /// non-dumpable, with no core file (`ProcessProtection.enable()`).
    /// The library's warnings, such as a new file made with a KDF below
    /// the guidance, are printed on stderr.
    public static func main(migrator: DatabaseMigrator?, commandName: String) -> Never {
        do {
            try ProcessProtection.enable()
        } catch {
            FileHandle.standardError.write(Data("\(commandName): warning: cannot keep this process out of core dumps and debuggers (\(error))\n".utf8))
        }
        ToolContext.set(migrator: migrator, commandName: commandName)
        // The library's warnings (a new file keyed with a weak KDF) go to
        // stderr; SQLite's own log (recovered journals, misuse) stays quiet.
        Database.logError = { resultCode, message in
            guard resultCode == .SQLITE_WARNING else { return }
            Output.warning(message)
        }
        main()
        Foundation.exit(0)
    }
}
