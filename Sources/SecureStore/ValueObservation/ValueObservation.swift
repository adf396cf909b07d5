import Foundation

/// Keeps a value in step with the database: it fetches the value, then
/// fetches it again after each transaction that changes what it read.
///
/// ```swift
/// let observation = ValueObservation.tracking { db in
///     try Player.fetchAll(db)
/// }
/// let cancellable = observation.start(in: dbQueue) { error in
///     // handle error
/// } onChange: { (players: [Player]) in
///     print("Fresh players: \(players)")
/// }
/// ```
///
/// What the fetch reads is recorded while it runs (SQLite's authorizer
/// reports the tables, columns and rows of each statement), and only the
/// commits that touch that region trigger a new fetch. On a
/// ``DatabasePool`` fetches run on readers, after the writer has taken
/// their snapshot: writes are not blocked by fetches, and no committed
/// change is missed or seen out of order. Values may coalesce, and the
/// first value may be notified twice on a pool (use ``removeDuplicates()``).
///
/// ## Topics
///
/// ### Creating
///
/// - ``tracking(_:)``
/// - ``trackingConstantRegion(_:)``
/// - ``tracking(region:fetch:)``
///
/// ### Starting
///
/// - ``start(in:scheduling:onError:onChange:)-(_,ValueObservationMainActorScheduler,_,_)``
/// - ``values(in:scheduling:bufferingPolicy:)``
/// - ``shared(in:scheduling:extent:)``
///
/// ### Transforming
///
/// - ``map(_:)``
/// - ``removeDuplicates()``
/// - ``handleEvents(willStart:willFetch:willTrackRegion:databaseDidChange:didReceiveValue:didFail:didCancel:)``
/// - ``print(_:to:)``
public struct ValueObservation<Reducer: ValueReducer>: Sendable {
    var events = ValueObservationEvents()

    /// True to fetch on the writer connection of a pool, in a write
    /// transaction (to read temporary tables, for example).
    public var requiresWriteAccess = false

    var trackingMode: ValueObservationTrackingMode
    var makeReducer: @Sendable () -> Reducer

    func mapReducer<R>(_ transform: @escaping @Sendable (Reducer) -> R) -> ValueObservation<R> {
        let makeReducer = self.makeReducer
        return ValueObservation<R>(events: events, requiresWriteAccess: requiresWriteAccess,
                                   trackingMode: trackingMode, makeReducer: { transform(makeReducer()) })
    }
}

/// How an observation learns its region.
enum ValueObservationTrackingMode: Sendable {
    /// Given regions.
    case constantRegion([any DatabaseRegionConvertible])
    /// Recorded from the first fetch.
    case constantRegionRecordedFromSelection
    /// Recorded from each fetch.
    case nonConstantRegionRecordedFromSelection
}

/// The callbacks of `handleEvents`.
struct ValueObservationEvents: Refinable, Sendable {
    var willStart: (@Sendable () -> Void)?
    var willTrackRegion: (@Sendable (DatabaseRegion) -> Void)?
    var databaseDidChange: (@Sendable () -> Void)?
    var didFail: (@Sendable (any Error) -> Void)?
    var didCancel: (@Sendable () -> Void)?
}

/// Two optional callbacks in a row.
func concat<T>(_ first: (@Sendable (T) -> Void)?, _ second: (@Sendable (T) -> Void)?) -> (@Sendable (T) -> Void)? {
    guard let first else { return second }
    guard let second else { return first }
    return { first($0); second($0) }
}

/// Two optional callbacks in a row.
func concat(_ first: (@Sendable () -> Void)?, _ second: (@Sendable () -> Void)?) -> (@Sendable () -> Void)? {
    guard let first else { return second }
    guard let second else { return first }
    return { first(); second() }
}

extension ValueObservation: Refinable {
    // MARK: Creating

    /// An observation of the value `fetch` returns; the region is recorded
    /// anew at each fetch.
    @preconcurrency public static func tracking<Value>(_ fetch: @escaping @Sendable (Database) throws -> Value)
    -> ValueObservation<ValueReducers.Fetch<Value>> where Reducer == ValueReducers.Fetch<Value> {
        ValueObservation(trackingMode: .nonConstantRegionRecordedFromSelection, makeReducer: { ValueReducers.Fetch(fetch: fetch) })
    }

    /// An observation whose fetch always reads the same region: it is
    /// recorded once, from the first fetch.
    @preconcurrency public static func trackingConstantRegion<Value>(_ fetch: @escaping @Sendable (Database) throws -> Value)
    -> ValueObservation<ValueReducers.Fetch<Value>> where Reducer == ValueReducers.Fetch<Value> {
        ValueObservation(trackingMode: .constantRegionRecordedFromSelection, makeReducer: { ValueReducers.Fetch(fetch: fetch) })
    }

    /// An observation of regions given explicitly: changes of `region`
    /// trigger `fetch`.
    @preconcurrency public static func tracking<Value>(
        region: any DatabaseRegionConvertible..., fetch: @escaping @Sendable (Database) throws -> Value
    ) -> ValueObservation<ValueReducers.Fetch<Value>> where Reducer == ValueReducers.Fetch<Value> {
        tracking(regions: region, fetch: fetch)
    }

    /// An observation of regions given explicitly.
    @preconcurrency public static func tracking<Value>(
        regions: [any DatabaseRegionConvertible], fetch: @escaping @Sendable (Database) throws -> Value
    ) -> ValueObservation<ValueReducers.Fetch<Value>> where Reducer == ValueReducers.Fetch<Value> {
        ValueObservation(trackingMode: .constantRegion(regions), makeReducer: { ValueReducers.Fetch(fetch: fetch) })
    }

