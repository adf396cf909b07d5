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

    /// Begins a transaction (deferred unless told otherwise).
    public func beginTransaction(_ kind: TransactionKind? = nil) throws {
        try execute(sql: "BEGIN \((kind ?? .deferred).rawValue) TRANSACTION")
    }

    /// Commits the open transaction.
    public func commit() throws {
        try execute(sql: "COMMIT TRANSACTION")
    }

    /// Rolls back the open transaction, if there is one. SQLite rolls back
    /// on its own after some errors, so there may be none left.
    public func rollback() throws {
        if isInsideTransaction { try execute(sql: "ROLLBACK TRANSACTION") }
    }

    /// Runs `operations` in a transaction. The transaction commits or rolls
    /// back as `operations` says; an error rolls it back and is rethrown.
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
        let completion: TransactionCompletion
        do {
            completion = try operations()
        } catch {
            try? rollback()
            throw error
        }
        switch completion {
        case .commit:
            do {
                try commit()
            } catch {
                // A failed commit (deferred foreign keys, busy) leaves the
                // transaction open: close it so the connection stays usable.
                try? rollback()
                throw error
            }
        case .rollback:
            try rollback()
        }
    }

    /// Runs `operations` in a savepoint, which nests inside transactions.
    /// Outside a transaction this is a transaction. An error rolls back the
    /// savepoint's changes only, and is rethrown.
    public func inSavepoint(_ operations: () throws -> TransactionCompletion) throws {
        guard isInsideTransaction else {
            return try inTransaction(nil, operations)
        }
        try execute(sql: "SAVEPOINT securestore")
        let completion: TransactionCompletion
        do {
            completion = try operations()
        } catch {
            try? rollbackSavepoint()
            throw error
        }
        switch completion {
        case .commit: try execute(sql: "RELEASE SAVEPOINT securestore")
        case .rollback: try rollbackSavepoint()
        }
    }

    private func rollbackSavepoint() throws {
        // After some errors SQLite has already rolled back the whole
        // transaction, and the savepoint is gone with it.
        guard isInsideTransaction else { return }
        try execute(sql: "ROLLBACK TRANSACTION TO SAVEPOINT securestore; RELEASE SAVEPOINT securestore")
    }

    /// Runs `value` with writes forbidden (`PRAGMA query_only`).
    public func readOnly<T>(_ value: () throws -> T) throws -> T {
        if readOnlyDepth == 0 { try execute(sql: "PRAGMA query_only = 1") }
        readOnlyDepth += 1
        defer {
            readOnlyDepth -= 1
            if readOnlyDepth == 0 { try? execute(sql: "PRAGMA query_only = 0") }
        }
        return try value()
    }
}
