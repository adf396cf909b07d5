import Foundation
import SecureStore
import XCTest

/// `ValueObservation.shared(in:scheduling:extent:)` on an encrypted pool:
/// one fetch per change for all subscribers, the last value to a late one,
/// and the two extents.
final class SharedValueObservationTests: SecureStoreTestCase {
    private let queue = DispatchQueue(label: "SharedValueObservationTests")

    private func makePool() throws -> DatabasePool {
        let dbPool = try DatabasePool(path: path("shared.sqlite"), configuration: keyedConfiguration(passphrase: "secret"))
        try dbPool.write { db in try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY)") }
        return dbPool
    }

    private func insertPlayer(_ dbPool: DatabasePool) throws {
        try dbPool.write { db in try db.execute(sql: "INSERT INTO player DEFAULT VALUES") }
    }

    func testSubscribersShareOneFetchAndALateOneGetsTheLastValue() throws {
        let dbPool = try makePool()
        let fetches = ObservedValues<Void>()
        let shared = ValueObservation
            .tracking { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM player")! }
            .handleEvents(willFetch: { fetches.append(()) })
            .shared(in: dbPool, scheduling: .async(onQueue: queue))
        let first = ObservedValues<Int>()
        let second = ObservedValues<Int>()
        let firstSubscription = shared.start(onError: first.fail, onChange: first.append)
        XCTAssertEqual(first.wait { $0 == [0] }, [0])
        try insertPlayer(dbPool)
        XCTAssertEqual(first.wait { $0.last == 1 }.last, 1)
        let fetchesBeforeSecond = fetches.all.count

        // The late subscriber gets the last value without a fetch.
        let secondSubscription = shared.start(onError: second.fail, onChange: second.append)
        XCTAssertEqual(second.wait { $0 == [1] }, [1])
        XCTAssertEqual(fetches.all.count, fetchesBeforeSecond)

        // One commit, one fetch, both subscribers.
        try insertPlayer(dbPool)
        XCTAssertEqual(first.wait { $0.last == 2 }.last, 2)
        XCTAssertEqual(second.wait { $0.last == 2 }.last, 2)
        XCTAssertEqual(fetches.wait { $0.count > fetchesBeforeSecond }.count, fetchesBeforeSecond + 1)
        XCTAssertTrue(first.failures.isEmpty && second.failures.isEmpty)
        withExtendedLifetime((firstSubscription, secondSubscription)) {}
    }

    func testWhileObservedStopsWithItsLastSubscriberAndStartsAgain() throws {
        let dbPool = try makePool()
        let starts = ObservedValues<Void>()
        let shared = ValueObservation
            .tracking { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM player")! }
            .handleEvents(willStart: { starts.append(()) })
            .shared(in: dbPool, scheduling: .async(onQueue: queue), extent: .whileObserved)
        let values = ObservedValues<Int>()
        var subscription: AnyDatabaseCancellable? = shared.start(onError: values.fail, onChange: values.append)
        XCTAssertEqual(values.wait { $0 == [0] }, [0])
        subscription?.cancel()
        subscription = nil
        try insertPlayer(dbPool)

        // A new subscriber starts a new observation, and sees the new count
        // (not a value kept from before).
        let again = ObservedValues<Int>()
        let next = shared.start(onError: again.fail, onChange: again.append)
        XCTAssertEqual(again.wait { $0 == [1] }, [1])
        XCTAssertEqual(starts.all.count, 2)
        withExtendedLifetime(next) {}
    }

    func testObservationLifetimeKeepsObservingWithoutSubscribers() throws {
        let dbPool = try makePool()
        let fetched = ObservedValues<Int>()
        let shared = ValueObservation
            .tracking { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM player")! }
            .handleEvents(didReceiveValue: { fetched.append($0) })
            .shared(in: dbPool, scheduling: .async(onQueue: queue), extent: .observationLifetime)
        let values = ObservedValues<Int>()
        shared.start(onError: values.fail, onChange: values.append).cancel()
        XCTAssertEqual(fetched.wait { $0 == [0] }, [0])
        try insertPlayer(dbPool)
        // Still observed with no subscriber: the new value is fetched.
        XCTAssertEqual(fetched.wait { $0.last == 1 }.last, 1)
        // A late subscriber gets the last value delivered (0 when the
        // delivery of 1 is still on its way, then 1), never an older one
        // after a newer one.
        let late = ObservedValues<Int>()
        let subscription = shared.start(onError: late.fail, onChange: late.append)
        let seen = late.wait { $0.last == 1 }
        XCTAssertTrue(seen == [1] || seen == [0, 1], "\(seen)")
        withExtendedLifetime(subscription) {}
    }

    func testAnErrorReachesEverySubscriber() throws {
        let dbPool = try makePool()
        let shared = ValueObservation
            .tracking { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM missing")! }
            .shared(in: dbPool, scheduling: .async(onQueue: queue), extent: .observationLifetime)
        let first = ObservedValues<Int>()
        let firstSubscription = shared.start(onError: first.fail, onChange: first.append)
        _ = first.wait { _ in false }   // returns on the error
        XCTAssertEqual(first.failures.count, 1)
        // With the observation's lifetime, a later subscriber gets the error too.
        let second = ObservedValues<Int>()
        let secondSubscription = shared.start(onError: second.fail, onChange: second.append)
        _ = second.wait { _ in false }
        XCTAssertEqual(second.failures.count, 1)
        XCTAssertTrue("\(second.failures[0])".contains("no such table: missing"))
        withExtendedLifetime((firstSubscription, secondSubscription)) {}
    }

    /// Runs what it is given when told to, in order.
    private final class ManualScheduler: ValueObservationScheduler, @unchecked Sendable {
        private let lock = NSLock()
        private var pending: [@Sendable () -> Void] = []
        func immediateInitialValue() -> Bool { false }
        func schedule(_ action: @escaping @Sendable () -> Void) { lock.withLock { pending.append(action) } }
        var pendingCount: Int { lock.withLock { pending.count } }
        func runAll() {
            let actions = lock.withLock { () -> [@Sendable () -> Void] in
                defer { pending = [] }
                return pending
            }
            for action in actions { action() }
        }
        /// Waits (bounded) until something is pending.
        func waitForPending(_ count: Int) -> Bool {
            let deadline = Date(timeIntervalSinceNow: 10)
            while pendingCount < count, Date() < deadline { usleep(1000) }
            return pendingCount >= count
        }
    }

    func testALateSubscribersFirstValueNeverFollowsANewerOne() throws {
        let dbPool = try makePool()
        let scheduler = ManualScheduler()
        let shared = ValueObservation
            .tracking { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM player")! }
            .shared(in: dbPool, scheduling: scheduler, extent: .whileObserved)
        let first = ObservedValues<Int>()
        let firstSubscription = shared.start(onError: first.fail, onChange: first.append)
        XCTAssertTrue(scheduler.waitForPending(1))
        scheduler.runAll()
        XCTAssertEqual(first.all, [0])

        // 1 is on its way when the late subscriber comes: its first value
        // (the last delivered, 0) is scheduled behind 1.
        try insertPlayer(dbPool)
        XCTAssertTrue(scheduler.waitForPending(1))
        let late = ObservedValues<Int>()
        let lateSubscription = shared.start(onError: late.fail, onChange: late.append)
        scheduler.runAll()
        XCTAssertEqual(first.all, [0, 1])
        XCTAssertEqual(late.all, [1], "0 came after 1")
        withExtendedLifetime((firstSubscription, lateSubscription)) {}
    }
}
