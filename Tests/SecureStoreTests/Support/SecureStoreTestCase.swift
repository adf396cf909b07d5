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

    /// The cipher settings of the suite's keyed files: the suite's
    /// iteration count pinned (``CommandLineClient/suiteKDFIterations``,
    /// the `sqlcipher` CLI's default), because the 1,300,000 that
    /// SecureStore gives new files on SQLCipher 3.4.x cost 0.6 s or more
    /// per open, a key without a count is tried in every format, and the
    /// suite opens files hundreds of times. The defaults themselves are
    /// tested in `NewFileKeyDerivationTests`.
    static var suiteCipherSettings: CipherSettings {
        CipherSettings(kdfIterations: CommandLineClient.suiteKDFIterations)
    }

    /// What the `sqlcipher` CLI needs after its key to read a new file that
    /// SecureStore keyed with a passphrase and no settings: `PRAGMA kdf_iter
    /// = 1300000;` on SQLCipher 3.4.x, nothing on 4.x.
    static var newFileKDFPragma: String {
        SQLCipherLibrary.majorVersion == 3 ? "PRAGMA kdf_iter = \(CipherSettings.newFileDefaults.kdfIterations ?? 0);" : ""
    }

    /// A configuration that keys every connection with `passphrase`.
    func keyedConfiguration(
        passphrase: String, cipherSettings: CipherSettings = SecureStoreTestCase.suiteCipherSettings
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

    /// `readers` reads at once, on threads of their own, each holding its
    /// connection until all of them are inside their read (so that the pool
    /// opens that many; 10 s at most); what `read` returns, or -1 for a
    /// failed read.
    func concurrentReads(_ dbPool: DatabasePool, readers: Int, _ read: @escaping @Sendable (Database) throws -> Int?) -> [Int] {
        let results = Locked<[Int]>([])
        let inside = Locked(0)
        let allInside = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        for _ in 0..<readers {
            finished.enter()
            Thread.detachNewThread {
                let value = try? dbPool.read { db -> Int? in
                    let arrived = inside.withLock { count -> Int in
                        count += 1
                        return count
                    }
                    if arrived == readers {
                        for _ in 0..<readers { allInside.signal() }
                    }
                    _ = allInside.wait(timeout: .now() + 10)
                    return try read(db)
                }
                results.mutate { $0.append(value.flatMap { $0 } ?? -1) }
                finished.leave()
            }
        }
        finished.wait()
        return results.value
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

