import Foundation
import SecureStore

/// The one place that turns library errors into the tool's exit codes.
enum ErrorMapping {
    static func toolError(_ error: any Error, file: String) -> ToolError {
        switch error {
        case let error as ToolError:
            return error
        case let error as MigrationError:
            switch error {
            case .malformedFile:
                return ToolError(.configuration, "\(error)")
            case .sqlFailed(_, _, _, let underlying) where isStorageFailure(underlying):
                // A full disk is not the migration's fault: 74, as everywhere.
                return ToolError(.ioError, "\(file): \(error)")
            case .sqlFailed, .forbiddenStatement:
                return ToolError(.migrationFailed, "\(file): \(error)")
            case .unknownMigration, .targetAlreadyPassed, .targetNotApplied, .invalidStepCount:
                return ToolError(.usage, "\(file): \(error)")
            case .missingRollback, .duplicateIdentifier:
                return ToolError(.configuration, "\(file): \(error)")
            case .integrity:
                return ToolError(.drift, "\(error)")
            case .baselineMismatch:
                return ToolError(.drift, "\(file): \(error)")
            case .baselineOfMigratedDatabase:
                return ToolError(.usage, "\(file): \(error)")
            }
        case let error as DatabaseError:
            return databaseError(error, file: file)
        default:
            return ToolError(.internalError, "\(file): \(error)")
        }
    }

    /// A full disk, an I/O error, a read-only file or file system.
    static func isStorageFailure(_ error: DatabaseError) -> Bool {
        switch error.resultCode {
        case .SQLITE_FULL, .SQLITE_IOERR, .SQLITE_READONLY, .SQLITE_PERM: return true
        default: return false
        }
    }

    private static func databaseError(_ error: DatabaseError, file: String) -> ToolError {
        // SecureStore's messages name the path already; add it otherwise.
        let text = error.message ?? "SQLite error \(error.resultCode.rawValue)"
        let message = file.isEmpty || text.contains(file) ? text : "\(file): \(text)"
        switch error.extendedResultCode {
        case .SECURESTORE_BUSY_IN_USE:
            return ToolError(.inUse, """
                \(message); nothing was changed. Stop the service that uses it first, or wait for it to close the \
                file with --wait-for-close SECONDS
                """)
        case .SECURESTORE_BUSY_REPLACING:
            return ToolError(.inUse, message)
        case .SECURESTORE_CANTOPEN_HARD_LINKS:
            return ToolError(.hardLinks, message)
        default:
            break
        }
        switch error.resultCode {
        case .SQLITE_CORRUPT:
            return ToolError(.notADatabase, "\(message): the file is damaged or truncated (`verify` tells where)")
        case .SQLITE_NOTADB:
            return ToolError(.notADatabase, message)
        case .SQLITE_CANTOPEN:
            return ToolError(.noSuchFile, message)
        case _ where isStorageFailure(error):
            return ToolError(.ioError, message)
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return ToolError(.inUse, "\(message) (another connection holds the database)")
        default:
            return ToolError(.migrationFailed, message)
        }
    }
}
