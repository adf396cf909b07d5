import Foundation
import SecureStore
import TestSupport
import XCTest

/// The insert of `Encodable` records whose callbacks are the defaults,
/// which binds each value to the cached INSERT as it is encoded once a
/// connection has inserted a record of the type: every value lands in
/// its column, records whose columns change take an INSERT of their own,
/// a failure reports the values and leaves nothing behind, and records
/// with callbacks of their own still get them, with the container.
final class BindingInsertTests: TracedQueueTestCase {
    /// Every kind of value, NULLs included, with the default callbacks.
    private struct Sample: Codable, FetchableRecord, PersistableRecord, Equatable {
        static let databaseTableName = "sample"
        var id: Int64
        var name: String
        var score: Double
        var flag: Bool
        /// NULL in every third record, and `note` in every fifth.
        var payload: Data?, note: String?
        var day: Date
    }

    /// Another type with the default callbacks, inserted between samples.
    private struct Other: Codable, PersistableRecord {
        static let databaseTableName = "other"
        var label: String
    }

    /// A record that encodes `note` only when it has one, and `score`
    /// before `name` when told: its columns change from record to record.
    private struct Shifting: Encodable, PersistableRecord {
        static let databaseTableName = "sample"
        var id: Int64
        var name: String
        var score: Double
        var note: String?
        var scoreFirst = false

