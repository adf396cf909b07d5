import Foundation
import SecureStore
import TestSupport
import XCTest

/// Record encoders are kept per thread and remember the keys of the
/// previous record. These tests change the keys from one record to the
/// next, mix record types, encode a record while encoding another on the
/// same thread, and encode from many threads at once.
final class RecordEncoderTests: SecureStoreTestCase {
    /// Encodes `extra` only when it is set (first, or last when asked),
    /// `name` twice when asked, and throws after `id` when asked.
    struct Flexible: Encodable, PersistableRecord {
        struct Refused: Error {}
        static let databaseTableName = "flexible"
        var id: Int64
        var name: String
        var extra: String?
        var nameTwice = false
        var extraLast = false
        var fails = false

        private enum CodingKeys: String, CodingKey { case id, name, extra }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            // Not `encodeIfPresent`, which encodes nil as NULL (as in GRDB).
            if let extra, !extraLast { try container.encode(extra, forKey: .extra) }
            try container.encode(id, forKey: .id)
            if fails { throw Refused() }
            try container.encode(name, forKey: .name)
            if nameTwice { try container.encode(name + " (last)", forKey: .name) }
            if let extra, extraLast { try container.encode(extra, forKey: .extra) }
        }
    }

    struct Other: Codable, PersistableRecord, FetchableRecord, Equatable {
        static let databaseTableName = "other"
        var id: Int64
        var score: Double
    }

    func testKeysThatChangeFromRecordToRecord() throws {
        let dbQueue = try makeEncryptedQueue()
        let records: [Flexible] = (1...30).map { (i: Int) -> Flexible in
            let extra: String? = i % 4 == 0 ? "x\(i)" : nil
            return Flexible(id: Int64(i), name: "n\(i)", extra: extra, nameTwice: i % 5 == 0)
        }
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE flexible (id INTEGER PRIMARY KEY, name TEXT, extra TEXT)")
            try db.execute(sql: "CREATE TABLE other (id INTEGER PRIMARY KEY, score REAL)")
            for record in records {
                try record.insert(db)
                // Another record type in between: another container.
                try Other(id: record.id, score: Double(record.id) / 4).insert(db)
            }
        }
        try dbQueue.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT id, name, extra FROM flexible ORDER BY id")
            XCTAssertEqual(rows.count, 30)
            for (record, row) in zip(records, rows) {
                XCTAssertEqual(row["id"] as Int64, record.id)
                XCTAssertEqual(row["name"] as String, record.nameTwice ? record.name + " (last)" : record.name)
                XCTAssertEqual(row["extra"] as String?, record.extra)
            }
            XCTAssertEqual(try Other.fetchAll(db, sql: "SELECT * FROM other ORDER BY id"),
                           (1...30).map { Other(id: Int64($0), score: Double($0) / 4) })
        }
        // The columns of each record, in encoding order, without duplicates.
        XCTAssertEqual(try Array(records[3].databaseDictionary.keys).sorted(), ["extra", "id", "name"])
        XCTAssertEqual(try records[4].databaseDictionary["name"], "n5 (last)".databaseValue)
        XCTAssertEqual(try records[4].databaseDictionary.count, 2)
    }

    /// The encoder reuses its storage for the next record: a container
    /// kept from an earlier insert must not change.
    func testAKeptContainerDoesNotChange() throws {
        struct Kept: Encodable, MutablePersistableRecord {
            static let databaseTableName = "other"
            var id: Int64?
            var score: Double
            var inserted: [PersistenceContainer] = []
            private enum CodingKeys: String, CodingKey { case id, score }
            mutating func didInsert(_ inserted: InsertionSuccess) {
                id = inserted.rowID
                self.inserted.append(inserted.persistenceContainer)
            }
        }
        let dbQueue = try makeEncryptedQueue()
        var record = Kept(id: nil, score: 1.5)
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE other (id INTEGER PRIMARY KEY, score REAL)")
            try record.insert(db)
            var other = Kept(id: nil, score: 2.5)
            for _ in 0..<3 { other.id = nil; try other.insert(db) }
            record.id = nil
            record.score = 3.5
            try record.insert(db)
        }
        XCTAssertEqual(record.inserted.count, 2)
        XCTAssertEqual(record.inserted[0]["score"] as? Double, 1.5)
        XCTAssertEqual(record.inserted[1]["score"] as? Double, 3.5)
        XCTAssertEqual(record.id, 5)
    }

    /// The encoder replaces the previous record's values in place while
    /// the columns repeat: a record that stops early (a nil last column)
    /// or throws half-way must leave none of the previous record's
    /// columns behind, in its own container or in the next record's.
    func testRecordsThatStopEarlyOrThrowHalfWay() throws {
        func trailing(_ id: Int64, _ name: String, _ extra: String?, fails: Bool = false) -> Flexible {
            Flexible(id: id, name: name, extra: extra, extraLast: true, fails: fails)
        }
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE flexible (id INTEGER PRIMARY KEY, name TEXT, extra TEXT DEFAULT 'default')")
            try trailing(1, "a", "x").insert(db)
            try trailing(2, "b", nil).insert(db)
            XCTAssertThrowsError(try trailing(3, "c", nil, fails: true).insert(db)) { XCTAssertTrue($0 is Flexible.Refused) }
            try trailing(4, "d", "y").insert(db)
            XCTAssertThrowsError(try trailing(5, "e", "z", fails: true).insert(db))
            try trailing(6, "f", nil).insert(db)
        }
        XCTAssertEqual(try trailing(7, "g", "w").databaseDictionary.count, 3)
        XCTAssertEqual(try trailing(8, "h", nil).databaseDictionary,
                       ["id": Int64(8).databaseValue, "name": "h".databaseValue])
        try dbQueue.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT id, name, extra FROM flexible ORDER BY id")
            XCTAssertEqual(rows.map { $0["id"] as Int64 }, [1, 2, 4, 6])
            XCTAssertEqual(rows.map { $0["name"] as String }, ["a", "b", "d", "f"])
            // Without an extra, the column takes its default.
            XCTAssertEqual(rows.map { $0["extra"] as String }, ["x", "default", "y", "default"])
        }
    }

    /// Encodes, in the middle of its own encoding, another record (whose
    /// values it stores as one column): the thread's encoder is in use,
    /// so the inner record gets a fresh one, and neither sees the other's
    /// columns.
    struct Nesting: Encodable, PersistableRecord {
        static let databaseTableName = "nesting"
        var id: Int64
        var inner: Other

        private enum CodingKeys: String, CodingKey { case id, innerColumns }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            let columns = try inner.databaseDictionary.keys.sorted().joined(separator: ",")
            try container.encode(columns, forKey: .innerColumns)
        }
    }

    func testEncodingARecordWhileEncodingAnother() throws {
        for i in 1...3 {
            let dictionary = try Nesting(id: Int64(i), inner: Other(id: 10, score: 1.5)).databaseDictionary
            XCTAssertEqual(dictionary, ["id": Int64(i).databaseValue, "innerColumns": "id,score".databaseValue])
            // The thread's encoder is intact afterwards.
            XCTAssertEqual(try Other(id: Int64(i), score: 2).databaseDictionary,
                           ["id": Int64(i).databaseValue, "score": 2.0.databaseValue])
        }
    }

    func testEncodingFromManyThreadsAtOnce() throws {
        let results = Locked(Array(repeating: false, count: 2000))
        DispatchQueue.concurrentPerform(iterations: 2000) { i in
            let ok: Bool
            if i % 2 == 0 {
                let extra: String? = i % 3 == 0 ? "e\(i)" : nil
                let dictionary = try? Flexible(id: Int64(i), name: "n\(i)", extra: extra).databaseDictionary
                let expectedExtra: DatabaseValue? = extra?.databaseValue
                ok = dictionary?["id"] == Int64(i).databaseValue && dictionary?["name"] == "n\(i)".databaseValue
                    && dictionary?["extra"] == expectedExtra
            } else {
                let dictionary = try? Other(id: Int64(i), score: Double(i)).databaseDictionary
                ok = dictionary == ["id": Int64(i).databaseValue, "score": Double(i).databaseValue]
            }
            results.withLock { $0[i] = ok }
        }
        XCTAssertEqual(results.withLock { $0.filter { !$0 }.count }, 0)
    }
}
