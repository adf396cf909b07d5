import Foundation
import SecureStore
import Testing

// What a GRDB app's data layer calls, written the way such an app writes it
// (GRDB's demo app, run by scripts/grdb-demo-app.sh, is the model; this code
// is ours): a record with `Columns` built from its `CodingKeys`, a store that
// holds `any DatabaseWriter`, writes that insert, re-rank and delete at
// random, and a main-actor model observing the rows with `.immediate`.

private struct Brand: Codable, Equatable, FetchableRecord, MutablePersistableRecord {
    var id: Int64?
    var name: String
    var rank: Int

    enum Columns {
        static let name = Column(CodingKeys.name)
        static let rank = Column(CodingKeys.rank)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

/// The app's store: any writer, migrated when made.
private struct Catalog: Sendable {
    let writer: any GRDB.DatabaseWriter   // the module-qualified spelling ports too

    init(_ writer: any DatabaseWriter) throws {
        self.writer = writer
        var migrator = DatabaseMigrator()
        migrator.eraseDatabaseOnSchemaChange = true
        migrator.registerMigration("Zalora-v1") { db in
            try db.create(table: "brand") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull()
                t.column("rank", .integer).notNull()
            }
        }
        try migrator.migrate(writer)
    }

    var reader: any DatabaseReader { writer }

    /// Fills an empty catalog; otherwise inserts, deletes and re-ranks brands
    /// at random, in one transaction.
    func shuffle() async throws {
        try await writer.write { db in
            if try Brand.all().isEmpty(db) {
                for index in 0..<8 { _ = try Brand(name: "Brand \(index)", rank: index).inserted(db) }
                return
            }
            if Bool.random() { _ = try Brand(name: "New", rank: Int.random(in: 0...100)).inserted(db) }
            if Bool.random() { try Brand.order(sql: "RANDOM()").limit(1).deleteAll(db) }
            for var brand in try Brand.fetchAll(db) where Bool.random() {
                try brand.updateChanges(db) { $0.rank = Int.random(in: 0...100) }
            }
        }
    }
}

/// The SQL a connection runs, in order.
private final class SQLLog: @unchecked Sendable {
    private let lock = NSLock()
    private var statements: [String] = []
    func append(_ sql: String) { lock.withLock { statements.append(sql) } }
    /// The last statement that starts with `verb` (transactions and the
    /// connection's own pragmas left out).
    func last(_ verb: String) -> String? { lock.withLock { statements.last { $0.hasPrefix(verb) } } }
    var all: [String] { lock.withLock { statements } }
}

/// An in-memory queue (GRDB's `DatabaseQueue(configuration:)`) whose SQL lands in `log`.
private func makeLoggedQueue(_ log: SQLLog) throws -> DatabaseQueue {
    var config = Configuration()
    config.prepareDatabase { db in db.trace { log.append($0.expandedDescription) } }
    return try DatabaseQueue(configuration: config)
}

/// A private temporary directory, removed by `body`'s end.
private func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("AppPortingTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false,
                                            attributes: [.posixPermissions: 0o700])
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

private func makeEncryptedPool(in directory: URL) throws -> DatabasePool {
    var config = Configuration()
    config.prepareDatabase { db in try db.usePassphrase("porting passphrase") }
    return try DatabasePool(path: directory.appendingPathComponent("catalog.sqlite").path, configuration: config)
}

@Suite struct AppPortingTests {
    @Test func recordColumnsClosuresAndCollationsGenerateGRDBsSQL() throws {
        let log = SQLLog()
        let catalog = try Catalog(makeLoggedQueue(log))
        let names = try catalog.writer.write { db in
            for name in ["zoé", "Éric", "arthur", "Zazie"] { _ = try Brand(name: name, rank: name.count).inserted(db) }
            return try Brand.order { $0.name.collating(.localizedCaseInsensitiveCompare) }.fetchAll(db).map(\.name)
        }
        #expect(log.last("SELECT") == #"SELECT * FROM "brand" ORDER BY "name" COLLATE swiftLocalizedCaseInsensitiveCompare"#)
        #expect(names == ["arthur", "Éric", "Zazie", "zoé"])   // binary order: Zazie, arthur, zoé, Éric

        let ranked = try catalog.reader.read { db in
            try Brand.order { [$0.rank.desc, $0.name.collating(.localizedCaseInsensitiveCompare)] }.fetchAll(db).map(\.name)
        }
        #expect(log.last("SELECT") == #"SELECT * FROM "brand" ORDER BY "rank" DESC, "name" COLLATE swiftLocalizedCaseInsensitiveCompare"#)
        #expect(ranked == ["arthur", "Zazie", "Éric", "zoé"])

        let filtered = try catalog.reader.read { db in
            try Brand.filter { $0.rank > 3 }.select { $0.name }.asRequest(of: String.self).fetchAll(db)
        }
        #expect(log.last("SELECT") == #"SELECT "name" FROM "brand" WHERE "rank" > 3"#)
        #expect(filtered == ["Éric", "arthur", "Zazie"])

        let doubled = try catalog.reader.read { db in
            try Brand.annotated { ($0.rank * 2).forKey("doubled") }.order { $0.rank }.asRequest(of: Row.self).fetchAll(db)
                .map { $0["doubled"] as Int }
        }
        #expect(log.last("SELECT") == #"SELECT *, "rank" * 2 AS "doubled" FROM "brand" ORDER BY "rank""#)
        #expect(doubled == [6, 8, 10, 12])
        let groups = try catalog.reader.read { db in
            try Brand.select { count($0.name) }.group { $0.rank > 4 }.having { count($0.name) > 1 }.asRequest(of: Int.self).fetchAll(db)
        }
        #expect(log.last("SELECT") == #"SELECT COUNT("name") FROM "brand" GROUP BY "rank" > 4 HAVING COUNT("name") > 1"#)
        #expect(groups == [2, 2])

        for (collation, name) in [(DatabaseCollation.unicodeCompare, "swiftCompare"),
                                  (.caseInsensitiveCompare, "swiftCaseInsensitiveCompare"),
                                  (.localizedCompare, "swiftLocalizedCompare"),
                                  (.localizedStandardCompare, "swiftLocalizedStandardCompare")] {
            _ = try catalog.reader.read { db in try Brand.order { $0.name.collating(collation) }.fetchAll(db) }
            #expect(log.last("SELECT") == "SELECT * FROM \"brand\" ORDER BY \"name\" COLLATE \(name)")
        }
    }

