import Foundation
import SecureStore

/// A backup made before changing a database: a byte copy of the encrypted
/// file, so it stays encrypted with the same key and settings. SQLite's
/// backup API is never used: with SQLCipher 3.4.1 it writes plaintext.
enum EncryptedBackup {
    /// Copies the file while a write transaction keeps other writers out,
    /// fsyncs the copy, and checks that it opens with the same key.
    ///
    /// In WAL mode the commits still in the `-wal` file belong in the
    /// backup too: a checkpoint first folds them into the file, and when a
    /// reader of another connection keeps it from folding them all (a
    /// service that reads while it runs), the `-wal` is copied with the
    /// file and folded into the copy.
    static func make(in store: BackupStore, dbQueue: DatabaseQueue, key: DatabaseKey?) throws -> String {
        let path = store.database
        store.removeStalePartialCopies()
        let backupPath = try store.newPath()
        try dbQueue.writeWithoutTransaction { db in
            let wal = try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal"
            if wal {
                // Without waiting for readers: a service's long read would
                // hold the run for the whole busy timeout. What a reader
                // keeps in the WAL is folded into the copy below.
                let timeout = try Int.fetchOne(db, sql: "PRAGMA busy_timeout") ?? 0
                try db.execute(sql: "PRAGMA busy_timeout = 0")
                defer { try? db.execute(sql: "PRAGMA busy_timeout = \(timeout)") }
                try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            }
            // The write lock keeps the file and its WAL still while they
            // are copied; a WAL that the checkpoint could not empty goes
            // into the copy.
            try db.inTransaction(.immediate) {
                if wal, DatabaseFile.size(path + "-wal") > 0 {
                    try FileCopy.copy(from: db, to: backupPath, foldingWAL: path + "-wal", key: key)
                } else {
                    try FileCopy.copy(from: db, to: backupPath)
                }
                return .commit
            }
        }
        do {
            var config = key?.configuration(readonly: true) ?? Configuration()
            config.readonly = true
            let check = try DatabaseQueue(path: backupPath, configuration: config)
            _ = try check.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
            try check.close()
            // A read-only connection to a WAL file makes its -wal and -shm
            // files and cannot remove them: the backup is the file alone.
            unlink(backupPath + "-wal")
            unlink(backupPath + "-shm")
        } catch {
            PrivateFile.removeDatabaseFiles(backupPath)
            throw ToolError(.ioError, "\(path): the backup \(backupPath) could not be verified: \(error)")
        }
        return backupPath
    }
}
