import Foundation
internal import CSQLCipher

extension Database {
    /// Post it to suspend the queues and pools opened with
    /// ``Configuration/observesSuspensionNotifications``.
    ///
    /// ```swift
    /// NotificationCenter.default.post(name: Database.suspendNotification, object: nil)
    /// // take the volume snapshot; writers get SQLITE_ABORT meanwhile
    /// NotificationCenter.default.post(name: Database.resumeNotification, object: nil)
    /// ```
    public static let suspendNotification = Notification.Name("SecureStore.Database.Suspend")

    /// Post it to resume the databases that ``suspendNotification`` suspended.
    public static let resumeNotification = Notification.Name("SecureStore.Database.Resume")

    /// Suspends the connection (any thread): the statements that run are
    /// interrupted, and until ``resume()`` those that could take a lock
    /// throw instead of running.
    func suspend() {
        let wasSuspended = suspension.exchange(true, ordering: .sequentiallyConsistent)
        // The interruption ends a running write, which releases its lock.
        if !wasSuspended { interrupt() }
    }

    /// Ends the suspension (any thread).
    func resume() {
        suspension.store(false, ordering: .sequentiallyConsistent)
    }

    /// Called before a statement starts: while suspended, refuses one that
    /// could take a lock, after rolling back the transaction that may hold
    /// one. Statements that end a transaction or savepoint run, and so do
    /// read-only ones on a WAL database (they take no lock a writer waits
    /// on) and those that end an access (`uncancellable`).
    @inline(__always)
    func checkSuspension(_ statement: Statement) throws {
        guard suspension.load(ordering: .relaxed), !runsUncancellableStatements else { return }
        try refuseWhileSuspended(statement)
    }

    private func refuseWhileSuspended(_ statement: Statement) throws {
        switch statement.transactionEffect {
        case .commitTransaction?, .rollbackTransaction?, .releaseSavepoint?, .rollbackSavepoint?:
            return
        default:
            break
        }
        if statement.isReadonly, isWALMode { return }
        if isInsideTransaction { try? uncancellable { try execute(sql: "ROLLBACK") } }
        throw DatabaseError(resultCode: .SQLITE_ABORT, message: "Database is suspended", sql: statement.sql,
                            arguments: statement.arguments,
                            publicStatementArguments: configuration.publicStatementArguments)
    }

    /// True if the main database is in WAL mode, read without a statement
    /// of ours (which would come back here), and afresh each time: the
    /// mode may have changed since the last check.
    private var isWALMode: Bool {
        var handle: OpaquePointer?
        guard sqlite3_prepare_v2(sqliteConnection, "PRAGMA main.journal_mode", -1, &handle, nil) == SQLITE_OK,
              let handle else { return false }
        defer { sqlite3_finalize(handle) }
        guard sqlite3_step(handle) == SQLITE_ROW, let text = sqlite3_column_text(handle, 0) else { return false }
        let mode = String(cString: text).lowercased()
        journalModeCache = mode
        return mode == "wal"
    }
}