        private enum CodingKeys: String, CodingKey { case id, name, score, flag, day, note }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            if scoreFirst { try container.encode(score, forKey: .score) }
            try container.encode(name, forKey: .name)
            if !scoreFirst { try container.encode(score, forKey: .score) }
            try container.encode(false, forKey: .flag)
            try container.encode(Date(timeIntervalSince1970: 0), forKey: .day)
            if let note { try container.encode(note, forKey: .note) }
        }
    }

    /// A value whose encoding fails when told to, after the record's first
    /// values were encoded.
    private struct Fragile: Encodable {
        var fails: Bool
        struct Refused: Error {}
        func encode(to encoder: any Encoder) throws {
            if fails { throw Refused() }
            var container = encoder.singleValueContainer()
            try container.encode("intact")
        }
    }

    private struct Breakable: Encodable, PersistableRecord {
        static let databaseTableName = "sample"
        var id: Int64
        var name: String
        var note: Fragile

        private enum CodingKeys: String, CodingKey { case id, name, score, flag, day, note }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(name, forKey: .name)
            try container.encode(1.5, forKey: .score)
            try container.encode(true, forKey: .flag)
            try container.encode(Date(timeIntervalSince1970: 0), forKey: .day)
            try container.encode(note, forKey: .note)
        }
    }

    /// What the records with callbacks of their own saw, in order.
    private static let log = Locked<[String]>([])
    private static func note(_ callback: String, _ container: PersistenceContainer) {
        log.mutate { $0.append("\(callback) \(container["label"]?.databaseValue ?? .null)") }
    }

    /// Records with one callback or the container of their own: each must
    /// see every insert.
    private struct OwnDidInsert: Codable, PersistableRecord {
        static let databaseTableName = "other"
        var label: String
        func didInsert(_ inserted: InsertionSuccess) { BindingInsertTests.note("didInsert \(inserted.rowID)", inserted.persistenceContainer) }
    }

    private struct OwnDidSave: Codable, PersistableRecord {
        static let databaseTableName = "other"
        var label: String
        func didSave(_ saved: PersistenceSuccess) { BindingInsertTests.note("didSave", saved.persistenceContainer) }
    }

    private struct OwnAroundInsert: Codable, PersistableRecord {
        static let databaseTableName = "other"
        var label: String
        func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws {
            BindingInsertTests.note("aroundInsert", try insert().persistenceContainer)
        }
    }

    private struct OwnContainer: Codable, PersistableRecord {
        static let databaseTableName = "other"
        var label: String
        func encode(to container: inout PersistenceContainer) throws { container["label"] = "own " + label }
    }

    /// Every integer width, Float, optionals of them, and texts that are
    /// empty, hold a NUL, or come from `NSString`.
    private struct Widths: Codable, PersistableRecord {
        static let databaseTableName = "widths"
        var id: Int
        var i8: Int8, i16: Int16, i32: Int32, i64: Int64
        var u8: UInt8, u16: UInt16, u32: UInt32
        var float: Float, flag: Bool
        var maybeInt: Int?, maybeFlag: Bool?, maybeFloat: Float?
        var empty: String, withNul: String, bridged: String
    }

    /// A record that runs `meanwhile` between its two values: after its
    /// first value was bound, before its second.
    private struct Nesting: Encodable, PersistableRecord {
        static let databaseTableName = "nesting"
        var label: String
        var meanwhile: (() throws -> Void)?

        init(_ label: String, meanwhile: (() throws -> Void)? = nil) {
            self.label = label
            self.meanwhile = meanwhile
        }

        private enum CodingKeys: String, CodingKey { case label, echo }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(label, forKey: .label)
            try meanwhile?()
            try container.encode(label + "!", forKey: .echo)
        }
    }

    override func setUpSchema(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE sample (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score REAL, flag BOOLEAN NOT NULL,
                                 payload BLOB, note TEXT DEFAULT 'default note', day DATETIME NOT NULL);
            CREATE TABLE other (id INTEGER PRIMARY KEY, label TEXT NOT NULL UNIQUE);
            CREATE TABLE widths (id INTEGER PRIMARY KEY, i8, i16, i32, i64, u8, u16, u32, float, flag,
                                 maybeInt, maybeFlag, maybeFloat, empty, withNul, bridged);
            CREATE TABLE nesting (id INTEGER PRIMARY KEY, label TEXT NOT NULL, echo TEXT NOT NULL)
            """)
        Self.log.value = []
    }

    private func sample(_ id: Int64) -> Sample {
        Sample(id: id, name: "name \(id) é", score: Double(id) / 4, flag: id % 2 == 0,
               payload: id % 3 == 0 ? nil : Data([UInt8(id % 256), 0, 255]), note: id % 5 == 0 ? nil : "note \(id)",
               day: Date(timeIntervalSince1970: 1_700_000_000 + Double(id)))
    }

    /// Many records, other records between them, with every kind of value
    /// and NULL, read back by SecureStore and by the `sqlcipher` CLI.
    func testEveryValueLandsInItsColumn() throws {
        let samples = (1...40).map(sample)
        try dbQueue.write { db in
            for sample in samples {
                try sample.insert(db)
                if sample.id % 7 == 0 { try Other(label: "other \(sample.id)").insert(db) }
            }
        }
        XCTAssertEqual(try dbQueue.read { try Sample.order(Column("id")).fetchAll($0) }, samples)
        XCTAssertEqual(try dbQueue.read { try String.fetchAll($0, sql: "SELECT label FROM other ORDER BY id") },
                       ["other 7", "other 14", "other 21", "other 28", "other 35"])
        let result = try CommandLineClient.sqlcipher(
            path("db.sqlite"), preamble: "PRAGMA key = 'secret';",
            sql: "SELECT id, name, score, flag, hex(payload), typeof(payload), typeof(note), day FROM sample WHERE id IN (5, 6);")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout.split(separator: "\n").suffix(2), [
            "5|name 5 é|1.25|0|0500FF|blob|null|2023-11-14 22:13:25.000",
            "6|name 6 é|1.5|1||null|text|2023-11-14 22:13:26.000",
        ])
    }

    /// A record whose columns are not the previous record's, or not in the
    /// same order, is inserted with the INSERT of its own columns.
    func testRecordsWhoseColumnsChangeAreInsertedWithTheirOwn() throws {
        let records = [
            Shifting(id: 1, name: "a", score: 1, note: "n1"),
            Shifting(id: 2, name: "b", score: 2, note: "n2"),
            Shifting(id: 3, name: "c", score: 3, note: nil),
            Shifting(id: 4, name: "d", score: 4, note: "n4"),
            Shifting(id: 5, name: "e", score: 5, note: "n5", scoreFirst: true),
            Shifting(id: 6, name: "f", score: 6, note: "n6"),
            Shifting(id: 7, name: "g", score: 7, note: nil),
        ]
        try dbQueue.write { db in
            for record in records { try record.insert(db) }
        }
        let rows = try dbQueue.read { db in
            try Row.fetchAll(db, sql: "SELECT id, name, score, note FROM sample ORDER BY id").map {
                "\($0["id"] as Int64) \($0["name"] as String) \($0["score"] as Double) \($0["note"] as String)"
            }
        }
        XCTAssertEqual(rows, ["1 a 1.0 n1", "2 b 2.0 n2", "3 c 3.0 default note", "4 d 4.0 n4",
                              "5 e 5.0 n5", "6 f 6.0 n6", "7 g 7.0 default note"])
    }

    /// A failed INSERT reports the record's values, as any insert does,
    /// and the next records are inserted.
    func testAFailedInsertReportsTheRecordsValues() throws {
        try dbQueue.write { db in
            try Other(label: "first").insert(db)
            try Other(label: "second").insert(db)
            XCTAssertThrowsError(try Other(label: "first").insert(db)) { error in
                guard let error = error as? DatabaseError else { return XCTFail("\(error)") }
                XCTAssertEqual(error.resultCode, .SQLITE_CONSTRAINT)
                XCTAssertEqual(error.arguments, ["first"])
            }
            try Other(label: "third").insert(db)
        }
        XCTAssertEqual(try dbQueue.read { try String.fetchAll($0, sql: "SELECT label FROM other ORDER BY id") },
                       ["first", "second", "third"])
    }

    /// A record whose encoding fails half-way inserts nothing, and leaves
    /// none of its values to the next record.
    func testARecordWhoseEncodingFailsInsertsNothing() throws {
        try dbQueue.write { db in
            try Breakable(id: 1, name: "one", note: Fragile(fails: false)).insert(db)
            XCTAssertThrowsError(try Breakable(id: 2, name: "two", note: Fragile(fails: true)).insert(db)) { error in
                XCTAssertTrue(error is Fragile.Refused, "\(error)")
            }
            try Breakable(id: 3, name: "three", note: Fragile(fails: false)).insert(db)
        }
        let rows = try dbQueue.read { try String.fetchAll($0, sql: "SELECT id || ' ' || name || ' ' || note FROM sample ORDER BY id") }
        XCTAssertEqual(rows, ["1 one intact", "3 three intact"])
    }

    /// After the schema changes, or with another conflict resolution, the
    /// values go to the right columns, by the right INSERT.
    func testSchemaChangesAndConflictResolutions() throws {
        try dbQueue.write { db in
            try Other(label: "a").insert(db)
            try Other(label: "b").insert(db)
            try db.execute(sql: "DROP TABLE other; CREATE TABLE other (label TEXT NOT NULL UNIQUE, extra TEXT DEFAULT 'x', id INTEGER PRIMARY KEY)")
            try Other(label: "c").insert(db)
            try Other(label: "d").insert(db)
            try Other(label: "c").insert(db, onConflict: .ignore)
            try Other(label: "e").insert(db)
            XCTAssertThrowsError(try Other(label: "e").insert(db))
        }
        XCTAssertEqual(try dbQueue.read { try String.fetchAll($0, sql: "SELECT id || label || extra FROM other ORDER BY id") },
                       ["1cx", "2dx", "3ex"])
    }

    /// A record type with its own `didInsert`, `didSave`, `aroundInsert`
    /// or container gets it for every record, among records that bind
    /// while encoding.
    func testOwnCallbacksAndContainersSeeEveryInsert() throws {
        try dbQueue.write { db in
            for round in 1...3 {
                try OwnDidInsert(label: "inserted \(round)").insert(db)
                try OwnDidSave(label: "saved \(round)").insert(db)
                try OwnContainer(label: "\(round)").insert(db)
                try OwnAroundInsert(label: "around \(round)").insert(db)
                try Other(label: "other \(round)").insert(db)
            }
        }
        XCTAssertEqual(Self.log.value, [1, 2, 3].flatMap { round in
            ["didInsert \(5 * round - 4) \"inserted \(round)\"", "didSave \"saved \(round)\"", "aroundInsert \"around \(round)\""]
        })
        XCTAssertEqual(try dbQueue.read { try String.fetchAll($0, sql: "SELECT label FROM other WHERE label LIKE 'own %' ORDER BY id") },
                       ["own 1", "own 2", "own 3"])
    }

    /// Each value binds as its `databaseValue` would: the first record of
    /// the type goes through its container, the next ones bind as they
    /// are encoded, and all read back alike (storage class and value).
    func testEveryDirectlyBoundTypeBindsAsItsDatabaseValue() throws {
        let bridged = NSString(string: "bridged ✓").appending(" text")
        func widths(_ id: Int, extreme: Bool) -> Widths {
            Widths(id: id, i8: extreme ? .min : 8, i16: extreme ? .min : -16, i32: extreme ? .max : 32,
                   i64: extreme ? .min : 64, u8: extreme ? .max : 0, u16: extreme ? .max : 16, u32: extreme ? .max : 32,
                   float: extreme ? -8_388_607.5 : 0.5, flag: extreme,
                   maybeInt: extreme ? .max : nil, maybeFlag: extreme ? false : nil, maybeFloat: extreme ? 1.25 : nil,
                   empty: "", withNul: "a\u{0}b", bridged: bridged)
        }
        let records = [widths(1, extreme: false), widths(2, extreme: true), widths(3, extreme: false), widths(4, extreme: true)]
        try dbQueue.write { db in
            for record in records { try record.insert(db) }
        }
        let columns = "i8, i16, i32, i64, u8, u16, u32, float, flag, maybeInt, maybeFlag, maybeFloat, empty, withNul, bridged"
        let described = columns.split(separator: ",").map { "typeof(\($0)) || ':' || quote(\($0))" }.joined(separator: " || ' ' || ")
        let rows = try dbQueue.read { try String.fetchAll($0, sql: "SELECT \(described) FROM widths ORDER BY id") }
        let plain = "integer:8 integer:-16 integer:32 integer:64 integer:0 integer:16 integer:32 real:0.5 integer:0 "
            + "null:NULL null:NULL null:NULL text:'' text:'a' text:'bridged ✓ text'"
        let extreme = "integer:-128 integer:-32768 integer:2147483647 integer:-9223372036854775808 integer:255 integer:65535 "
            + "integer:4294967295 real:-8388607.5 integer:1 integer:9223372036854775807 integer:0 real:1.25 "
            + "text:'' text:'a' text:'bridged ✓ text'"
        XCTAssertEqual(rows, [plain, extreme, plain, extreme])
        // quote() stops at the NUL: the text's length and bytes tell.
        XCTAssertEqual(try dbQueue.read { try String.fetchAll($0, sql: "SELECT length(CAST(withNul AS BLOB)) || hex(withNul) FROM widths") },
                       ["3610062", "3610062", "3610062", "3610062"])
    }

    /// Records inserted by a record's own `encode(to:)` while its values
    /// are being bound, or by a SQL function while its INSERT runs: of its
    /// own type, of another, after a change of the schema that empties
    /// the connection's cache of INSERTs. Each record keeps its values.
    func testRecordsInsertedWhileARecordIsBeingBound() throws {
        try dbQueue.write { db in
            nonisolated(unsafe) let connection = db
            db.add(function: DatabaseFunction("insertNesting", argumentCount: 1) { values in
                try Nesting(String.fromDatabaseValue(values[0])! + " from trigger").insert(connection)
                return nil
            })
            try db.execute(sql: """
                CREATE TRIGGER nestingTrigger AFTER INSERT ON nesting WHEN new.label = '7'
                BEGIN SELECT insertNesting(new.label); END
                """)
            try Other(label: "o1").insert(db)
            try Other(label: "o2").insert(db)
            try Nesting("1").insert(db)
            try Nesting("2").insert(db)
            try Nesting("3") { try Nesting("3 inner").insert(db) }.insert(db)
            try Nesting("4") { try Other(label: "o4").insert(db) }.insert(db)
            try Nesting("5") {
                try db.execute(sql: "CREATE TABLE later (x)")
                try Nesting("5 inner").insert(db)
            }.insert(db)
            try Nesting("6").insert(db)
            try Nesting("7").insert(db)
            try Nesting("8").insert(db)
        }
        XCTAssertEqual(try dbQueue.read { try String.fetchAll($0, sql: "SELECT label || ' ' || echo FROM nesting ORDER BY id") },
                       ["1 1!", "2 2!", "3 inner 3 inner!", "3 3!", "4 4!", "5 inner 5 inner!", "5 5!", "6 6!",
                        "7 7!", "7 from trigger 7 from trigger!", "8 8!"])
        XCTAssertEqual(try dbQueue.read { try String.fetchAll($0, sql: "SELECT label FROM other ORDER BY id") }, ["o1", "o2", "o4"])
    }
}
