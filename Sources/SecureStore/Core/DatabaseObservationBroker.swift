import Foundation
internal import CSQLCipher

/// Tells a connection's transaction observers what its statements change,
/// from SQLite's hooks: the update hook for rows, the commit and rollback
/// hooks for the end of transactions.
///
/// Before a statement runs, the observers that care about the kinds of
/// changes the authorizer saw in it are picked; the update hook is
/// installed only while some are. Events inside savepoints are held until
/// the outermost savepoint is released (or dropped when it is rolled back).
/// `databaseDidCommit` and `databaseDidRollback` run once the statement that
/// ended the transaction is done, so that observers can use the connection.
final class DatabaseObservationBroker {
    private unowned let database: Database
    private var observations: [TransactionObservation] = []
    /// The observations of the running statement.
    private var statementObservations: [StatementObservation] = [] {
        didSet {
            if statementObservations.isEmpty != oldValue.isEmpty {
                statementObservations.isEmpty ? uninstallUpdateHook() : installUpdateHook()
            }
        }
    }
    private let savepoints = SavepointStack()
    private var completion = Completion.none
    private var hooksInstalled = false

    private enum Completion {
        case none
        case commit
        case rollback
        /// An observer refused the commit.
        case cancelledCommit(any Error)
    }

    init(_ database: Database) {
        self.database = database
    }

    var hasObservers: Bool { !observations.isEmpty }

    // MARK: Observers

    func add(_ observer: some TransactionObserver, extent: Database.TransactionObservationExtent) {
        installCommitAndRollbackHooks()
        database.dropCachedStatementsThatDelete()
        observations.append(TransactionObservation(observer, extent: extent))
    }

    func remove(_ observer: some TransactionObserver) {
        database.dropCachedStatementsThatDelete()
        observations.removeAll { $0.wraps(observer) }
    }

    func disableUntilNextTransaction(_ observer: some TransactionObserver) {
        guard let observation = observations.first(where: { $0.wraps(observer) }) else { return }
        observation.isEnabled = false
        statementObservations.removeAll { $0.observation === observation }
    }

    /// True if an observer wants the deletions of `table`: the authorizer
    /// then disables SQLite's truncate optimization, which deletes all
    /// rows without telling the update hook.
    func observesDeletions(on table: String) -> Bool {
        observations.contains { $0.observes(.delete(tableName: table)) }
    }

    func notifyChanges(withEventsOfKind eventKinds: [DatabaseEventKind]) {
        withCurrentBroker {
            for observation in observations where observation.isEnabled && eventKinds.contains(where: observation.observes) {
                observation.databaseDidChange()
            }
        }
    }

    // MARK: Statements

    func statementWillExecute(_ statement: Statement) {
        completion = .none
        guard !observations.isEmpty, !database.isReadOnly else { return }
        let kinds = statement.authorizerEventKinds
        statementObservations = observations.compactMap { observation in
            let observed = kinds.filter(observation.observes)
            if observed.isEmpty { return nil }
            // A statement with one kind of change (no trigger, no foreign
            // key action) makes only events of that kind.
            return StatementObservation(observation: observation, observedKinds: kinds.count == 1 ? nil : observed,
                                        statementKinds: kinds)
        }
    }

    func statementDidExecute(_ statement: Statement) throws {
        statementObservations = []
        switch statement.transactionEffect {
        case .commitTransaction? where isNone(completion):
            // `BEGIN DEFERRED; COMMIT` with nothing in between: SQLite never
            // began a transaction, but the code did. Observers are told,
            // as if it had.
            return try commitEmptyTransaction()
        case .beginSavepoint(let name)?:
            savepoints.didBegin(name)
        case .releaseSavepoint(let name)?:
            savepoints.didRelease(name)
            if isNone(completion) && !database.isInsideTransaction { return try commitEmptyTransaction() }
            if savepoints.isEmpty { notifyBufferedEvents() }
        case .rollbackSavepoint(let name)?:
            savepoints.didRollback(name)
        default:
            break
        }
        let completion = self.completion
        self.completion = .none
        switch completion {
        case .commit: didCommit()
        case .rollback: didRollback(notifying: !database.isReadOnly)
        case .none, .cancelledCommit: break
        }
    }

