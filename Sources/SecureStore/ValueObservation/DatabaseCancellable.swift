import Foundation

/// Something that can be cancelled: an observation.
public protocol DatabaseCancellable: Sendable {
    /// Stops; no value is delivered after `cancel` returns on the
    /// scheduler's queue.
    func cancel()
}

/// A cancellable that cancels when it is released.
///
/// ```swift
/// let cancellable = observation.start(in: dbQueue, onError: { _ in }, onChange: { print($0) })
/// cancellable.cancel()   // or release it
/// ```
public final class AnyDatabaseCancellable: DatabaseCancellable, Hashable {
    private let lock = NSLock()
    nonisolated(unsafe) private var onCancel: (@Sendable () -> Void)?

    /// A cancellable that runs `cancel` once.
    public init(cancel: @escaping @Sendable () -> Void) { onCancel = cancel }

    /// Wraps a cancellable.
    public convenience init(_ cancellable: some DatabaseCancellable) {
        self.init(cancel: cancellable.cancel)
    }

    deinit { cancel() }

    /// Cancels, once.
    public func cancel() {
        let action = lock.withLock { () -> (@Sendable () -> Void)? in
            defer { onCancel = nil }
            return onCancel
        }
        action?()
    }

    /// Keeps the cancellable in a set, as Combine's `store(in:)` does.
    public func store(in set: inout Set<AnyDatabaseCancellable>) { set.insert(self) }

    /// Identity.
    public static func == (lhs: AnyDatabaseCancellable, rhs: AnyDatabaseCancellable) -> Bool { lhs === rhs }

    /// Identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
