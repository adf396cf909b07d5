/// An object told of the changes of a connection's transactions: which
/// rows changed, then whether the transaction committed or rolled back.
///
/// ```swift
/// final class PlayerChangeObserver: TransactionObserver {
///     var changed = false
///     func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
///         eventKind.tableName == "player"
///     }
///     func databaseDidChange(with event: DatabaseEvent) { changed = true }
///     func databaseDidCommit(_ db: Database) {
///         if changed { print("players changed") }
///         changed = false
///     }
///     func databaseDidRollback(_ db: Database) { changed = false }
/// }
///
/// let observer = PlayerChangeObserver()
/// try dbQueue.write { db in db.add(transactionObserver: observer) }
/// ```
///
/// Statements are filtered before they run: SQLite's authorizer tells which
/// tables and columns a statement may change, and only the observers that
/// care about them get its events. Events inside a savepoint are held until
/// the savepoint is released, and dropped if it is rolled back. Read-only
/// transactions are not reported.
///
/// Methods run on the connection's queue, inside the database access that
/// made the change: they must not block, and must not use another access.
///
/// ## Topics
///
/// ### Registering
///
/// - ``Database/add(transactionObserver:extent:)``
/// - ``Database/remove(transactionObserver:)``
/// - ``Database/afterNextTransaction(onCommit:onRollback:)``
///
/// ### Events
///
/// - ``DatabaseEventKind``
/// - ``DatabaseEvent``
public protocol TransactionObserver: AnyObject {
    /// True if the observer wants the events of changes of this kind.
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool

    /// Called for changes that are not described by events, such as
    /// ``Database/notifyChanges(in:)``.
    func databaseDidChange()

    /// Called for each changed row of an observed kind.
    func databaseDidChange(with event: DatabaseEvent)

    /// Called before a transaction commits. Throwing rolls the transaction
    /// back, and the error is thrown from the statement that committed.
    func databaseWillCommit() throws

    /// Called after a transaction committed.
    func databaseDidCommit(_ db: Database)

    /// Called after a transaction rolled back.
    func databaseDidRollback(_ db: Database)
}

extension TransactionObserver {
    /// Does nothing.
    public func databaseWillCommit() throws {}

    /// Does nothing.
    public func databaseDidChange() {}

    /// Stops the events of the current transaction for this observer; it
    /// is still told of the commit or rollback. Call it from
    /// `databaseDidChange()` or `databaseDidChange(with:)`.
    public func stopObservingDatabaseChangesUntilNextTransaction() {
        guard let broker = DatabaseObservationBroker.current else {
            preconditionFailure("""
                stopObservingDatabaseChangesUntilNextTransaction must be called \
                from the `databaseDidChange()` or `databaseDidChange(with:)` methods
                """)
        }
        broker.disableUntilNextTransaction(self)
    }
}

extension Database {
    /// How long a transaction observer stays registered.
    public enum TransactionObservationExtent: Sendable {
        /// Until the observer is released (the connection does not retain
        /// it), or removed.
        case observerLifetime
        /// Until the end of the next transaction (the connection retains it).
        case nextTransaction
        /// Until the connection closes (the connection retains it).
        case databaseLifetime
    }

    /// Registers a transaction observer.
    public func add(transactionObserver: some TransactionObserver, extent: TransactionObservationExtent = .observerLifetime) {
        observationBroker.add(transactionObserver, extent: extent)
    }

    /// Unregisters a transaction observer.
    public func remove(transactionObserver: some TransactionObserver) {
        observationBroker.remove(transactionObserver)
    }

    /// Runs `onCommit` or `onRollback` at the end of the next transaction
    /// (now, for an empty transaction that only begins and ends).
    ///
    /// ```swift
    /// try dbQueue.write { db in
    ///     try Player(name: "Arthur").insert(db)
    ///     db.afterNextTransaction { _ in print("committed") }
    /// }
    /// ```
    public func afterNextTransaction(
        onCommit: @escaping @Sendable (Database) -> Void,
        onRollback: @escaping @Sendable (Database) -> Void = { _ in }
    ) {
        precondition(!isReadOnly, "Read-only transactions are not notified")
        add(transactionObserver: CompletionObserver(onCommit: onCommit, onRollback: onRollback), extent: .nextTransaction)
    }

    /// Tells the transaction observers of changes made outside of this
    /// connection (by another process, or before a schema change): those
    /// that observe the region get `databaseDidChange()`. Call it inside a
    /// write transaction. `.fullDatabase` means the tables of the schema;
    /// name `sqlite_master` (or `sqlite_temp_master`) to announce a change
    /// of the schema itself.
    public func notifyChanges(in region: some DatabaseRegionConvertible) throws {
        // A read-only access commits nothing: its observers would wait for
        // a commit that never comes.
        guard !isReadOnly else { return }
        let eventKinds = try region.databaseRegion(self).canonicalRegion(self, keepingSchemaTables: true)
            .impactfulEventKinds(self)
        observationBroker.notifyChanges(withEventsOfKind: eventKinds)
    }
}

/// The observer of `afterNextTransaction`.
private final class CompletionObserver: TransactionObserver {
    let onCommit: @Sendable (Database) -> Void
    let onRollback: @Sendable (Database) -> Void

    init(onCommit: @escaping @Sendable (Database) -> Void, onRollback: @escaping @Sendable (Database) -> Void) {
        self.onCommit = onCommit
        self.onRollback = onRollback
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { onCommit(db) }
    func databaseDidRollback(_ db: Database) { onRollback(db) }
}