    // MARK: Starting

    /// Starts the observation; values are delivered by the scheduler
    /// (`.async(onQueue:)`, `.immediate`, `.task`...).
    ///
    /// The observation stops when the returned cancellable is cancelled or
    /// released, or after an error.
    @preconcurrency public func start(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationScheduler,
        onError: @escaping @Sendable (any Error) -> Void,
        onChange: @escaping @Sendable (Reducer.Value) -> Void
    ) -> AnyDatabaseCancellable {
        let observation = with { $0.events.didFail = concat($0.events.didFail, onError) }
        observation.events.willStart?()
        return reader._add(observation: observation, scheduling: scheduler, onChange: onChange)
    }

    /// Starts the observation from the main actor; values are delivered on
    /// the main actor (`.immediate`: the first one before `start` returns).
    @preconcurrency @MainActor public func start(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationMainActorScheduler = .mainActor,
        onError: @escaping @MainActor (any Error) -> Void,
        onChange: @escaping @MainActor (Reducer.Value) -> Void
    ) -> AnyDatabaseCancellable {
        let regular: any ValueObservationScheduler = scheduler
        return start(
            in: reader, scheduling: AnyScheduler(regular),
            onError: { error in MainActor.assumeIsolated { onError(error) } },
            onChange: { value in MainActor.assumeIsolated { onChange(value) } })
    }

    // MARK: Transforming

    /// The observation, reporting its steps to the given callbacks.
    public func handleEvents(
        willStart: (@Sendable () -> Void)? = nil,
        willFetch: (@Sendable () -> Void)? = nil,
        willTrackRegion: (@Sendable (DatabaseRegion) -> Void)? = nil,
        databaseDidChange: (@Sendable () -> Void)? = nil,
        didReceiveValue: (@Sendable (Reducer.Value) -> Void)? = nil,
        didFail: (@Sendable (any Error) -> Void)? = nil,
        didCancel: (@Sendable () -> Void)? = nil
    ) -> ValueObservation<ValueReducers.Trace<Reducer>> {
        mapReducer { ValueReducers.Trace(base: $0, willFetch: willFetch ?? {}, didReceiveValue: didReceiveValue ?? { _ in }) }
            .with {
                $0.events.willStart = concat($0.events.willStart, willStart)
                $0.events.willTrackRegion = concat($0.events.willTrackRegion, willTrackRegion)
                $0.events.databaseDidChange = concat($0.events.databaseDidChange, databaseDidChange)
                $0.events.didFail = concat($0.events.didFail, didFail)
                $0.events.didCancel = concat($0.events.didCancel, didCancel)
            }
    }

    /// The observation, printing its steps (to standard output, or to
    /// `stream`).
    public func print(_ prefix: String = "", to stream: (any TextOutputStream & Sendable)? = nil)
    -> ValueObservation<ValueReducers.Trace<Reducer>> {
        let output = PrintOutput(stream)
        let prefix = prefix.isEmpty ? "" : "\(prefix): "
        return handleEvents(
            willStart: { output.write("\(prefix)start") },
            willFetch: { output.write("\(prefix)fetch") },
            willTrackRegion: { output.write("\(prefix)tracked region: \($0)") },
            databaseDidChange: { output.write("\(prefix)database did change") },
            didReceiveValue: { output.write("\(prefix)value: \($0)") },
            didFail: { output.write("\(prefix)failure: \($0)") },
            didCancel: { output.write("\(prefix)cancel") })
    }

    /// The observation of transformed values.
    public func map<T>(_ transform: @escaping @Sendable (Reducer.Value) throws -> T) -> ValueObservation<ValueReducers.Map<Reducer, T>> {
        mapReducer { ValueReducers.Map(base: $0, transform: transform) }
    }

    /// The observation, without values equal to the previous one.
    public func removeDuplicates(by predicate: @escaping @Sendable (Reducer.Value, Reducer.Value) -> Bool)
    -> ValueObservation<ValueReducers.RemoveDuplicates<Reducer>> {
        mapReducer { ValueReducers.RemoveDuplicates(base: $0, predicate: predicate) }
    }
}

extension ValueObservation where Reducer.Value: Equatable {
    /// The observation, without values equal to the previous one.
    public func removeDuplicates() -> ValueObservation<ValueReducers.RemoveDuplicates<Reducer>> {
        removeDuplicates(by: ==)
    }
}

/// A scheduler as an existential, for the main-actor `start`.
private struct AnyScheduler: ValueObservationScheduler {
    let base: any ValueObservationScheduler
    init(_ base: any ValueObservationScheduler) { self.base = base }
    func immediateInitialValue() -> Bool { base.immediateInitialValue() }
    func schedule(_ action: @escaping @Sendable () -> Void) { base.schedule(action) }
}

/// Where `print` writes, one line at a time.
private final class PrintOutput: @unchecked Sendable {
    // @unchecked: `stream` is only used under `lock`.
    private var stream: (any TextOutputStream & Sendable)?
    private let lock = NSLock()

    init(_ stream: (any TextOutputStream & Sendable)?) { self.stream = stream }

    func write(_ line: String) {
        lock.withLock {
            if stream == nil { Swift.print(line) } else { stream?.write(line) }
        }
    }
}
