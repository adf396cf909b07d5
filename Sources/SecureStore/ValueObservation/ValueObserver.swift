import Foundation

/// Runs a started ``ValueObservation``: a transaction observer on the
/// writer connection that fetches again after the commits that touch the
/// observed region.
///
/// Two ways to fetch: on the writer itself, right after the commit (a
/// ``DatabaseQueue``, or an observation that requires write access), or on
/// a reader of a ``DatabasePool``, without blocking the writer. On a pool,
/// one fetch runs at a time: commits made before it takes its snapshot are
/// in it; commits made after ask for one more fetch, on the same reader,
/// when it ends. So values come in commit order, may coalesce, and the last
/// one always reflects the last commit; the writer's cost per commit is a
/// lock and, now and then, a dispatch.
///
/// `region` and `isModified` are only touched on the writer's queue; the
/// reducer by whoever holds the fetch (``FetchState``); `isCancelled` and
/// `fetchState` under `lock`.
final class ValueObserver<Reducer: ValueReducer>: TransactionObserver, @unchecked Sendable {
    private let events: ValueObservationEvents
    private let trackingMode: ValueObservationTrackingMode
    private let requiresWriteAccess: Bool
    private let scheduler: any ValueObservationScheduler
    private let onChange: @Sendable (Reducer.Value) -> Void
    private let fetcher: Reducer.Fetcher
    private let writer: any DatabaseWriter
    /// Fetches on readers (a pool); nil to fetch on the writer.
    private let concurrentRead: ((@escaping @Sendable (Result<Database, any Error>) -> Void) -> Bool)?

    private var reducer: Reducer
    /// The region that triggers fetches; nil until the first fetch.
    private var region: DatabaseRegion?
    private var isModified = false
    /// The last region a reader's fetch recorded (touched by the fetch holder).
    private var regionSeenByReader: DatabaseRegion?

    private let lock = NSLock()
    private var isCancelled = false
    private var fetchState = FetchState.idle

    /// Who fetches, on a pool.
    private enum FetchState {
        /// Nobody: the next commit starts a fetch.
        case idle
        /// A reader fetch is on its way and has not taken its snapshot: it
        /// will see the next commits too.
        case scheduled
        /// A fetch has its snapshot; a commit since then sets `needsRefetch`.
        case fetching(needsRefetch: Bool)
    }

    init(observation: ValueObservation<Reducer>, writer: any DatabaseWriter,
         concurrentRead: ((@escaping @Sendable (Result<Database, any Error>) -> Void) -> Bool)?,
         scheduler: any ValueObservationScheduler, onChange: @escaping @Sendable (Reducer.Value) -> Void) {
        events = observation.events
        trackingMode = observation.trackingMode
        requiresWriteAccess = observation.requiresWriteAccess
        self.scheduler = scheduler
        self.onChange = onChange
        reducer = observation.makeReducer()
        fetcher = reducer._makeFetcher()
        self.writer = writer
        self.concurrentRead = concurrentRead
    }

    private var cancelled: Bool { lock.withLock { isCancelled } }

    func cancel() {
        let wasCancelled = lock.withLock { () -> Bool in
            defer { isCancelled = true }
            return isCancelled
        }
        guard !wasCancelled else { return }
        events.didCancel?()
        writer.asyncWriteWithoutTransaction { db in db.remove(transactionObserver: self) }
    }

    // MARK: Fetching

    /// Fetches in a transaction, read-only unless the observation requires
    /// write access (then what the fetch writes is committed, or rolled back
    /// when it throws), and records the region when the tracking mode asks
    /// for it.
    /// Fetches a value. Not cancelled with the task of the async access it
    /// may run in (after its commit): the observation is not that access.
    private func fetch(_ db: Database, recordingRegion: Bool) throws -> (Reducer.Fetcher.Value, DatabaseRegion?) {
        try db.uncancellable { try fetchUncancellable(db, recordingRegion: recordingRegion) }
    }

