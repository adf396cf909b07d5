import Foundation

/// Tells, after each transaction, whether it changed a region of the
/// database: the region of requests, tables, or regions.
///
/// ```swift
/// let observation = DatabaseRegionObservation(tracking: Player.all())
/// let cancellable = observation.start(in: dbQueue) { error in
///     // handle error
/// } onChange: { (db: Database) in
///     print("Players have changed")
/// }
/// ```
///
/// `onChange` runs on the writer's queue right after the commit, with the
/// connection: what it reads is exactly the committed state.
public struct DatabaseRegionObservation: Sendable {
    let observedRegion: @Sendable (Database) throws -> DatabaseRegion

    /// An observation of regions.
    public init(tracking regions: any DatabaseRegionConvertible...) {
        self.init(tracking: regions)
    }

    /// An observation of regions.
    public init(tracking regions: [any DatabaseRegionConvertible]) {
        observedRegion = { db in try regions.reduce(into: DatabaseRegion()) { $0.formUnion(try $1.databaseRegion(db)) } }
    }

    /// Starts the observation; it stops when the cancellable is cancelled
    /// or released.
    @preconcurrency public func start(
        in writer: any DatabaseWriter,
        onError: @escaping @Sendable (any Error) -> Void,
        onChange: @escaping @Sendable (Database) -> Void
    ) -> AnyDatabaseCancellable {
        let observer = RegionObserver(onChange: onChange)
        do {
            try writer.unsafeReentrantWrite { db in
                observer.region = try observedRegion(db).observableRegion(db)
                db.add(transactionObserver: observer, extent: .observerLifetime)
            }
        } catch {
            onError(error)
        }
        // The connection holds the observer weakly: releasing it stops
        // the observation without another access to the writer.
        return AnyDatabaseCancellable(cancel: { observer.cancel() })
    }
}

/// The transaction observer of a ``DatabaseRegionObservation``.
private final class RegionObserver: TransactionObserver, @unchecked Sendable {
    // @unchecked: `region` and `isChanged` are only used on the writer's
    // queue; `isCancelled` under `lock`.
    var region = DatabaseRegion()
    private var isChanged = false
    private let onChange: @Sendable (Database) -> Void
    private let lock = NSLock()
    private var isCancelled = false

    init(onChange: @escaping @Sendable (Database) -> Void) { self.onChange = onChange }

    func cancel() { lock.withLock { isCancelled = true } }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { region.isModified(byEventsOfKind: eventKind) }

    func databaseDidChange() {
        isChanged = true
        stopObservingDatabaseChangesUntilNextTransaction()
    }

    func databaseDidChange(with event: DatabaseEvent) {
        guard region.isModified(by: event) else { return }
        isChanged = true
        stopObservingDatabaseChangesUntilNextTransaction()
    }

    func databaseDidCommit(_ db: Database) {
        guard isChanged else { return }
        isChanged = false
        if !lock.withLock({ isCancelled }) { onChange(db) }
    }

    func databaseDidRollback(_ db: Database) { isChanged = false }
}
