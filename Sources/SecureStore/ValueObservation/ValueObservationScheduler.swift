import Dispatch
import Foundation

/// Where and when a ``ValueObservation`` delivers its values.
///
/// ```swift
/// observation.start(in: dbQueue, scheduling: .async(onQueue: .main), onError: { _ in }, onChange: { _ in })
/// observation.start(in: dbQueue, scheduling: .immediate, onError: { _ in }, onChange: { _ in })
/// ```
public protocol ValueObservationScheduler: Sendable {
    /// True when the first value is delivered synchronously, from `start`.
    func immediateInitialValue() -> Bool

    /// Delivers a value.
    func schedule(_ action: @escaping @Sendable () -> Void)
}

extension ValueObservationScheduler {
    func scheduleInitial(_ action: @escaping @Sendable () -> Void) {
        if immediateInitialValue() { action() } else { schedule(action) }
    }
}

/// A scheduler that delivers values on the main actor.
public protocol ValueObservationMainActorScheduler: ValueObservationScheduler {
    /// Delivers a value on the main actor.
    func scheduleOnMainActor(_ action: @escaping @MainActor () -> Void)
}

extension ValueObservationMainActorScheduler {
    /// Delivers a value on the main actor, from the main dispatch queue.
    public func scheduleOnMainActor(_ action: @escaping @MainActor () -> Void) {
        DispatchQueue.main.async { MainActor.assumeIsolated(action) }
    }

    /// Delivers a value on the main actor.
    public func schedule(_ action: @escaping @Sendable () -> Void) {
        scheduleOnMainActor(action)
    }
}

/// Delivers every value asynchronously on a dispatch queue.
public struct AsyncValueObservationScheduler: ValueObservationScheduler {
    let queue: DispatchQueue

    /// A scheduler of a queue.
    public init(queue: DispatchQueue) { self.queue = queue }

    /// False: the first value comes asynchronously too.
    public func immediateInitialValue() -> Bool { false }

    /// Delivers on the queue.
    public func schedule(_ action: @escaping @Sendable () -> Void) { queue.async(execute: action) }
}

extension ValueObservationScheduler where Self == AsyncValueObservationScheduler {
    /// Every value, asynchronously on `queue`.
    public static func async(onQueue queue: DispatchQueue) -> AsyncValueObservationScheduler {
        AsyncValueObservationScheduler(queue: queue)
    }
}

/// Delivers the first value synchronously from `start`, and the next ones
/// on the main actor. `start` must be called on the main actor.
///
/// The check is made on the main actor's isolation, not on the thread:
/// `@MainActor` code (a Swift Testing test on Linux, for example) may run
/// on the main dispatch queue without being the main thread.
public struct ImmediateValueObservationScheduler: ValueObservationMainActorScheduler {
    /// A scheduler.
    public init() {}

    /// True; stops the program when not called on the main actor.
    public func immediateInitialValue() -> Bool {
        precondition(MainActorCheck.isOnMainActor, "ValueObservation must be started from the main actor.")
        return true
    }
}

extension ValueObservationScheduler where Self == ImmediateValueObservationScheduler {
    /// The first value synchronously, the next ones on the main actor.
    public static var immediate: ImmediateValueObservationScheduler { ImmediateValueObservationScheduler() }
}

extension ValueObservationMainActorScheduler where Self == ImmediateValueObservationScheduler {
    /// The first value synchronously, the next ones on the main actor.
    public static var immediate: ImmediateValueObservationScheduler { ImmediateValueObservationScheduler() }
}

/// Delivers every value asynchronously on the main actor.
public final class DelayedMainActorValueObservationScheduler: ValueObservationMainActorScheduler {
    /// False.
    public func immediateInitialValue() -> Bool { false }
}

extension ValueObservationScheduler where Self == DelayedMainActorValueObservationScheduler {
    /// Every value, asynchronously on the main actor.
    public static var mainActor: DelayedMainActorValueObservationScheduler { DelayedMainActorValueObservationScheduler() }
}

extension ValueObservationMainActorScheduler where Self == DelayedMainActorValueObservationScheduler {
    /// Every value, asynchronously on the main actor.
    public static var mainActor: DelayedMainActorValueObservationScheduler { DelayedMainActorValueObservationScheduler() }
}

/// Delivers every value, in order, from a task.
public final class TaskValueObservationScheduler: ValueObservationScheduler {
    private let continuation: AsyncStream<@Sendable () -> Void>.Continuation
    private let task: Task<Void, Never>

    init(priority: TaskPriority?) {
        let (stream, continuation) = AsyncStream.makeStream(of: (@Sendable () -> Void).self)
        self.continuation = continuation
        task = Task(priority: priority) {
            for await action in stream { action() }
        }
    }

    deinit { task.cancel() }

    /// False.
    public func immediateInitialValue() -> Bool { false }

    /// Delivers from the task.
    public func schedule(_ action: @escaping @Sendable () -> Void) { continuation.yield(action) }
}

extension ValueObservationScheduler where Self == TaskValueObservationScheduler {
    /// Every value, in order, from a task.
    public static var task: TaskValueObservationScheduler { TaskValueObservationScheduler(priority: nil) }

    /// Every value, in order, from a task of this priority.
    public static func task(priority: TaskPriority) -> TaskValueObservationScheduler { TaskValueObservationScheduler(priority: priority) }
}

/// Tells whether the caller runs on the main actor.
enum MainActorCheck {
    private static let key = DispatchSpecificKey<Bool>()
    private static let marked: Void = DispatchQueue.main.setSpecific(key: key, value: true)

    /// True on the main thread, or on the main dispatch queue (the main
    /// actor's executor), whichever thread runs it.
    static var isOnMainActor: Bool {
        _ = marked
        return Thread.isMainThread || DispatchQueue.getSpecific(key: key) == true
    }
}
