import Foundation
import SecureStore
import XCTest

/// Async accesses follow their task's cancellation, as GRDB's do: cancelled
/// before the access, the closure never runs and the call throws
/// `CancellationError`; cancelled while a statement runs, the statement is
/// interrupted and the call throws `CancellationError`. The database works
/// after either.
final class CancellationTests: SecureStoreTestCase {
    /// Set by the first row of ``longQuery``: the statement is running.
    private final class Started: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        var isSet: Bool { lock.withLock { value } }
        func set() { lock.withLock { value = true } }
        func reset() { lock.withLock { value = false } }
    }

    /// About 10^8 rows: tens of seconds unless interrupted (a test that
    /// does not interrupt it fails on the count rather than hanging).
    private static let longQuery = """
        WITH RECURSIVE c(x) AS (VALUES(1) UNION ALL SELECT x + 1 FROM c WHERE x < 100000000)
        SELECT count(*) FROM c WHERE started(x) IS NOT NULL
        """

    private func configuration(_ started: Started) -> Configuration {
        var config = keyedConfiguration(passphrase: "secret")
        config.prepareDatabase { db in
            db.add(function: DatabaseFunction("started", argumentCount: 1) { values in
                started.set()
                return values[0]
            })
        }
        return config
    }

    /// A task that waits until it is cancelled, then makes its access.
    private func accessAfterCancellation<T: Sendable>(_ access: @escaping @Sendable () async throws -> T) async -> (any Error)? {
        let task = Task {
            while !Task.isCancelled { await Task.yield() }
            return try await access()
        }
        task.cancel()
        do {
            _ = try await task.value
            return nil
        } catch {
            return error
        }
    }

    /// Runs `access`, whose statement runs ``longQuery``, in a task that is
    /// cancelled once the query runs, and checks it throws `CancellationError`.
    private func assertCancelledDuringLongQuery(
        _ started: Started, file: StaticString = #filePath, line: UInt = #line,
        _ access: @escaping @Sendable () async throws -> Int?
    ) async {
        let finished = Started()
        let task = Task {
            defer { finished.set() }
            return try await access()
        }
        // The query starts, or the access ends without starting it (it
        // failed): a test that waits for nothing fails instead of hanging.
        let deadline = Date().addingTimeInterval(60)
        while !started.isSet, !finished.isSet, Date() < deadline { try? await Task.sleep(nanoseconds: 5_000_000) }
        guard started.isSet else {
            task.cancel()
            let outcome = await task.result
            XCTFail("the long query never started: \(outcome)", file: file, line: line)
            return
        }
        task.cancel()
        do {
            let count = try await task.value
            XCTFail("the query was not interrupted: \(String(describing: count))", file: file, line: line)
        } catch {
            XCTAssertTrue(error is CancellationError, "\(error)", file: file, line: line)
        }
    }

    func testAccessesCancelledBeforeTheyStartDoNotRun() async throws {
        let dbQueue = try makeEncryptedQueue()
        let dbPool = try DatabasePool(path: path("pool.sqlite"), configuration: keyedConfiguration(passphrase: "secret"))
        for writer in [dbQueue, dbPool, AnyDatabaseWriter(dbQueue)] as [any DatabaseWriter] {
            try await writer.write { db in try db.execute(sql: "CREATE TABLE IF NOT EXISTS t (x INTEGER)") }
            let errors = [
                await accessAfterCancellation { try await writer.write { db in try db.execute(sql: "INSERT INTO t VALUES (1)") } },
                await accessAfterCancellation { try await writer.writeWithoutTransaction { db in try db.execute(sql: "INSERT INTO t VALUES (2)") } },
                await accessAfterCancellation { try await writer.read { db in try Int.fetchOne(db, sql: "SELECT 1") } },
                await accessAfterCancellation { try await writer.barrierWriteWithoutTransaction { db in try db.execute(sql: "INSERT INTO t VALUES (3)") } },
            ]
            for error in errors { XCTAssertTrue(error is CancellationError, "\(String(describing: error))") }
            let count = try await writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }
            XCTAssertEqual(count, 0, "\(type(of: writer))")
        }
    }

    func testCancellingTheTaskInterruptsAReadOfAQueueOrAPoolAndTheyWorkAfter() async throws {
        let started = Started()
        let dbQueue = try DatabaseQueue(path: path("db.sqlite"), configuration: configuration(started))
        let dbPool = try DatabasePool(path: path("pool.sqlite"), configuration: configuration(started))
        for writer in [dbQueue, dbPool] as [any DatabaseWriter] {
            started.reset()
            try await writer.write { db in try db.execute(sql: "CREATE TABLE t (x INTEGER)") }
            await assertCancelledDuringLongQuery(started) {
                try await writer.read { db in try Int.fetchOne(db, sql: Self.longQuery) }
            }
            // Writes work (a queue's read reset its query_only).
            try await writer.write { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
            let count = try await writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }
            XCTAssertEqual(count, 1, "\(type(of: writer))")
        }
    }

    func testCancellingTheTaskRollsBackAQueueWrite() async throws {
        let started = Started()
        let dbQueue = try DatabaseQueue(path: path("db.sqlite"), configuration: configuration(started))
        try await dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (x INTEGER)") }
        await assertCancelledDuringLongQuery(started) {
            try await dbQueue.write { db in
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                try db.execute(sql: "INSERT INTO t " + Self.longQuery)
                return nil
            }
        }
        let count = try await dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }
        XCTAssertEqual(count, 0)
    }

    func testAnAccessThatEndsBeforeTheCancellationSucceeds() async throws {
        let dbQueue = try makeEncryptedQueue()
        let task = Task { try await dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT 42") } }
        let value = try await task.value
        task.cancel()
        XCTAssertEqual(value, 42)
    }

    /// Holds the task an access cancels from inside itself.
    private final class TaskBox: @unchecked Sendable {
        private let lock = NSLock()
        private var task: Task<Void, any Error>?
        func set(_ task: Task<Void, any Error>) { lock.withLock { self.task = task } }
        func cancel() { lock.withLock { task }?.cancel() }
    }

    func testAWriteCancelledInsideItsClosureCommitsNothingAndLaterStatementsThrow() async throws {
        let dbQueue = try makeEncryptedQueue()
        try await dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (x INTEGER)") }
        let box = TaskBox()
        let gate = Started()
        let statementError = ErrorHolder()
        let task = Task<Void, any Error> {
            while !gate.isSet { await Task.yield() }
            try await dbQueue.write { db in
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                box.cancel()
                do {
                    try db.execute(sql: "INSERT INTO t VALUES (2)")
                } catch {
                    statementError.error = error
                }
            }
        }
        box.set(task)
        gate.set()
        do {
            try await task.value
            XCTFail("expected CancellationError")
        } catch {
            XCTAssertTrue(error is CancellationError, "\(error)")
        }
        XCTAssertTrue(statementError.error is CancellationError, "\(String(describing: statementError.error))")
        let count = try await dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }
        XCTAssertEqual(count, 0)
        // The next access of the queue is not cancelled.
        try await dbQueue.write { db in try db.execute(sql: "INSERT INTO t VALUES (3)") }
        let values = try await dbQueue.read { db in try Int.fetchAll(db, sql: "SELECT x FROM t") }
        XCTAssertEqual(values, [3])
    }

    private final class ErrorHolder: @unchecked Sendable {
        var error: (any Error)?
    }

    @TaskLocal static var requestID: String?

    /// The closure of an async access runs inside the caller's task: it sees
    /// the task's task-local values, and `Task.isCancelled` once the task is
    /// cancelled.
    func testAsyncAccessesRunInTheCallersTask() async throws {
        let dbQueue = try makeEncryptedQueue()
        let dbPool = try DatabasePool(path: path("pool.sqlite"), configuration: keyedConfiguration(passphrase: "secret"))
        for writer in [dbQueue, dbPool, AnyDatabaseWriter(dbPool)] as [any DatabaseWriter] {
            let seen = try await Self.$requestID.withValue("r-42") {
                [
                    try await writer.read { _ in Self.requestID },
                    try await writer.unsafeRead { _ in Self.requestID },
                    try await writer.write { _ in Self.requestID },
                    try await writer.writeWithoutTransaction { _ in Self.requestID },
                    try await writer.barrierWriteWithoutTransaction { _ in Self.requestID },
                ]
            }
            XCTAssertEqual(seen, Array(repeating: "r-42", count: 5), "\(type(of: writer))")
            // A read that ends well after its task is cancelled succeeds, and
            // its closure saw the cancellation.
            let box = TaskBox()
            let gate = Started()
            let task = Task<Void, any Error> {
                while !gate.isSet { await Task.yield() }
                let sawCancellation = try await writer.read { _ in
                    box.cancel()
                    return Task.isCancelled
                }
                XCTAssertTrue(sawCancellation)
            }
            box.set(task)
            gate.set()
            try await task.value
        }
    }

    /// Cancels a task once a transaction commits.
    private final class CancelAfterCommit: TransactionObserver, @unchecked Sendable {
        let box: TaskBox
        init(_ box: TaskBox) { self.box = box }
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
        func databaseDidChange(with event: DatabaseEvent) {}
        func databaseDidCommit(_ db: Database) { box.cancel() }
        func databaseDidRollback(_ db: Database) {}
    }

    /// A write whose task is cancelled just after its commit: the commit
    /// stands, and an observation fetches the new value on the writer's
    /// connection all the same (the fetch is not part of the cancelled access).
    @MainActor func testAnObservationSeesAWriteWhoseTaskIsCancelledAfterItsCommit() async throws {
        let dbQueue = try makeEncryptedQueue()
        try await dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (x INTEGER)") }
        let box = TaskBox()
        dbQueue.add(transactionObserver: CancelAfterCommit(box), extent: .databaseLifetime)
        let values = ValuesBox()
        let cancellable = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") ?? -1 }
            .start(in: dbQueue, scheduling: .immediate, onError: { values.fail($0) }, onChange: { values.append($0) })
        let gate = Started()
        let task = Task<Void, any Error> {
            while !gate.isSet { await Task.yield() }
            try await dbQueue.write { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        }
        box.set(task)
        gate.set()
        try? await task.value
        let count = try await dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }
        XCTAssertEqual(count, 1)
        // The new value comes through the main queue.
        for _ in 0..<500 where values.all.count < 2 { try await Task.sleep(nanoseconds: 10_000_000) }
        XCTAssertEqual(values.all, [0, 1])
        XCTAssertNil(values.error)
        cancellable.cancel()
    }

    private final class ValuesBox: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [Int] = []
        private var failure: (any Error)?
        func append(_ value: Int) { lock.withLock { values.append(value) } }
        func fail(_ error: any Error) { lock.withLock { failure = error } }
        var all: [Int] { lock.withLock { values } }
        var error: (any Error)? { lock.withLock { failure } }
    }
}