    func statementDidFail(_ statement: Statement) throws {
        statementObservations = []
        let completion = self.completion
        self.completion = .none
        switch completion {
        case .rollback:
            // A failed statement of an implicit transaction (an INSERT that
            // breaks a constraint): nothing to tell.
            didRollback(notifying: false)
        case .cancelledCommit(let error):
            didRollback(notifying: !database.isReadOnly)
            throw error
        case .none, .commit:
            break
        }
    }

    private func isNone(_ completion: Completion) -> Bool {
        if case .none = completion { return true }
        return false
    }

    // MARK: End of transactions

    private func willCommit() throws {
        notifyBufferedEvents()
        guard !database.isReadOnly else { return }
        for observation in observations { try observation.databaseWillCommit() }
    }

    private func didCommit() {
        savepoints.clear()
        if !database.isReadOnly {
            for observation in observations { observation.databaseDidCommit(database) }
        }
        didEndTransaction()
    }

    private func commitEmptyTransaction() throws {
        do {
            try willCommit()
            didCommit()
        } catch {
            didRollback(notifying: !database.isReadOnly)
            throw error
        }
    }

    private func didRollback(notifying: Bool) {
        savepoints.clear()
        if notifying {
            for observation in observations { observation.databaseDidRollback(database) }
        }
        didEndTransaction()
    }

    private func didEndTransaction() {
        observations.removeAll { !$0.isObserving }
        for observation in observations { observation.isEnabled = true }
    }

    // MARK: Events

    private func databaseDidChange(_ event: DatabaseEvent) {
        if savepoints.isEmpty {
            for statementObservation in statementObservations where statementObservation.tracks(event) {
                statementObservation.observation.databaseDidChange(with: event)
            }
        } else {
            savepoints.buffer.append((event.copy(), statementObservations))
        }
    }

    private func notifyBufferedEvents() {
        let buffer = savepoints.buffer
        savepoints.clear()
        withCurrentBroker {
            for (event, statementObservations) in buffer {
                for statementObservation in statementObservations where statementObservation.tracks(event) {
                    statementObservation.observation.databaseDidChange(with: event)
                }
            }
        }
    }

    // MARK: The current broker

    /// The broker of the connection whose observers are being told of
    /// changes on this thread, for `stopObservingDatabaseChangesUntilNextTransaction`.
    static var current: DatabaseObservationBroker? {
        Thread.current.threadDictionary[currentKey] as? DatabaseObservationBroker
    }

    private static let currentKey = "SecureStore.DatabaseObservationBroker.current"

    private func withCurrentBroker(_ body: () -> Void) {
        let dictionary = Thread.current.threadDictionary
        let previous = dictionary[Self.currentKey]
        dictionary[Self.currentKey] = self
        defer { dictionary[Self.currentKey] = previous }
        body()
    }

    // MARK: SQLite hooks

    private func installCommitAndRollbackHooks() {
        guard !hooksInstalled else { return }
        hooksInstalled = true
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_commit_hook(database.sqliteConnection, { context in
            let broker = Unmanaged<DatabaseObservationBroker>.fromOpaque(context!).takeUnretainedValue()
            do {
                try broker.willCommit()
                broker.completion = .commit
                return 0
            } catch {
                broker.completion = .cancelledCommit(error)
                return 1  // SQLite rolls back, then calls the rollback hook.
            }
        }, context)
        sqlite3_rollback_hook(database.sqliteConnection, { context in
            let broker = Unmanaged<DatabaseObservationBroker>.fromOpaque(context!).takeUnretainedValue()
            if case .cancelledCommit = broker.completion { return }
            broker.completion = .rollback
        }, context)
    }

    private func installUpdateHook() {
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_update_hook(database.sqliteConnection, { context, kind, databaseName, tableName, rowID in
            guard let context, let databaseName, let tableName, let kind = DatabaseEvent.Kind(rawValue: kind) else { return }
            let broker = Unmanaged<DatabaseObservationBroker>.fromOpaque(context).takeUnretainedValue()
            broker.withCurrentBroker {
                broker.databaseDidChange(DatabaseEvent(kind: kind, rowID: rowID, names: .transient(database: databaseName, table: tableName)))
            }
        }, context)
    }