    private func fetchUncancellable(_ db: Database, recordingRegion: Bool) throws -> (Reducer.Fetcher.Value, DatabaseRegion?) {
        var recorded = DatabaseRegion()
        let fetchOnce = { () throws -> Reducer.Fetcher.Value in
            guard recordingRegion else { return try self.fetcher.fetch(db) }
            let fetched = try db.recordingSelection(&recorded) { try self.fetcher.fetch(db) }
            recorded = try recorded.observableRegion(db)
            return fetched
        }
        var fetched: Reducer.Fetcher.Value?
        if requiresWriteAccess {
            try db.inSavepoint {
                fetched = try fetchOnce()
                return .commit
            }
        } else {
            try db.readOnly {
                // A reader's fetch already runs in the transaction of its snapshot.
                if db.isInsideTransaction {
                    fetched = try fetchOnce()
                } else {
                    try db.inTransaction(.deferred) {
                        fetched = try fetchOnce()
                        return .commit
                    }
                }
            }
        }
        return (fetched!, recordingRegion ? recorded : nil)
    }

    /// Whether this fetch records the region.
    private var recordsRegion: Bool {
        switch trackingMode {
        case .constantRegion: return false
        case .constantRegionRecordedFromSelection: return region == nil
        case .nonConstantRegionRecordedFromSelection: return true
        }
    }

    /// The region of a constant-region observation.
    private func givenRegion(_ db: Database) throws -> DatabaseRegion? {
        guard case .constantRegion(let regions) = trackingMode else { return nil }
        return try regions.reduce(into: DatabaseRegion()) { $0.formUnion(try $1.databaseRegion(db)) }.observableRegion(db)
    }

    /// Whether a reader's fetch records the region: the first fetch, on the
    /// writer, has recorded a constant one.
    private var recordsRegionOnReader: Bool {
        if case .nonConstantRegionRecordedFromSelection = trackingMode { return true }
        return false
    }

    /// Tracks a newly recorded region; true when it changed.
    @discardableResult
    private func track(_ newRegion: DatabaseRegion?) -> Bool {
        guard let newRegion, newRegion != region else { return false }
        region = newRegion
        events.willTrackRegion?(newRegion)
        return true
    }

    /// Reduces and delivers a fetched value; reports an error and stops.
    private func deliver(_ result: Result<Reducer.Fetcher.Value, any Error>) {
        guard !cancelled else { return }
        do {
            guard let value = try reducer._value(result.get()) else { return }
            let onChange = self.onChange
            scheduler.schedule { [weak self] in
                guard let self, !self.cancelled else { return }
                onChange(value)
            }
        } catch {
            fail(error)
        }
    }

    func fail(_ error: any Error) {
        let wasCancelled = lock.withLock { () -> Bool in
            defer { isCancelled = true }
            return isCancelled
        }
        guard !wasCancelled else { return }
        let didFail = events.didFail
        scheduler.schedule { didFail?(error) }
        writer.asyncWriteWithoutTransaction { db in db.remove(transactionObserver: self) }
    }

    // MARK: Starting

    /// The first fetch, then the observer is registered, on the writer's
    /// queue. With an immediate scheduler the first value is returned, for
    /// the caller to deliver on its own thread; else it is scheduled.
    func start(in db: Database, immediate: Bool) -> (@Sendable () -> Void)? {
        let result: Result<Reducer.Fetcher.Value, any Error>
        do {
            if let given = try givenRegion(db) { track(given) }
            let (fetched, recorded) = try fetch(db, recordingRegion: recordsRegion)
            track(recorded)
            regionSeenByReader = recorded
            db.add(transactionObserver: self, extent: .observerLifetime)
            result = .success(fetched)
        } catch {
            result = .failure(error)
        }
        guard immediate else {
            deliver(result)
            return nil
        }
        do {
            guard let value = try reducer._value(result.get()) else { return nil }
            let onChange = self.onChange
            return { onChange(value) }
        } catch {
            let didFail = events.didFail
            lock.withLock { isCancelled = true }
            db.remove(transactionObserver: self)
            return { didFail?(error) }
        }
    }

    /// Starts the observation on a writer connection: now and on the
    /// caller's thread for an immediate scheduler, else asynchronously.
    static func start(
        _ observation: ValueObservation<Reducer>, writer: any DatabaseWriter, serialized: SerializedDatabase,
        concurrentRead: ((@escaping @Sendable (Result<Database, any Error>) -> Void) -> Bool)?,
        scheduler: some ValueObservationScheduler, onChange: @escaping @Sendable (Reducer.Value) -> Void
    ) -> AnyDatabaseCancellable {
        if writer.configuration.readonly {
            return writer._addReadOnly(observation: observation, scheduling: scheduler, onChange: onChange)
        }
        let observer = ValueObserver(observation: observation, writer: writer, concurrentRead: concurrentRead,
                                     scheduler: scheduler, onChange: onChange)
        if scheduler.immediateInitialValue() {
            do {
                try serialized.sync { db in observer.start(in: db, immediate: true) }?()
            } catch {
                observation.events.didFail?(error)
            }
        } else {
            serialized.async { result in
                switch result {
                case .success(let db): _ = observer.start(in: db, immediate: false)
                case .failure(let error): observer.fail(error)
                }
            }
        }
        return AnyDatabaseCancellable(cancel: observer.cancel)
    }

