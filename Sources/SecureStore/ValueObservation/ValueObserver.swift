import Foundation

/// Runs a started ``ValueObservation``: a transaction observer on the
/// writer connection that fetches again after the commits that touch the
/// observed region.
///
/// Two ways to fetch: on the writer itself, right after the commit (a
/// ``DatabaseQueue``, or an observation that requires write access), or on
/// a reader of a ``DatabasePool``, whose snapshot the writer takes before
/// it goes on (the fetch sees exactly that commit, and does not block the
/// next writes). Values are reduced and delivered in commit order.
///
/// State is only touched on the writer's queue, except the reducer (on the
/// writer for writer fetches, else under `reduceLock`, in commit order) and
/// `isCancelled` (under `lock`).
final class ValueObserver<Reducer: ValueReducer>: TransactionObserver, @unchecked Sendable {
    private let events: ValueObservationEvents
    private let trackingMode: ValueObservationTrackingMode
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

    private let lock = NSLock()
    private var isCancelled = false
    /// Orders the reductions of concurrent fetches by commit.
    private let reduceLock = NSCondition()
    private var nextTicket = 0
    private var servedTicket = 0

    init(observation: ValueObservation<Reducer>, writer: any DatabaseWriter,
         concurrentRead: ((@escaping @Sendable (Result<Database, any Error>) -> Void) -> Bool)?,
         scheduler: any ValueObservationScheduler, onChange: @escaping @Sendable (Reducer.Value) -> Void) {
        events = observation.events
        trackingMode = observation.trackingMode
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

    /// Fetches in a read-only transaction, and records the region when the
    /// tracking mode asks for it.
    private func fetch(_ db: Database, recordingRegion: Bool) throws -> (Reducer.Fetcher.Value, DatabaseRegion?) {
        try db.readOnly {
            var fetched: Reducer.Fetcher.Value?
            var recorded = DatabaseRegion()
            let body = {
                if recordingRegion {
                    fetched = try db.recordingSelection(&recorded) { try self.fetcher.fetch(db) }
                    recorded = try recorded.observableRegion(db)
                } else {
                    fetched = try self.fetcher.fetch(db)
                }
            }
            // A reader's fetch already runs in the transaction of its snapshot.
            if db.isInsideTransaction {
                try body()
            } else {
                try db.inTransaction(.deferred) {
                    try body()
                    return .commit
                }
            }
            return (fetched!, recordingRegion ? recorded : nil)
        }
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

    private func track(_ newRegion: DatabaseRegion?) {
        guard let newRegion, newRegion != region else { return }
        region = newRegion
        events.willTrackRegion?(newRegion)
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
        if let concurrentRead, fetchConcurrently(concurrentRead) { return }
        let result = Result { try fetch(db, recordingRegion: recordsRegion) }
        if case .success(let (_, recorded)) = result { track(recorded) }
        reduceInOrder { deliver(result.map(\.0)) }
    }

    func databaseDidRollback(_ db: Database) {
        isModified = false
    }

    /// A fetch on a reader, started now (its snapshot is this commit); the
    /// reduction waits for the previous fetches. False when no reader can
    /// start (a barrier write holds them).
    private func fetchConcurrently(_ concurrentRead: (@escaping @Sendable (Result<Database, any Error>) -> Void) -> Bool) -> Bool {
        let ticket = nextTicket
        let recording = recordsRegion
        let started = concurrentRead { [self] result in
            let fetched = result.flatMap { db in Result { try fetch(db, recordingRegion: recording) } }
            reduceInOrder(ticket: ticket) {
                if case .success(let (_, recorded)) = fetched, let recorded {
                    // The region is read on the writer's queue: update it there.
                    writer.asyncWriteWithoutTransaction { _ in self.track(recorded) }
                }
                deliver(fetched.map(\.0))
            }
        }
        if started { nextTicket += 1 }
        return started
    }

    /// Runs `body` after the reductions of the fetches started before it.
    private func reduceInOrder(ticket: Int? = nil, _ body: () -> Void) {
        reduceLock.lock()
        let ticket = ticket ?? { defer { nextTicket += 1 }; return nextTicket }()
        while servedTicket != ticket { reduceLock.wait() }
        body()
        servedTicket += 1
        reduceLock.broadcast()
        reduceLock.unlock()
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
