import Foundation
import SecureStore
import TestSupport
import XCTest

/// Base class: a fresh temporary folder per test, removed afterwards, and
/// helpers to make encrypted databases and run the real command-line clients.
class SecureStoreTestCase: XCTestCase {
    private(set) var directory: URL!
    private var watchdog: TestWatchdog?

    override func setUpWithError() throws {
        try super.setUpWithError()
        watchdog = TestWatchdog(name: name)
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("SecureStoreTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        watchdog?.cancel()
        if let directory { try? FileManager.default.removeItem(at: directory) }
        try super.tearDownWithError()
    }

    /// A path inside the test's folder.
    func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    /// A configuration that keys every connection with `passphrase`.
    func keyedConfiguration(
        passphrase: String, cipherSettings: CipherSettings = CipherSettings()
    ) -> Configuration {
        var config = Configuration()
        config.cipherSettings = cipherSettings
        config.prepareDatabase { db in try db.usePassphrase(passphrase) }
        return config
    }

    /// A configuration that keys every connection with a raw key.
    func rawKeyConfiguration(_ key: Data) -> Configuration {
        var config = Configuration()
        config.prepareDatabase { db in try db.useRawKey(key) }
        return config
    }

    /// An encrypted queue whose statements, values expanded, go to `traced`.
    func makeTracedQueue(into traced: TraceBox) throws -> DatabaseQueue {
        var config = keyedConfiguration(passphrase: "secret")
        config.prepareDatabase { db in db.trace { traced.append($0.expandedDescription) } }
        return try DatabaseQueue(path: path("db.sqlite"), configuration: config)
    }

    func makeEncryptedQueue(_ name: String = "db.sqlite", passphrase: String = "secret") throws -> DatabaseQueue {
        try DatabaseQueue(path: path(name), configuration: keyedConfiguration(passphrase: passphrase))
    }

    func sha256(_ path: String) throws -> String {
        let result = try CommandLineClient.run("/usr/bin/sha256sum", [path])
        XCTAssertEqual(result.status, 0, result.stderr)
        return String(result.stdout.prefix(64))
    }

    func fileBytes(_ path: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: path))
    }
}

/// Collects traced SQL from the connection's queue.
/// Base class of the tests that read the SQL they run: an encrypted queue
/// whose statements, values expanded, go to `traced`. Subclasses make their
/// schema in ``setUpSchema(_:)``.
class TracedQueueTestCase: SecureStoreTestCase {
    private(set) var dbQueue: DatabaseQueue!
    let traced = TraceBox()

    override func setUpWithError() throws {
        try super.setUpWithError()
        dbQueue = try makeTracedQueue(into: traced)
        try dbQueue.write { db in try setUpSchema(db) }
    }

    /// The tables of the test; none by default.
    func setUpSchema(_ db: Database) throws {}
}

final class TraceBox: @unchecked Sendable {
    private let lock = NSLock()
    private var statements: [String] = []
    func append(_ sql: String) { lock.withLock { statements.append(sql) } }
    func clear() { lock.withLock { statements.removeAll() } }
    var last: String? { lock.withLock { statements.last } }
    func allStatements() -> [String] { lock.withLock { statements } }
}

/// A value that closures on connection queues read and tests change.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
    /// Changes the value in one step (`value.append` would read, then write).
    func mutate(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
    /// Reads or changes the value in one step, and returns what `body` returns.
    /// (An `NSLock`, not the standard library's `Mutex`: ThreadSanitizer does
    /// not see a contended `Mutex` change hands in the kernel.)
    func withLock<R>(_ body: (inout Value) -> R) -> R { lock.withLock { body(&stored) } }
}
