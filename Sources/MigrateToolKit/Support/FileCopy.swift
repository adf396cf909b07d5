import Foundation
import SecureStore

/// Byte copies of database files, fsynced, private (0600).
enum FileCopy {
    /// `<path>.<UTC time>.backup`, with -2, -3 ... when taken.
    static func backupPath(for path: String) -> String {
        let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "")
        var candidate = "\(path).\(stamp).backup"
        var counter = 2
        while FileManager.default.fileExists(atPath: candidate) {
            candidate = "\(path).\(stamp)-\(counter).backup"
            counter += 1
        }
        return candidate
    }

    /// Copies a file that nobody else writes (the caller holds the lock).
    static func backup(of path: String) throws -> String {
        let target = backupPath(for: path)
        try copy(path, to: target)
        return target
    }

    /// The copy is written as `<target>.partial` and renamed when whole:
    /// a killed run never leaves a file that looks like a finished backup.
    static func copy(_ source: String, to target: String) throws {
        removeStalePartialCopies(of: source)
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

    /// Removes `<path>.*.backup.partial` files of killed runs (the caller
    /// holds the database's lock, so no other run is writing one).
    static func removeStalePartialCopies(of path: String) {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let prefix = url.lastPathComponent + "."
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        where name.hasPrefix(prefix) && name.hasSuffix(".backup" + partialSuffix) {
            try? FileManager.default.removeItem(atPath: folder + "/" + name)
        }
    }
}
