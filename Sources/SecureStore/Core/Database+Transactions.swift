import Foundation
internal import CSQLCipher

extension Database {
    /// The kinds of SQLite transactions.
    public enum TransactionKind: String, Sendable {
        case deferred = "DEFERRED"
        case immediate = "IMMEDIATE"
        case exclusive = "EXCLUSIVE"
    }

    /// What to do at the end of a transaction or savepoint block.
    public enum TransactionCompletion: Sendable {
        case commit
        case rollback
    }

    /// True while a transaction is open.
    public var isInsideTransaction: Bool { sqlite3_get_autocommit(sqliteConnection) == 0 }

    /// The date of the current transaction: the same for every call inside
    /// one transaction (so that the records it writes share a timestamp),
    /// the current date outside transactions. It comes from
    /// ``Configuration/transactionClock``.
    ///
    /// ```swift
    /// try dbQueue.write { db in
    ///     player.modificationDate = try db.transactionDate
    ///     try player.update(db)
    /// }
    /// ```
    public var transactionDate: Date {
        get throws {
            guard isInsideTransaction else {
                transactionDateResult = nil
                return try configuration.transactionClock.now(self)
            }
            if let transactionDateResult { return try transactionDateResult.get() }
            let result = Result { try configuration.transactionClock.now(self) }
            transactionDateResult = result
            return try result.get()
        }
    }

    /// Forgets the transaction date once the transaction is over (called
    /// when a statement ends, which is where transactions end).
    @inline(__always)
    func forgetTransactionDateAfterTransaction() {
        if transactionDateResult != nil, !isInsideTransaction { transactionDateResult = nil }
    }

    /// Begins a transaction: immediate on a writable connection (the write
    /// lock is taken at once, so that two writers never deadlock on an
    /// upgrade), deferred on a read-only one, unless told otherwise.
    public func beginTransaction(_ kind: TransactionKind? = nil) throws {
        let kind = kind ?? (configuration.readonly || readOnlyDepth > 0 ? .deferred : .immediate)
        try execute(sql: "BEGIN \(kind.rawValue) TRANSACTION")
    }

    /// Commits the open transaction.
    public func commit() throws {
        try execute(sql: "COMMIT TRANSACTION")
    }

    /// Rolls back the open transaction, if there is one. SQLite rolls back
    /// on its own after some errors, so there may be none left.
    public func rollback() throws {
        try leavingInterruption { if isInsideTransaction { try execute(sql: "ROLLBACK TRANSACTION") } }
    }