    @Test func writesOfAnAppThroughAnyDatabaseWriter() async throws {
        let log = SQLLog()
        let catalog = try Catalog(makeLoggedQueue(log))
        #expect(try await catalog.reader.read { db in try Brand.all().isEmpty(db) })

        var brand = Brand(name: "Zalora", rank: 1)
        try await catalog.writer.write { [brand] db in
            var inserted = brand
            try inserted.insert(db)
            #expect(inserted.id == 1)   // didInsert(_: InsertionSuccess) set it
        }
        brand.id = 1
        let copy = try await catalog.writer.write { db in try Brand(name: "Copy", rank: 2).inserted(db) }
        #expect(copy.id == 2)
        #expect(try await catalog.reader.read { db in try Brand.all().isEmpty(db) } == false)

        // updateChanges(db) { ... } writes only what changed, and nothing when nothing did.
        let changed = try await catalog.writer.write { [brand] db in
            var brand = brand
            return try brand.updateChanges(db) { $0.rank = 5 }
        }
        #expect(changed)
        #expect(log.last("UPDATE") == #"UPDATE "brand" SET "rank"=5 WHERE "id"=1"#)
        let unchanged = try await catalog.writer.write { [brand] db in
            var brand = brand
            brand.rank = 5
            return try brand.updateChanges(db) { $0.rank = 5 }
        }
        #expect(!unchanged)
        #expect(log.all.filter { $0.hasPrefix("UPDATE") }.count == 1)

        // deleteAll(db, keys:) and a random delete through order(sql:).
        let deleted = try await catalog.writer.write { db in try Brand.deleteAll(db, keys: [1, 99]) }
        #expect(deleted == 1)
        #expect(log.all.contains(#"DELETE FROM "brand" WHERE "id" IN (1, 99)"#))
        _ = try await catalog.writer.write { db in try Brand.order(sql: "RANDOM()").limit(1).deleteAll(db) }
        #expect(try await catalog.reader.read { db in try Brand.fetchCount(db) } == 0)
    }

