import Foundation
import SecureStore

/// A backup made before changing a database: a byte copy of the encrypted
/// file, so it stays encrypted with the same key and settings. SQLite's
/// backup API is never used: with SQLCipher 3.4.1 it writes plaintext.
enum EncryptedBackup {
    /// Copies the file while a write transaction keeps other writers out,
    /// fsyncs the copy, and checks that it opens with the same key.
    static func make(in store: BackupStore, dbQueue: DatabaseQueue, key: DatabaseKey?) throws -> String {
        let path = store.database
        store.removeStalePartialCopies()
        let backupPath = try store.newPath()
        try dbQueue.writeWithoutTransaction { db in
            // Fold a WAL into the main file, then hold the write lock while copying.
            if try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal" {
                try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            }
            try db.inTransaction(.immediate) {
                try FileCopy.copy(from: db, to: backupPath)
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
