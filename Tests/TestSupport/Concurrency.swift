import Foundation

/// A value that closures on other threads read and tests change.
///
/// An `NSLock`, not the standard library's `Mutex`: ThreadSanitizer does
/// not see a contended `Mutex` change hands in the kernel.
public final class Locked<Value>: @unchecked Sendable {
    // @unchecked Sendable: `stored` is read and written under `lock` only.
    private let lock = NSLock()
    private var stored: Value

    public init(_ value: Value) { stored = value }

    public var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    /// Changes the value in one step (`value.append` would read, then write).
    public func mutate(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }

    /// Reads or changes the value in one step, and returns what `body` returns.
    public func withLock<R>(_ body: (inout Value) -> R) -> R { lock.withLock { body(&stored) } }
}

/// Work on a thread of its own, whose result a test waits for.
///
/// ```swift
/// let rekey = Background { try tool(["rekey", ...]) }
/// // meanwhile, in the test...
/// let result = try rekey.value()
/// ```
public final class Background<Value>: @unchecked Sendable {
    // @unchecked Sendable: `outcome` is written once before `finished` is
    // signalled, and read only after waiting for it.
    private let finished = DispatchSemaphore(value: 0)
    private var outcome: Result<Value, any Error>?

    public init(_ work: @escaping @Sendable () throws -> Value) {
        Thread.detachNewThread { [self] in
            outcome = Result { try work() }
            finished.signal()
        }
    }

    /// Waits for the work and returns its value, or throws its error.
    public func value() throws -> Value {
        finished.wait()
        finished.signal()
        return try outcome!.get()
    }
}