    @Test @MainActor func immediateSchedulingFromTheMainActor() async throws {
        let catalog = try Catalog(DatabaseQueue(configuration: Configuration()))
        try await catalog.writer.write { db in _ = try Brand(name: "Zalora", rank: 1).inserted(db) }
        let model = BrandListModel()

        model.observe(catalog.reader)
        // `.immediate`: the first value is there when `start` returns.
        #expect(model.values == [["Zalora"]])

        try await catalog.writer.write { db in _ = try Brand(name: "Asos", rank: 2).inserted(db) }
        try await model.wait { $0.count == 2 }
        #expect(model.values.last == ["Asos", "Zalora"])

        // Cancelled: no more values.
        model.cancellable?.cancel()
        try await catalog.writer.write { db in _ = try Brand(name: "Boohoo", rank: 3).inserted(db) }
        try await Task.sleep(for: .milliseconds(200))
        #expect(model.values.count == 2)
    }

    @Test func fiftyConcurrentShufflesOnAnEncryptedPool() async throws {
        try await withTemporaryDirectory { directory in
            let catalog = try Catalog(makeEncryptedPool(in: directory))
            let observed = ObservedCounts()
            let cancellable = ValueObservation
                .tracking { db in try Brand.fetchCount(db) }
                .start(in: catalog.reader, scheduling: .async(onQueue: DispatchQueue(label: "counts")),
                       onError: { observed.fail($0) }, onChange: { observed.append($0) })
            defer { cancellable.cancel() }

            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<50 { group.addTask { try await catalog.shuffle() } }
                try await group.waitForAll()
            }

            let final = try await catalog.reader.read { db in try Brand.fetchCount(db) }
            let values = try await observed.wait { $0.last == final }
            #expect(values.first == 0)
            #expect(values.last == final)
            #expect(observed.failures == 0)
            // Every shuffle committed: the store is consistent and still encrypted.
            let check = try await catalog.reader.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
            #expect(check == ["ok"])
            let header = try FileHandle(forReadingFrom: directory.appendingPathComponent("catalog.sqlite")).readData(ofLength: 16)
            #expect(header != Data("SQLite format 3\0".utf8))
        }
    }
}

/// A main-actor view model, as a GRDB app writes one.
@MainActor private final class BrandListModel {
    var values: [[String]] = []
    var cancellable: AnyDatabaseCancellable?

    func observe(_ reader: any DatabaseReader) {
        let observation = ValueObservation.tracking { db in
            try Brand.order { $0.name.collating(.localizedCaseInsensitiveCompare) }.fetchAll(db).map(\.name)
        }
        cancellable = observation.start(in: reader, scheduling: .immediate) { error in
            Issue.record(error)
        } onChange: { [unowned self] names in
            values.append(names)
        }
    }

    func wait(until condition: ([[String]]) -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition(values) {
            guard ContinuousClock.now < deadline else { Issue.record("timed out with \(values)"); return }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// The values an observation delivered, from any thread.
private final class ObservedCounts: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int] = []
    private var errors = 0
    func append(_ value: Int) { lock.withLock { values.append(value) } }
    func fail(_ error: any Error) { lock.withLock { errors += 1 } }
    var failures: Int { lock.withLock { errors } }

    func wait(until condition: @escaping ([Int]) -> Bool) async throws -> [Int] {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            let snapshot = lock.withLock { values }
            if condition(snapshot) || ContinuousClock.now >= deadline { return snapshot }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
