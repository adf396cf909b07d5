import Foundation

/// How long a ``SharedValueObservation`` keeps observing the database.
public enum SharedValueObservationExtent: Sendable {
    /// From its first subscriber until the shared observation itself is
    /// released; an error is delivered to the later subscribers too.
    case observationLifetime
    /// While it has subscribers: the last one to cancel stops it, the next
    /// one starts it again (and an error stops it).
    case whileObserved
}

extension ValueObservation {
    /// One observation of the database for many subscribers: each of
    /// them gets the values of a single fetch, and a late subscriber gets
    /// the last value at once.
    ///
    /// ```swift
    /// let players = ValueObservation
    ///     .tracking { db in try Player.fetchAll(db) }
    ///     .shared(in: dbPool)
    /// let first = players.start(onError: { _ in }, onChange: { print("list", $0) })
    /// let second = players.start(onError: { _ in }, onChange: { print("count", $0.count) })
    /// ```
    public func shared(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationScheduler = .async(onQueue: .main),
        extent: SharedValueObservationExtent = .whileObserved
    ) -> SharedValueObservation<Reducer.Value> {
        SharedValueObservation(scheduler: scheduler, extent: extent) { onError, onChange in
            self.start(in: reader, scheduling: scheduler, onError: onError, onChange: onChange)
        }
    }
}

/// A ``ValueObservation`` shared by its subscribers (see
/// ``ValueObservation/shared(in:scheduling:extent:)``).
///
/// ## Topics
///
/// ### Subscribing
///
/// - ``start(onError:onChange:)``
/// - ``values(bufferingPolicy:)``
public final class SharedValueObservation<Element: Sendable>: @unchecked Sendable {
    // @unchecked: every stored var is read and written with `lock` held. It
    // is recursive because a scheduler such as `.immediate` delivers the
    // first value from inside `start`, which holds it.
    private let lock = NSRecursiveLock()
    private let scheduler: any ValueObservationScheduler
    private let extent: SharedValueObservationExtent
    private let startObservation: @Sendable (
        _ onError: @escaping @Sendable (any Error) -> Void,
        _ onChange: @escaping @Sendable (Element) -> Void
    ) -> AnyDatabaseCancellable
    private var subscribers: [Subscriber] = []
    /// The subscribers that got a value or an error already: a late
    /// subscriber's first value, scheduled, must not arrive after a newer one.
    private var servedSubscribers: Set<ObjectIdentifier> = []
    private var observation: AnyDatabaseCancellable?
    private var isObserving = false
    private var lastResult: Result<Element, any Error>?

    private final class Subscriber: Sendable {
        let onError: @Sendable (any Error) -> Void
        let onChange: @Sendable (Element) -> Void
        init(onError: @escaping @Sendable (any Error) -> Void, onChange: @escaping @Sendable (Element) -> Void) {
            self.onError = onError
            self.onChange = onChange
        }
    }

    init(
        scheduler: some ValueObservationScheduler,
        extent: SharedValueObservationExtent,
        start: @escaping @Sendable (
            _ onError: @escaping @Sendable (any Error) -> Void,
            _ onChange: @escaping @Sendable (Element) -> Void
        ) -> AnyDatabaseCancellable
    ) {
        self.scheduler = scheduler
        self.extent = extent
        self.startObservation = start
    }

    /// Subscribes: the first subscriber starts the observation, the others
    /// get the last value (or error) right away, then every new value.
    /// Cancel the result (or release it) to unsubscribe.
    @preconcurrency public func start(
        onError: @escaping @Sendable (any Error) -> Void,
        onChange: @escaping @Sendable (Element) -> Void
    ) -> AnyDatabaseCancellable {
        lock.withLock {
            let subscriber = Subscriber(onError: onError, onChange: onChange)
            subscribers.append(subscriber)
            if !isObserving {
                isObserving = true
                observation = startObservation(
                    { [weak self] error in self?.deliver(.failure(error)) },
                    { [weak self] value in self?.deliver(.success(value)) })
            } else if lastResult != nil {
                scheduler.scheduleInitial { [self] in
                    lock.withLock {
                        // The last value when it runs, unless a newer one
                        // reached the subscriber first.
                        guard let lastResult, servedSubscribers.insert(ObjectIdentifier(subscriber)).inserted else { return }
                        switch lastResult {
                        case .success(let value): subscriber.onChange(value)
                        case .failure(let error): subscriber.onError(error)
                        }
                    }
                }
            }
            return AnyDatabaseCancellable { [self] in unsubscribe(subscriber) }
        }
    }

    /// The values, as an asynchronous sequence of one subscriber.
    public func values(
        bufferingPolicy: AsyncValueObservation<Element>.BufferingPolicy = .unbounded
    ) -> AsyncValueObservation<Element> {
        AsyncValueObservation(bufferingPolicy: bufferingPolicy) { onError, onChange in
            self.start(onError: onError, onChange: onChange)
        }
    }

    private func deliver(_ result: Result<Element, any Error>) {
        lock.withLock {
            switch result {
            case .success(let value):
                lastResult = result
                for subscriber in subscribers {
                    servedSubscribers.insert(ObjectIdentifier(subscriber))
                    subscriber.onChange(value)
                }
            case .failure(let error):
                // An error ends every subscription.
                let failed = subscribers
                subscribers = []
                servedSubscribers = []
                if extent == .whileObserved { stop() } else { lastResult = result }
                for subscriber in failed { subscriber.onError(error) }
            }
        }
    }

    private func unsubscribe(_ subscriber: Subscriber) {
        lock.withLock {
            subscribers.removeAll { $0 === subscriber }
            servedSubscribers.remove(ObjectIdentifier(subscriber))
            if subscribers.isEmpty && extent == .whileObserved { stop() }
        }
    }

    /// Forgets the observation (releasing it cancels it) and its last value.
    private func stop() {
        isObserving = false
        observation = nil
        lastResult = nil
    }
}