    // MARK: TransactionObserver

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        region.map { $0.isModified(byEventsOfKind: eventKind) } ?? true
    }

    func databaseDidChange() {
        isModified = true
        stopObservingDatabaseChangesUntilNextTransaction()
    }

    func databaseDidChange(with event: DatabaseEvent) {
        if region.map({ $0.isModified(by: event) }) ?? true {
            isModified = true
            stopObservingDatabaseChangesUntilNextTransaction()
        }
    }

    func databaseDidCommit(_ db: Database) {
        guard isModified, !cancelled else { return }
        isModified = false
        events.databaseDidChange?()
        fetchAfterCommit(db)
    }

    func databaseDidRollback(_ db: Database) {
        isModified = false
    }

    /// A fetch that sees the commit just made, on the writer's queue.
    private func fetchAfterCommit(_ db: Database) {
        guard let concurrentRead else {
            fetchOnWriter(db)
            return
        }
        let mustStart = lock.withLock { () -> Bool in
            switch fetchState {
            case .idle:
                fetchState = .scheduled
                return true
            case .scheduled:
                return false
            case .fetching:
                fetchState = .fetching(needsRefetch: true)
                return false
            }
        }
        guard mustStart else { return }
        let started = concurrentRead { [self] result in fetchOnReader(result) }
        if !started {
            // A barrier write holds the readers: this commit is read here.
            lock.withLock { fetchState = .idle }
            fetchOnWriter(db)
        }
    }

    private func fetchOnWriter(_ db: Database) {
        let result = Result { try fetch(db, recordingRegion: recordsRegion) }
        if case .success(let (_, recorded)) = result { track(recorded) }
        deliver(result.map(\.0))
    }

    /// The reader's side: fetches until no commit came after its last
    /// snapshot, delivering each value before the next fetch starts.
    private func fetchOnReader(_ result: Result<Database, any Error>) {
        while true {
            lock.withLock { fetchState = .fetching(needsRefetch: false) }
            let fetched = result.flatMap { db in Result { try fetch(db, recordingRegion: recordsRegionOnReader) } }
            if case .success(let (_, recorded?)) = fetched, recorded != regionSeenByReader {
                // The region is read on the writer's queue: update it there,
                // and fetch again if it changed (a commit in between may touch it).
                regionSeenByReader = recorded
                writer.asyncWriteWithoutTransaction { [self] db in
                    if track(recorded), !cancelled { fetchAfterCommit(db) }
                }
            }
            deliver(fetched.map(\.0))
            let again = lock.withLock { () -> Bool in
                if case .fetching(needsRefetch: true) = fetchState, !isCancelled { return true }
                fetchState = .idle
                return false
            }
            if !again { return }
        }
    }
}

extension DatabaseReader {
    /// Starts an observation that only sees what the database holds now:
    /// read-only connections have no writer to observe.
    func _addReadOnly<Reducer: ValueReducer>(
        observation: ValueObservation<Reducer>, scheduling scheduler: some ValueObservationScheduler,
        onChange: @escaping @Sendable (Reducer.Value) -> Void
    ) -> AnyDatabaseCancellable {
        let fetch = { (db: Database) throws -> Reducer.Value? in
            var reducer = observation.makeReducer()
            return try reducer._value(reducer._makeFetcher().fetch(db))
        }
        let didFail = observation.events.didFail
        if scheduler.immediateInitialValue() {
            do {
                if let value = try unsafeReentrantRead({ db in try db.readOnly { try fetch(db) } }) { onChange(value) }
            } catch {
                didFail?(error)
            }
        } else {
            let result = Result { try unsafeReentrantRead { db in try db.readOnly { try fetch(db) } } }
            scheduler.schedule {
                switch result {
                case .success(let value?): onChange(value)
                case .success(nil): break
                case .failure(let error): didFail?(error)
                }
            }
        }
        return AnyDatabaseCancellable(cancel: { observation.events.didCancel?() })
    }
}