    /// Runs a rollback again when it was interrupted: by an `interrupt()`
    /// that landed on it, or by SQLite's FTS5 bug that leaves a connection
    /// interrupted after an interrupted write
    /// (<https://sqlite.org/forum/forumpost/137c7662b3>; GRDB issue 1838).
    /// Resetting every statement of the connection leaves that state. A
    /// rollback must not fail for an interruption: the transaction would
    /// stay open.
    func leavingInterruption(_ rollback: () throws -> Void) throws {
        do {
            try rollback()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_INTERRUPT || error.resultCode == .SQLITE_ABORT {
            var statement = sqlite3_next_stmt(sqliteConnection, nil)
            while let current = statement {
                sqlite3_reset(current)
                statement = sqlite3_next_stmt(sqliteConnection, current)
            }
            try rollback()
        }
    }

    /// Runs `operations` in a transaction. The transaction commits or rolls
    /// back as `operations` says; an error rolls it back and is rethrown
    /// (the first error, when the rollback fails too).
    ///
    /// ```swift
    /// try db.inTransaction {
    ///     try db.execute(sql: "UPDATE account SET balance = balance - 10 WHERE id = 1")
    ///     try db.execute(sql: "UPDATE account SET balance = balance + 10 WHERE id = 2")
    ///     return .commit
    /// }
    /// ```
    public func inTransaction(_ kind: TransactionKind? = nil, _ operations: () throws -> TransactionCompletion) throws {
        try beginTransaction(kind)
        try insideTransactionBlock { leaveBlock in
            try complete(operations, commit: {
                // An aborted transaction reports it, rather than SQLite's
                // "cannot commit - no transaction is active".
                try checkForAbortedTransaction()
                // Transaction observers may run statements as it commits.
                leaveBlock()
                try commit()
            }, rollback: { try rollback() })
        }
    }

    /// Throws GRDB's `SQLITE_ABORT` "Transaction was aborted" when the
    /// transaction of an ``inTransaction(_:_:)`` or ``inSavepoint(_:)``
    /// block is gone though the block did not end it: SQLite rolled it back
    /// (an interruption, a suspension, `ON CONFLICT ROLLBACK`, a full disk),
    /// or a statement committed it. Every later statement of the block, and
    /// its end, throw it too: the block's remaining changes would otherwise
    /// run outside any transaction.
    ///
    /// ```swift
    /// try dbQueue.write { db in
    ///     do { try db.execute(sql: "INSERT OR ROLLBACK INTO player VALUES (1)") } catch { }
    ///     try db.execute(sql: "INSERT INTO log VALUES ('x')")  // SQLITE_ABORT: Transaction was aborted
    /// }
    /// ```
    @inline(__always)
    func checkForAbortedTransaction(sql: @autoclosure () -> String? = nil,
                                    arguments: @autoclosure () -> StatementArguments? = nil) throws {
        guard isInsideTransactionBlock, !isInsideTransaction else { return }
        throw DatabaseError(resultCode: .SQLITE_ABORT, message: "Transaction was aborted", sql: sql(),
                            arguments: arguments(), publicStatementArguments: configuration.publicStatementArguments)
    }

    /// What every statement checks before its first step: the access is
    /// not cancelled, its transaction block not aborted, the connection not
    /// suspended, and, for a statement that starts a transaction, the file
    /// not replaced since the connection opened it (without closures: this
    /// runs for every statement).
    @inline(__always)
    func checkStatementMayStart(_ statement: Statement) throws {
        try checkAccessCancellation()
        if isInsideTransactionBlock {
            if !isInsideTransaction { try checkForAbortedTransaction(sql: statement.sql, arguments: statement.arguments) }
        } else if watchesFileMoves, !isInsideTransaction {
            try checkFileNotMoved(statement)
        }
        try checkSuspension(statement)
    }

    /// Runs `body` as a transaction or savepoint block; `body` gets a
    /// function that leaves the block early (before a commit).
    private func insideTransactionBlock<T>(_ body: (_ leaveBlock: () -> Void) throws -> T) rethrows -> T {
        let wasInside = isInsideTransactionBlock
        isInsideTransactionBlock = true
        defer { isInsideTransactionBlock = wasInside }
        return try body { isInsideTransactionBlock = wasInside }
    }

    /// Runs `operations` in a savepoint, which nests inside transactions.
    /// Outside a transaction this is a transaction. An error rolls back the
    /// savepoint's changes only, and is rethrown.
    public func inSavepoint(_ operations: () throws -> TransactionCompletion) throws {
        guard isInsideTransaction else {
            // A top-level savepoint would be a deferred transaction, and
            // a rollback from the commit hook would not end it.
            return try inTransaction(nil, operations)
        }
        try execute(sql: "SAVEPOINT grdb")
        try insideTransactionBlock { _ in
            try complete(operations, commit: {
                try checkForAbortedTransaction()
                try execute(sql: "RELEASE SAVEPOINT grdb")
            }, rollback: {
                // After some errors SQLite has already rolled back the whole
                // transaction, and the savepoint is gone with it.
                guard isInsideTransaction else { return }
                try leavingInterruption {
                    if isInsideTransaction { try execute(sql: "ROLLBACK TRANSACTION TO SAVEPOINT grdb") }
                }
                if isInsideTransaction { try execute(sql: "RELEASE SAVEPOINT grdb") }
            })
        }
    }

    /// Ends a transaction or savepoint block: commits when `operations`
    /// says so, and rolls back when it says so, throws, or the commit
    /// fails (deferred foreign keys, a busy database), so that the
    /// connection is left usable. Throws the first error.
    private func complete(
        _ operations: () throws -> TransactionCompletion,
        commit: () throws -> Void,
        rollback: () throws -> Void
    ) throws {
        // In an async write whose task is cancelled, the commit throws
        // `CancellationError` (nothing of a cancelled write is committed),
        // and the rollback runs.
        let completion: TransactionCompletion
        do {
            completion = try operations()
            if completion == .commit {
                // A read that ended well stays a success.
                if configuration.readonly || readOnlyDepth > 0 { try uncancellable(commit) } else { try commit() }
                return
            }
        } catch {
            try? uncancellable(rollback)
            throw error
        }
        try uncancellable(rollback)
    }

    /// Runs `value` with writes forbidden, in a deferred transaction unless
    /// one is already open, as GRDB's reads do: read-only first, so that
    /// the transaction's `BEGIN` is the last statement before `value` and
    /// its commit notifies no observer.
    func isolatedRead<T>(_ value: () throws -> T) throws -> T {
        try readOnly {
            if isInsideTransaction { return try value() }
            var result: T?
            try inTransaction(.deferred) {
                result = try value()
                return .commit
            }
            guard let result else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "read ended without a result") }
            return result
        }
    }

    /// Forbids writes from now on, for the life of the connection: a copy
    /// opened read-only, which had to be written first.
    func beginReadOnly() throws {
        if readOnlyDepth == 0 { try execute(sql: "PRAGMA query_only = 1") }
        readOnlyDepth += 1
    }

    /// Runs `value` with writes forbidden (`PRAGMA query_only`; nothing to
    /// do on a read-only connection).
    public func readOnly<T>(_ value: () throws -> T) throws -> T {
        if configuration.readonly { return try value() }
        if readOnlyDepth == 0 {
            do {
                try execute(sql: "PRAGMA query_only = 1")
            } catch {
                // SQLite sets the flag as it compiles the pragma: refused
                // when it runs (a cancelled access, a suspended database),
                // it has still taken effect.
                try? uncancellable { try execute(sql: "PRAGMA query_only = 0") }
                throw error
            }
        }
        readOnlyDepth += 1
        defer {
            readOnlyDepth -= 1
            // Twice if need be: an interruption (a cancelled task) that
            // lands on this statement must not leave the connection
            // read-only, and SQLite forgets it once no statement runs.
            if readOnlyDepth == 0, (try? uncancellable({ try execute(sql: "PRAGMA query_only = 0") })) == nil {
                try? uncancellable { try execute(sql: "PRAGMA query_only = 0") }
            }
        }
        return try value()
    }
}
