extension ValueObservation {
    /// The values of the observation, as an asynchronous sequence. The
    /// observation stops when the iteration ends or its task is cancelled.
    ///
    /// ```swift
    /// for try await players in ValueObservation.tracking(Player.fetchAll).values(in: dbQueue) {
    ///     print(players)
    /// }
    /// ```
    public func values(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationScheduler = .task,
        bufferingPolicy: AsyncValueObservation<Reducer.Value>.BufferingPolicy = .unbounded
    ) -> AsyncValueObservation<Reducer.Value> {
        AsyncValueObservation(bufferingPolicy: bufferingPolicy) { onError, onChange in
            self.start(in: reader, scheduling: scheduler, onError: onError, onChange: onChange)
        }
    }
}

/// The values of a ``ValueObservation``, as an asynchronous sequence.
public struct AsyncValueObservation<Element: Sendable>: AsyncSequence, Sendable {
    /// How values are kept while the iteration does not ask for them.
    public typealias BufferingPolicy = AsyncThrowingStream<Element, any Error>.Continuation.BufferingPolicy

    let bufferingPolicy: BufferingPolicy
    let start: @Sendable (_ onError: @escaping @Sendable (any Error) -> Void,
                          _ onChange: @escaping @Sendable (Element) -> Void) -> AnyDatabaseCancellable

    /// An iterator that starts the observation; releasing it stops it.
    public func makeAsyncIterator() -> Iterator {
        var cancellable: AnyDatabaseCancellable?
        let stream = AsyncThrowingStream(Element.self, bufferingPolicy: bufferingPolicy) { continuation in
            let started = start({ continuation.finish(throwing: $0) }, { continuation.yield($0) })
            continuation.onTermination = { _ in started.cancel() }
            cancellable = started
        }
        guard let cancellable else { preconditionFailure("the stream starts the observation at once") }
        return Iterator(iterator: stream.makeAsyncIterator(), cancellable: cancellable)
    }

    /// Iterates the values; keeps the observation alive.
    public struct Iterator: AsyncIteratorProtocol {
        var iterator: AsyncThrowingStream<Element, any Error>.AsyncIterator
        let cancellable: AnyDatabaseCancellable

        /// The next value.
        public mutating func next() async throws -> Element? { try await iterator.next() }
    }
}
