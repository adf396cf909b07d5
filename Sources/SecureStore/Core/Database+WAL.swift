internal import CSQLCipher

extension Database {
    /// How ``checkpoint(_:on:)`` copies a WAL file back into the database,
    /// as `sqlite3_wal_checkpoint_v2` names it.
    public enum CheckpointMode: CInt, Sendable {
        /// As much as can be done without waiting for readers or writers.
        case passive = 0
        /// Waits for writers, then copies every frame.
        case full = 1
        /// As `full`, then waits for readers so that the next writer
        /// restarts the WAL file from its start.
        case restart = 2
        /// As `restart`, then truncates the WAL file to zero bytes.
        case truncate = 3
    }

    /// Runs a WAL checkpoint and returns the frames in the WAL file and
    /// how many were copied into the database (-1 and -1 when the database
    /// is not in WAL mode).
    ///
    /// ```swift
    /// try dbPool.writeWithoutTransaction { db in
    ///     try db.checkpoint(.truncate)   // the -wal file is now empty
    /// }
    /// ```
    ///
    /// `dbName` names an attached database; nil checkpoints all of them.
    @discardableResult
    public func checkpoint(_ kind: CheckpointMode = .passive, on dbName: String? = "main") throws
    -> (walFrameCount: Int, checkpointedFrameCount: Int) {
        var walFrameCount: CInt = -1
        var checkpointedFrameCount: CInt = -1
        let code = sqlite3_wal_checkpoint_v2(sqliteConnection, dbName, kind.rawValue, &walFrameCount, &checkpointedFrameCount)
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: lastErrorMessage)
        }
        return (Int(walFrameCount), Int(checkpointedFrameCount))
    }

    /// Switches the file to WAL mode, with `synchronous = NORMAL` as GRDB
    /// does and SQLite advises for WAL: a commit survives a crash of the
    /// app; a power loss may lose the last commits, never corrupt the file.
    func setUpWALMode() throws {
        let mode = try String.fetchOne(self, sql: "PRAGMA journal_mode = WAL")
        guard mode == "wal" else {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "could not switch \(path) to WAL mode (got \(mode ?? "nothing"))")
        }
        try execute(sql: "PRAGMA synchronous = NORMAL")
    }
}
