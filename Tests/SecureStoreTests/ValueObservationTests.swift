import Foundation
import SecureStore
import TestSupport
import XCTest

/// ValueObservation and DatabaseRegionObservation on encrypted queues and
/// pools: values follow commits, in order, and survive migrations and key
/// changes.
final class ValueObservationTests: SecureStoreTestCase {
    private func makePool(_ name: String = "pool.sqlite") throws -> DatabasePool {
        try DatabasePool(path: path(name), configuration: keyedConfiguration(passphrase: "secret"))
    }

    private func createPlayers(_ writer: some DatabaseWriter) throws {
        try writer.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INT)")
            try db.execute(sql: "CREATE TABLE other (id INTEGER PRIMARY KEY)")
        }
    }

    private let queue = DispatchQueue(label: "ValueObservationTests")

    func testQueueObservationFollowsRelevantCommitsOnly() throws {
        let dbQueue = try makeEncryptedQueue()
        try createPlayers(dbQueue)
        let values = ObservedValues<Int>()
        let fetches = ObservedValues<Void>()
        let observation = ValueObservation
            .tracking { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player")! }
            .handleEvents(willFetch: { fetches.append(()) })
        let cancellable = observation.start(in: dbQueue, scheduling: .async(onQueue: queue),
                                            onError: values.fail, onChange: values.append)
        XCTAssertEqual(values.wait { $0.count == 1 }, [0])
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO other DEFAULT VALUES") }   // not observed
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('a')") }
        try dbQueue.inTransaction { db in
            try db.execute(sql: "INSERT INTO player (name) VALUES ('rolled back')")
            return .rollback
        }
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('b'), ('c')") }
        XCTAssertEqual(values.wait { $0.last == 3 }, [0, 1, 3])
        XCTAssertEqual(fetches.all.count, 3, "unrelated and rolled back transactions do not fetch")
        cancellable.cancel()
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('d')") }
        queue.sync {}
        XCTAssertEqual(values.all, [0, 1, 3], "no value after cancel")
        XCTAssertTrue(values.failures.isEmpty)
    }

    func testRegionIsRecordedFromTheFetchAndFollowsIt() throws {
        let dbQueue = try makeEncryptedQueue()
        try createPlayers(dbQueue)
        let regions = ObservedValues<String>()
        let values = ObservedValues<[String]>()
        let observation = ValueObservation
            .tracking { db in try String.fetchAll(db, sql: "SELECT name FROM player WHERE score > 10 ORDER BY name") }
            .removeDuplicates()
            .handleEvents(willTrackRegion: { regions.append($0.description) })
        let cancellable = observation.start(in: dbQueue, scheduling: .async(onQueue: queue),
                                            onError: values.fail, onChange: values.append)
        _ = values.wait { $0.count == 1 }
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO player (name, score) VALUES ('low', 1)") }   // no new value
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO player (name, score) VALUES ('high', 20)") }
        XCTAssertEqual(values.wait { $0.count == 2 }, [[], ["high"]])
        XCTAssertEqual(regions.all.first, "player(name,score)")
        withExtendedLifetime(cancellable) {}
    }

    func testPoolObservationUnderConcurrentWritersAndReadersMissesNothingAndKeepsOrder() throws {
        let dbPool = try makePool()
        try dbPool.write { db in try db.execute(sql: "CREATE TABLE counter (id INTEGER PRIMARY KEY, value INT); INSERT INTO counter VALUES (1, 0)") }
        let values = ObservedValues<Int>()
        let cancellable = ValueObservation
            .tracking { db in try Int.fetchOne(db, sql: "SELECT value FROM counter")! }
            .removeDuplicates()
            .start(in: dbPool, scheduling: .async(onQueue: queue), onError: values.fail, onChange: values.append)
        _ = values.wait { !$0.isEmpty }
        // 2 writers and 8 readers for a timed run.
        let deadline = Date(timeIntervalSinceNow: 2)
        let group = DispatchGroup()
        final class Counter: @unchecked Sendable { let lock = NSLock(); var writes = 0 }
        let counter = Counter()
        for _ in 0..<2 {
            DispatchQueue.global().async(group: group) {
                while Date() < deadline {
                    try? dbPool.write { db in try db.execute(sql: "UPDATE counter SET value = value + 1") }
                    counter.lock.withLock { counter.writes += 1 }
                }
            }
        }
        for _ in 0..<8 {
            DispatchQueue.global().async(group: group) {
                while Date() < deadline { _ = try? dbPool.read { db in try Int.fetchOne(db, sql: "SELECT value FROM counter") } }
            }
        }
        group.wait()
        let final = try dbPool.read { db in try Int.fetchOne(db, sql: "SELECT value FROM counter")! }
        let seen = values.wait { $0.last == final }
        XCTAssertEqual(seen.last, final, "the last committed value is observed")
        // Values may coalesce (one fetch covers the commits made before its
        // snapshot), never go back.
        XCTAssertTrue(zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 }, "values come in commit order: \(seen)")
        XCTAssertGreaterThan(counter.writes, 10)
        XCTAssertTrue(values.failures.isEmpty)
        print("pool observation: \(counter.writes) commits, \(seen.count) values")
        withExtendedLifetime(cancellable) {}
    }

    func testValuesAsyncSequenceEndsWithItsTask() async throws {
        let dbPool = try makePool()
        try createPlayers(dbPool)
        let received = Locked<[Int]>([])
        let task = Task {
            for try await count in ValueObservation.tracking({ try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM player")! }).values(in: dbPool) {
                received.mutate { $0.append(count) }
                if count == 2 { break }
            }
        }
        // Each write once the value before it has arrived (30 s at most),
        // however slowly the task starts on a busy machine.
        for (name, count) in [("a", 0), ("b", 1)] {
            for _ in 0..<3000 where received.value.last != count { try await Task.sleep(nanoseconds: 10_000_000) }
            try await dbPool.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES (?)", arguments: [name]) }
        }
        try await task.value
        let seen = received.value
        XCTAssertEqual(seen.first, 0)
        XCTAssertEqual(seen.last, 2)
        XCTAssertEqual(seen, seen.sorted())
    }

    func testObservationSurvivesAMigrationAndAKeyChange() throws {
        let dbPool = try makePool()
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT)") }
        migrator.registerMigration("v2") { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('seed')") }
        try migrator.migrate(dbPool, upTo: "v1")
        let values = ObservedValues<Int>()
        let cancellable = ValueObservation
            .tracking { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player")! }
            .start(in: dbPool, scheduling: .async(onQueue: queue), onError: values.fail, onChange: values.append)
        _ = values.wait { $0 == [0] }
        try migrator.migrate(dbPool)
        XCTAssertEqual(values.wait { $0.last == 1 }.last, 1, "a migration is a transaction like the others")
        try dbPool.changePassphrase("rotated")
        try dbPool.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('after rekey')") }
        XCTAssertEqual(values.wait { $0.last == 2 }.last, 2, "readers were reopened with the new key")
        XCTAssertTrue(values.failures.isEmpty, "\(values.failures)")
        withExtendedLifetime(cancellable) {}
    }

    func testRegionObservationReportsImpactfulTransactions() throws {
        let dbQueue = try makeEncryptedQueue()
        try createPlayers(dbQueue)
        let counts = ObservedValues<Int>()
        let cancellable = DatabaseRegionObservation(tracking: Table("player"))
            .start(in: dbQueue, onError: counts.fail) { db in
                counts.append(try! Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player")!)
            }
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO other DEFAULT VALUES") }
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('a')") }
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('b')") }
        XCTAssertEqual(counts.all, [1, 2], "called on the writer, right after each commit that changed players")
        cancellable.cancel()
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('c')") }
        XCTAssertEqual(counts.all, [1, 2])
    }

    func testFetchErrorEndsTheObservation() throws {
        let dbQueue = try makeEncryptedQueue()
        let values = ObservedValues<Int>()
        let cancellable = ValueObservation
            .tracking { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM missing")! }
            .start(in: dbQueue, scheduling: .async(onQueue: queue), onError: values.fail, onChange: values.append)
        _ = values.wait { _ in false }
        XCTAssertEqual((values.failures.first as? DatabaseError)?.message, "no such table: missing")
        withExtendedLifetime(cancellable) {}
    }

    private struct Shelf: Codable, FetchableRecord, PersistableRecord {
        var id: Int64
        static let books = hasMany(ShelfBook.self).forKey("books")
    }

    private struct ShelfBook: Codable, Equatable, FetchableRecord, PersistableRecord {
        var id: Int64
        var shelfId: Int64
    }

    private struct ShelfInfo: Decodable, FetchableRecord {
        var shelf: Shelf
        var books: [ShelfBook]
    }

    func testPrefetchedAssociationsAreObservedBeforeTheirFirstRow() throws {
        let dbPool = try makePool()
        try dbPool.write { db in
            try db.execute(sql: """
                CREATE TABLE shelf (id INTEGER PRIMARY KEY);
                CREATE TABLE shelfBook (id INTEGER PRIMARY KEY, shelfId INTEGER REFERENCES shelf(id));
                """)
        }
        let request = Shelf.including(all: Shelf.books)
        // SQLite 3.46's authorizer reports a read of the whole table when a
        // query reads its rowid only: the region is then the whole table.
        let region = try dbPool.read { db in try request.databaseRegion(db).description }
        XCTAssertTrue(["shelf(id),shelfBook(id,shelfId)", "shelf(*),shelfBook(id,shelfId)"].contains(region), region)
        let values = ObservedValues<[Int]>()
        let cancellable = ValueObservation
            .tracking { db in try request.asRequest(of: ShelfInfo.self).fetchAll(db).map(\.books.count) }
            .start(in: dbPool, scheduling: .async(onQueue: queue), onError: values.fail, onChange: values.append)
        XCTAssertEqual(values.wait { $0.count == 1 }, [[]])
        try dbPool.write { db in try Shelf(id: 1).insert(db) }
        XCTAssertEqual(values.wait { $0.count == 2 }.last, [0])
        // The first fetch read no book: the books are observed all the same.
        try dbPool.write { db in try ShelfBook(id: 1, shelfId: 1).insert(db) }
        XCTAssertEqual(values.wait { $0.count == 3 }.last, [1])
        XCTAssertTrue(values.failures.isEmpty, "\(values.failures)")
        withExtendedLifetime(cancellable) {}
    }

    func testRequestsFilteredOnRowIDsTrackThoseRows() throws {
        let dbQueue = try makeEncryptedQueue()
        try createPlayers(dbQueue)
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO player (id, name) VALUES (1, 'a'), (2, 'b')") }
        let region = try dbQueue.read { db in
            try Table("player").filter(keys: [1]).databaseRegion(db).description
        }
        XCTAssertEqual(region, "player(id,name,score)[1]")
        XCTAssertEqual(try dbQueue.read { db in try Table("player").none().databaseRegion(db).description }, "empty")
        let values = ObservedValues<String?>()
        let fetches = ObservedValues<Void>()
        let cancellable = ValueObservation
            .tracking { db in try String.fetchOne(db, Table("player").filter(key: 1).select(Column("name"))) }
            .handleEvents(willFetch: { fetches.append(()) })
            .start(in: dbQueue, scheduling: .async(onQueue: queue), onError: values.fail, onChange: values.append)
        XCTAssertEqual(values.wait { $0.count == 1 }, ["a"])
        try dbQueue.write { db in try db.execute(sql: "UPDATE player SET name = 'B' WHERE id = 2") }   // another row
        try dbQueue.write { db in try db.execute(sql: "UPDATE player SET name = 'A' WHERE id = 1") }
        XCTAssertEqual(values.wait { $0.count == 2 }, ["a", "A"])
        XCTAssertEqual(fetches.all.count, 2, "the update of row 2 fetched nothing")
        withExtendedLifetime(cancellable) {}
    }
}
