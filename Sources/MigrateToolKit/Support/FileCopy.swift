import Foundation
import SecureStore

/// Byte copies of database files, fsynced, private (0600).
enum FileCopy {
    /// The copy is written as `<target>.partial` and renamed when whole:
    /// a killed run never leaves a file that looks like a finished backup.
    static func copy(_ source: String, to target: String) throws {
        try copy(to: target) { partial in try PrivateFile.copy(source, to: partial) }
    }

    /// Copies the database file of `db` through SQLite's file layer, so
    /// that the connection keeps its locks (a descriptor of our own would
    /// drop them as it closes).
    static func copy(from db: Database, to target: String) throws {
        try copy(to: target) { partial in try db.copyMainFile(to: partial) }
    }

    /// Copies the database file of `db` and its WAL, then folds the WAL
    /// into the copy (a checkpoint of the copy, opened with `key`): the
    /// copy holds every commit, as one file. The caller holds the write
    /// lock, so that the WAL does not grow meanwhile. The WAL is read
    /// through a descriptor of its own: SQLite holds no lock on it.
    static func copy(from db: Database, to target: String, foldingWAL wal: String, key: DatabaseKey?) throws {
        try copy(to: target) { partial in
            try db.copyMainFile(to: partial)
            try PrivateFile.copy(wal, to: partial + "-wal")
            defer { for suffix in ["-wal", "-shm"] { unlink(partial + suffix) } }
            let copy = try DatabaseFile.open(partial, key: key, readonly: false, busyTimeout: 1)
            try copy.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            try copy.close()
            try PrivateFile.fsync(partial)
        }
    }

    private static func copy(to target: String, writing write: (_ partial: String) throws -> Void) throws {
        let partial = target + partialSuffix
        do {
            try write(partial)
            try PrivateFile.renameAtomically(partial, to: target)
        } catch {
            unlink(partial)
            throw ErrorMapping.toolError(error, file: target)
        }
    }

    static let partialSuffix = ".partial"
}