    private func uninstallUpdateHook() {
        sqlite3_update_hook(database.sqliteConnection, nil, nil)
    }

    /// Removes the hooks before the connection closes. The connection is
    /// given: this runs while the database deinitializes, when it can no
    /// longer be reached through `database`.
    func uninstallHooks(_ connection: OpaquePointer) {
        guard hooksInstalled else { return }
        sqlite3_commit_hook(connection, nil, nil)
        sqlite3_rollback_hook(connection, nil, nil)
        sqlite3_update_hook(connection, nil, nil)
    }
}

/// A registered observer, with its extent.
final class TransactionObservation {
    let extent: Database.TransactionObservationExtent
    var isEnabled = true
    private weak var weakObserver: (any TransactionObserver)?
    private var strongObserver: (any TransactionObserver)?
    private var observer: (any TransactionObserver)? { strongObserver ?? weakObserver }

    init(_ observer: some TransactionObserver, extent: Database.TransactionObservationExtent) {
        self.extent = extent
        if case .observerLifetime = extent { weakObserver = observer } else { strongObserver = observer }
    }

    var isObserving: Bool { observer != nil }

    func wraps(_ observer: some TransactionObserver) -> Bool { self.observer === observer }

    func observes(_ eventKind: DatabaseEventKind) -> Bool { observer?.observes(eventsOfKind: eventKind) ?? false }

    func databaseDidChange() {
        if isEnabled { observer?.databaseDidChange() }
    }

    func databaseDidChange(with event: DatabaseEvent) {
        if isEnabled { observer?.databaseDidChange(with: event) }
    }

    func databaseWillCommit() throws { try observer?.databaseWillCommit() }

    func databaseDidCommit(_ db: Database) { takeObserver()?.databaseDidCommit(db) }

    func databaseDidRollback(_ db: Database) { takeObserver()?.databaseDidRollback(db) }

    /// The observer; one registered for the next transaction is let go
    /// first, so that what it does in its last callback reaches it no more.
    private func takeObserver() -> (any TransactionObserver)? {
        let observer = self.observer
        if case .nextTransaction = extent { strongObserver = nil }
        return observer
    }
}

/// An observer of the running statement, and the kinds of its events it
/// wants (nil: all of them).
struct StatementObservation {
    let observation: TransactionObservation
    let observedKinds: [DatabaseEventKind]?
    /// Every kind the authorizer announced for the statement.
    let statementKinds: [DatabaseEventKind]

    /// True for the events of an observed kind, and for those the
    /// statement did not announce: a virtual table writes its shadow tables
    /// (an FTS4 table's `_segments`, `_docsize`...) without saying so, as
    /// GRDB's observers are told too.
    func tracks(_ event: DatabaseEvent) -> Bool {
        guard let observedKinds else { return true }
        return observedKinds.contains { event.matches($0) } || !statementKinds.contains { event.matches($0) }
    }
}

/// The savepoints of the current transaction, and the events made inside
/// them, held until the outermost savepoint is released.
final class SavepointStack {
    var buffer: [(event: DatabaseEvent, observations: [StatementObservation])] = []
    /// Names (lowercased) and the buffer position where each began.
    private var savepoints: [(name: String, start: Int)] = []

    var isEmpty: Bool { savepoints.isEmpty }

    func clear() {
        buffer.removeAll()
        savepoints.removeAll()
    }

    func didBegin(_ name: String) {
        savepoints.append((name.lowercased(), buffer.count))
    }

    /// `ROLLBACK TO`: the savepoint's events are dropped, the savepoint
    /// stays.
    func didRollback(_ name: String) {
        guard let index = savepoints.lastIndex(where: { $0.name == name.lowercased() }) else { return }
        buffer.removeSubrange(savepoints[index].start...)
        savepoints.removeSubrange((index + 1)...)
    }

    /// `RELEASE`: the savepoint and the ones inside it end.
    func didRelease(_ name: String) {
        guard let index = savepoints.lastIndex(where: { $0.name == name.lowercased() }) else { return }
        savepoints.removeSubrange(index...)
    }
}
