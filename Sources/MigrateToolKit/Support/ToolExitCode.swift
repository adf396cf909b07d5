import ArgumentParser

/// The documented exit codes of migrate-tool. Deploy scripts branch on
/// them, so they never change meaning.
public enum ToolExitCode: Int32, CaseIterable, Sendable, Codable {
    case success = 0
    case internalError = 1
    case pending = 3
    case drift = 4
    case superseded = 5
    case migrationFailed = 6
    case damaged = 7
    case notReversible = 8
    case lintFindings = 9
    case hardLinks = 10
    case usage = 64
    case notADatabase = 65
    case noSuchFile = 66
    case cannotCreate = 73
    case ioError = 74
    case inUse = 75
    case configuration = 78

    /// The former name of ``inUse``.
    @available(*, deprecated, renamed: "inUse")
    public static var lockTimeout: ToolExitCode { .inUse }

    /// One line for `--help` and the documentation.
    public var meaning: String {
        switch self {
        case .success: return "success"
        case .internalError: return "unexpected internal error"
        case .pending: return "status --check: migrations are pending"
        case .drift: return "a migration file changed after it was applied, or the schema drifted; with --trusted-key: the migrations directory is not signed by a trusted key"
        case .superseded: return "the database has migrations this tool does not know (it is newer)"
        case .migrationFailed: return "a migration failed; the database is left at the last good migration"
        case .damaged: return "verify: the file is damaged (integrity check failed or pages do not read); restore: the backup is"
        case .notReversible: return "test: a down step does not restore the schema or the rows, a step fails, or (without --allow-irreversible) a migration has no down step"
        case .lintFindings: return "lint, audit: findings at or above --fail-on (default: error)"
        case .hardLinks: return "the database file has other hard links, which a replacement (rekey, restore, encrypt, upgrade) would leave on the old file; nothing was changed"
        case .usage: return "usage error (bad options or arguments)"
        case .notADatabase: return "wrong key, wrong cipher settings, not encrypted, or not a database"
        case .noSuchFile: return "database file missing, or not a regular file; restore --latest: no backup"
        case .cannotCreate: return "create: the file exists already or cannot be made"
        case .ioError: return "I/O error: disk full, read-only file or file system, permission denied (the original is unchanged)"
        case .inUse: return "the database is in use: another process has it open (rekey, restore, encrypt, upgrade; --wait-for-close elapsed), or another run holds its lock (--lock-timeout elapsed); nothing was changed"
        case .configuration: return "key or migrations configuration error (key file, migration files, a migration file with a refused statement)"
        }
    }

    /// The table printed at the end of `--help`.
    static var helpTable: String {
        "Exit codes:\n" + allCases.map { "  \(String($0.rawValue).padding(toLength: 4, withPad: " ", startingAt: 0)) \($0.meaning)" }
            .joined(separator: "\n")
    }
}

/// An error the tool reports: a message that names the file and what to do,
/// and the exit code. The message never holds a key.
public struct ToolError: Error, CustomStringConvertible, Sendable {
    /// The exit code.
    public var code: ToolExitCode
    /// What went wrong, and what to do; never a key.
    public var message: String

    /// An error with its exit code.
    public init(_ code: ToolExitCode, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
