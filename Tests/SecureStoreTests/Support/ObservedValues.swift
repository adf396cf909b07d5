import Foundation

/// Collects the values of an observation, and waits for them.
final class ObservedValues<T: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var values: [T] = []
    private var errors: [any Error] = []

    func append(_ value: T) { condition.withLock { values.append(value); condition.broadcast() } }
    func fail(_ error: any Error) { condition.withLock { errors.append(error); condition.broadcast() } }

    /// Waits until `predicate` holds for the values so far.
    func wait(timeout: TimeInterval = 10, until predicate: ([T]) -> Bool) -> [T] {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(values), errors.isEmpty, condition.wait(until: deadline) {}
        return values
    }

    var all: [T] { condition.withLock { values } }
    var failures: [any Error] { condition.withLock { errors } }
}
