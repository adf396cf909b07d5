import Foundation
import SecureStore

/// Byte copies of database files, fsynced, private (0600).
enum FileCopy {
    /// The copy is written as `<target>.partial` and renamed when whole:
    /// a killed run never leaves a file that looks like a finished backup.
    static func copy(_ source: String, to target: String) throws {
        let partial = target + partialSuffix
        do {
            try PrivateFile.copy(source, to: partial)
            try PrivateFile.renameAtomically(partial, to: target)
        } catch {
            unlink(partial)
            throw ErrorMapping.toolError(error, file: target)
        }
    }

    static let partialSuffix = ".partial"
}
