// How a ValueObservation turns fetches into values: a reducer fetches (its
// Sendable fetcher may run on any connection), then turns what it fetched
// into the value to notify, or nil to notify nothing (`removeDuplicates`).
// A reducer is never used by two threads at once.

/// The fetching part of a ``ValueReducer``, which may run on any
/// connection.
public protocol _ValueReducerFetcher: Sendable {
    /// What the fetcher fetches.
    associatedtype Value

    /// Fetches, inside a transaction.
    func fetch(_ db: Database) throws -> Value
}

/// The requirements of ``ValueReducer``.
public protocol _ValueReducer: SendableMetatype {
    /// The fetching part of the reducer.
    associatedtype Fetcher: _ValueReducerFetcher
    /// The values the observation notifies.
    associatedtype Value: Sendable

    /// The fetcher.
    func _makeFetcher() -> Fetcher

    /// The value of a fetch, or nil to notify nothing.
    mutating func _value(_ fetched: Fetcher.Value) throws -> Value?
}

/// A type that turns the fetches of a ``ValueObservation`` into values.
public protocol ValueReducer: _ValueReducer {}

/// The reducers of ``ValueObservation``'s methods.
public enum ValueReducers {}

extension ValueReducers {
    /// The reducer of `ValueObservation.tracking(_:)`: the fetched value.
    public struct Fetch<Value: Sendable>: ValueReducer {
        /// Runs the observation's fetch.
        public struct _Fetcher: _ValueReducerFetcher {
            let fetch: @Sendable (Database) throws -> Value
            /// Runs the fetch.
            public func fetch(_ db: Database) throws -> Value { try fetch(db) }
        }

        private let fetch: @Sendable (Database) throws -> Value

        init(fetch: @escaping @Sendable (Database) throws -> Value) { self.fetch = fetch }

        /// The fetcher.
        public func _makeFetcher() -> _Fetcher { _Fetcher(fetch: fetch) }

        /// The fetched value.
        public func _value(_ fetched: Value) -> Value? { fetched }
    }

    /// The reducer of `map(_:)`.
    public struct Map<Base: _ValueReducer, Value: Sendable>: ValueReducer {
        var base: Base
        let transform: @Sendable (Base.Value) throws -> Value

        /// The base fetcher.
        public func _makeFetcher() -> Base.Fetcher { base._makeFetcher() }

        /// The transformed value of the base reducer.
        public mutating func _value(_ fetched: Base.Fetcher.Value) throws -> Value? {
            try base._value(fetched).map(transform)
        }
    }

    /// The reducer of `removeDuplicates()`: nil for a value equal to the
    /// previous one.
    public struct RemoveDuplicates<Base: _ValueReducer>: ValueReducer {
        var base: Base
        let predicate: (Base.Value, Base.Value) -> Bool
        private var previous: Base.Value?

        init(base: Base, predicate: @escaping (Base.Value, Base.Value) -> Bool) {
            self.base = base
            self.predicate = predicate
        }

        /// The base fetcher.
        public func _makeFetcher() -> Base.Fetcher { base._makeFetcher() }

        /// The value of the base reducer, unless it repeats the previous one.
        public mutating func _value(_ fetched: Base.Fetcher.Value) throws -> Base.Value? {
            guard let value = try base._value(fetched) else { return nil }
            if let previous, predicate(previous, value) { return nil }
            previous = value
            return value
        }
    }

    /// The reducer of `handleEvents` and `print`: reports fetches and values.
    public struct Trace<Base: _ValueReducer>: ValueReducer {
        /// Reports the fetch, then fetches.
        public struct _Fetcher: _ValueReducerFetcher {
            let base: Base.Fetcher
            let willFetch: @Sendable () -> Void

            /// Reports the fetch, then fetches.
            public func fetch(_ db: Database) throws -> Base.Fetcher.Value {
                willFetch()
                return try base.fetch(db)
            }
        }

        var base: Base
        let willFetch: @Sendable () -> Void
        let didReceiveValue: @Sendable (Base.Value) -> Void

        /// The base fetcher, reporting each fetch.
        public func _makeFetcher() -> _Fetcher { _Fetcher(base: base._makeFetcher(), willFetch: willFetch) }

        /// The value of the base reducer, reported.
        public mutating func _value(_ fetched: Base.Fetcher.Value) throws -> Base.Value? {
            guard let value = try base._value(fetched) else { return nil }
            didReceiveValue(value)
            return value
        }
    }
}

/// A reducer made of two closures: what to fetch, and the value of a fetch
/// (nil to notify nothing). Internal, with GRDB's name, for observations
/// built from parts.
struct AnyValueReducer<Fetched, Value: Sendable>: ValueReducer {
    struct Fetcher: _ValueReducerFetcher {
        let fetch: @Sendable (Database) throws -> Fetched
        func fetch(_ db: Database) throws -> Fetched { try fetch(db) }
    }

    private let fetch: @Sendable (Database) throws -> Fetched
    private let value: (Fetched) -> Value?

    init(fetch: @escaping @Sendable (Database) throws -> Fetched, value: @escaping (Fetched) -> Value?) {
        self.fetch = fetch
        self.value = value
    }

    func _makeFetcher() -> Fetcher { Fetcher(fetch: fetch) }

    func _value(_ fetched: Fetched) -> Value? { value(fetched) }
}
