import Foundation
import SecureStore
import XCTest

/// Decodable records read from a cursor's row reuse the container and the
/// column of each key from one row to the next. These tests change what a
/// record asks for between rows, and check every answer.
final class RowDecoderTests: SecureStoreTestCase {
    struct Item: Decodable, Equatable, FetchableRecord {
        var id: Int64
        var name: String
        var score: Double
        var note: String?
    }

    /// The first column holds the kind; the other keys depend on it.
    enum Shape: Decodable, Equatable, FetchableRecord {
        case circle(radius: Double)
        case rectangle(width: Int, height: Int)
        case unknown

        private enum CodingKeys: String, CodingKey { case kind, radius, width, height }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            switch try container.decode(String.self, forKey: .kind) {
            case "circle": self = .circle(radius: try container.decode(Double.self, forKey: .radius))
            case "rectangle": self = .rectangle(width: try container.decode(Int.self, forKey: .width),
                                                height: try container.decode(Int.self, forKey: .height))
            default: self = .unknown
            }
        }
    }

    private func makeItems(_ db: Database, count: Int) throws {
        try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, score REAL, note TEXT)")
        for id in 1...count {
            try db.execute(sql: "INSERT INTO item VALUES (?, ?, ?, ?)",
                           arguments: [id, "n\(id)", Double(id) / 2, id % 3 == 0 ? nil : "note \(id)"])
        }
    }

    private func expectedItem(_ id: Int) -> Item {
        Item(id: Int64(id), name: "n\(id)", score: Double(id) / 2, note: id % 3 == 0 ? nil : "note \(id)")
    }

    func testManyRowsDecodeLikeOneAtATime() throws {
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.write { try makeItems($0, count: 100) }
        try dbQueue.read { db in
            let expected = (1...100).map(expectedItem)
            XCTAssertEqual(try Item.fetchAll(db, sql: "SELECT * FROM item ORDER BY id"), expected)
            // Columns in another order and case than the keys; extra columns.
            XCTAssertEqual(try Item.fetchAll(db, sql: "SELECT NOTE, 0 AS extra, SCORE, Name, ID FROM item ORDER BY id"), expected)
            // Copied rows (no live statement) take the other path.
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM item ORDER BY id")
            XCTAssertEqual(try rows.map(Item.init(row:)), expected)
            // No rows, one row, and across the growth of the result storage.
            XCTAssertEqual(try Item.fetchAll(db, sql: "SELECT * FROM item WHERE id > 1000"), [])
            XCTAssertEqual(try Item.fetchAll(db, sql: "SELECT * FROM item WHERE id = 7"), [expectedItem(7)])
            XCTAssertEqual(try Item.fetchAll(db, sql: "SELECT * FROM item WHERE id <= 17 ORDER BY id"), Array(expected.prefix(17)))
        }
    }

    func testKeysThatChangeFromRowToRow() throws {
        let dbQueue = try makeEncryptedQueue()
        let shapes = try dbQueue.write { db -> [Shape] in
            try db.execute(sql: """
                CREATE TABLE shape (id INTEGER PRIMARY KEY, kind TEXT, radius REAL, width INTEGER, height INTEGER);
                INSERT INTO shape VALUES (1, 'circle', 1.5, NULL, NULL);
                INSERT INTO shape VALUES (2, 'rectangle', NULL, 2, 3);
                INSERT INTO shape VALUES (3, 'rectangle', NULL, 4, 5);
                INSERT INTO shape VALUES (4, 'circle', 2.5, NULL, NULL);
                INSERT INTO shape VALUES (5, 'triangle', NULL, NULL, NULL);
                INSERT INTO shape VALUES (6, 'circle', 3.5, NULL, NULL);
                """)
            return try Shape.fetchAll(db, sql: "SELECT * FROM shape ORDER BY id")
        }
        XCTAssertEqual(shapes, [.circle(radius: 1.5), .rectangle(width: 2, height: 3), .rectangle(width: 4, height: 5),
                                .circle(radius: 2.5), .unknown, .circle(radius: 3.5)])
    }

    /// One row decoded as two record types, one after the other, on every row.
    func testTwoRecordTypesFromTheSameRow() throws {
        struct Name: Decodable, Equatable { var name: String }
        struct Score: Decodable, Equatable { var score: Double }
        struct Both: Decodable, Equatable, FetchableRecord {
            var name: Name
            var score: Score
            var id: Int64
            private enum CodingKeys: String, CodingKey { case id }
            init(name: Name, score: Score, id: Int64) { (self.name, self.score, self.id) = (name, score, id) }
            init(from decoder: any Decoder) throws {
                name = try Name(from: decoder)
                score = try Score(from: decoder)
                id = try decoder.container(keyedBy: CodingKeys.self).decode(Int64.self, forKey: .id)
            }
        }
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.write { try makeItems($0, count: 20) }
        let fetched = try dbQueue.read { try Both.fetchAll($0, sql: "SELECT * FROM item ORDER BY id") }
        XCTAssertEqual(fetched, (1...20).map { Both(name: Name(name: "n\($0)"), score: Score(score: Double($0) / 2), id: Int64($0)) })
    }

    /// Copied rows (`fetchAll` of rows, prefetched rows) share where their
    /// keys were found: keys that change from row to row, a record decoded
    /// from the whole row of another, and a key that names nothing.
    func testCopiedRowsOfOneFetchDecodeLikeOneAtATime() throws {
        struct Outer: Decodable, FetchableRecord { var item: Item; var id: Int64 }
        struct Missing: Decodable, FetchableRecord { var item: Item; var other: Item }
        let dbQueue = try makeEncryptedQueue()
        let rows = try dbQueue.write { db -> [Row] in
            try db.execute(sql: """
                CREATE TABLE shape (id INTEGER PRIMARY KEY, kind TEXT, radius REAL, width INTEGER, height INTEGER);
                INSERT INTO shape VALUES (1, 'circle', 1.5, NULL, NULL), (2, 'rectangle', NULL, 2, 3),
                                         (3, 'triangle', NULL, NULL, NULL), (4, 'circle', 2.5, NULL, NULL);
                """)
            return try Row.fetchAll(db, sql: "SELECT * FROM shape ORDER BY id")
        }
        XCTAssertEqual(try rows.map(Shape.init(row:)), [.circle(radius: 1.5), .rectangle(width: 2, height: 3), .unknown, .circle(radius: 2.5)])

        let items = try dbQueue.write { db -> [Row] in
            try makeItems(db, count: 3)
            return try Row.fetchAll(db, sql: "SELECT * FROM item ORDER BY id")
        }
        let outer = try items.map(Outer.init(row:))
        XCTAssertEqual(outer.map(\.item), (1...3).map(expectedItem))
        XCTAssertEqual(outer.map(\.id), [1, 2, 3])
        // Two keys that name nothing: an error on every row, as GRDB.
        for row in items {
            XCTAssertThrowsError(try Missing(row: row)) { error in
                XCTAssertTrue("\(error)".contains("No such key: item or other"), "\(error)")
            }
        }
    }

    func testErrorsNameTheColumnOnAnyRow() throws {
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in
            try makeItems(db, count: 5)
            try db.execute(sql: "UPDATE item SET score = NULL WHERE id = 4")
            try db.execute(sql: "UPDATE item SET name = NULL WHERE id = 5")
        }
        try dbQueue.read { db in
            // Row 4 fails after three rows decoded through the cached path.
            XCTAssertThrowsError(try Item.fetchAll(db, sql: "SELECT * FROM item WHERE id <= 4 ORDER BY id")) { error in
                XCTAssertTrue("\(error)".contains("could not decode Double from the NULL value in column \"score\""), "\(error)")
            }
            XCTAssertThrowsError(try Item.fetchAll(db, sql: "SELECT * FROM item WHERE id IN (1, 2, 5) ORDER BY id")) { error in
                XCTAssertTrue("\(error)".contains("could not decode String from the NULL value in column \"name\""), "\(error)")
            }
            // A missing column: an error for a value, nil for an optional.
            XCTAssertThrowsError(try Item.fetchAll(db, sql: "SELECT id, name, note FROM item")) { error in
                XCTAssertTrue("\(error)".contains("no column named \"score\""), "\(error)")
            }
            let withoutNote = try Item.fetchAll(db, sql: "SELECT id, name, score FROM item WHERE id <= 3 ORDER BY id")
            XCTAssertEqual(withoutNote.map(\.note), [nil, nil, nil])
            XCTAssertEqual(withoutNote.map(\.name), ["n1", "n2", "n3"])
        }
    }

    /// A failure halfway through a fetch releases the records decoded so far.
    func testAFailedFetchReleasesWhatItDecoded() throws {
        final class Tracked {
            nonisolated(unsafe) static var alive = 0
            init() { Tracked.alive += 1 }
            deinit { Tracked.alive -= 1 }
        }
        struct Holder: Decodable, FetchableRecord {
            var value: Int64
            var tracked = Tracked()
            private enum CodingKeys: String, CodingKey { case value }
            init(from decoder: any Decoder) throws {
                value = try decoder.container(keyedBy: CodingKeys.self).decode(Int64.self, forKey: .value)
            }
        }
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE holder (value)")
            for value in 1...40 { try db.execute(sql: "INSERT INTO holder VALUES (?)", arguments: [value]) }
            try db.execute(sql: "INSERT INTO holder VALUES (NULL)")
        }
        Tracked.alive = 0
        let values = try dbQueue.read { try Holder.fetchAll($0, sql: "SELECT value FROM holder WHERE typeof(value) = 'integer'") }
        XCTAssertEqual(values.map(\.value), Array(1...40))
        XCTAssertEqual(Tracked.alive, 40)
        _ = consume values
        XCTAssertEqual(Tracked.alive, 0)
        XCTAssertThrowsError(try dbQueue.read { try Holder.fetchAll($0, sql: "SELECT value FROM holder ORDER BY rowid") }) { error in
            XCTAssertTrue("\(error)".contains("could not decode Int64 from the NULL value in column \"value\""), "\(error)")
        }
        XCTAssertEqual(Tracked.alive, 0, "the 40 records decoded before the failure were released")
    }

    /// A record's keys are recognized from row to row by their bits when
    /// their type is small and holds no reference, by their names
    /// otherwise. Keys of every such kind, asked in an order that changes
    /// from row to row, each find their own column on every row.
    func testKeysOfEveryKindFindTheirColumnsOnEveryRow() throws {
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE reading (id INTEGER PRIMARY KEY, kind TEXT, a TEXT, b TEXT, c TEXT, seen DOUBLE)")
            for (id, kind) in ["ab", "ba", "c", "cab", "ab", "bca", "a", "ab"].enumerated() {
                try db.execute(sql: "INSERT INTO reading VALUES (?, ?, ?, ?, ?, ?)",
                               arguments: [id, kind, "a\(id)", "b\(id)", "c\(id)", id % 2 == 0 ? Double(id) : nil])
            }
        }
        try dbQueue.read { db in
            let expected = try Row.fetchAll(db, sql: "SELECT * FROM reading ORDER BY id").map { row -> [String] in
                let kind: String = row["kind"]
                let seen: Double? = row["seen"]
                return [kind] + kind.map { row[String($0)] as String } + [seen.map { "\($0)" } ?? "nil"]
            }
            let sql = "SELECT * FROM reading ORDER BY id"
            XCTAssertEqual(try Reading<ByteKey>.fetchAll(db, sql: sql).map(\.values), expected, "one byte")
            XCTAssertEqual(try Reading<TwoByteKey>.fetchAll(db, sql: sql).map(\.values), expected, "two bytes")
            XCTAssertEqual(try Reading<PaddedKey>.fetchAll(db, sql: sql).map(\.values), expected, "bytes with padding")
            XCTAssertEqual(try Reading<WideKey>.fetchAll(db, sql: sql).map(\.values), expected, "eight bytes")
            XCTAssertEqual(try Reading<StringKey>.fetchAll(db, sql: sql).map(\.values), expected, "a string")
            // The copies of a fetch's rows share a plan too.
            let rows = try Row.fetchAll(db, sql: sql)
            XCTAssertEqual(try rows.map { try Reading<TwoByteKey>(row: $0).values }, expected, "copied rows")
            // A key type of no bytes (one case).
            struct Only: Decodable, Equatable, FetchableRecord { var only: String }
            XCTAssertEqual(try Only.fetchAll(db, sql: "SELECT a AS only FROM reading ORDER BY id").map(\.only),
                           (0..<8).map { "a\($0)" })
        }
    }

    /// Records of more keys than the plan first has room for (eight): its
    /// storage grows, and a key past the eighth that changes from row to
    /// row still finds its own column on every row, live or copied.
    func testRecordsOfManyKeysFindTheirColumnsOnEveryRow() throws {
        struct Wide: Decodable, Equatable, FetchableRecord {
            var c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11: Int
        }
        /// Ten keys, then `c10` on even rows and `c11` on odd ones.
        struct Alternating: Decodable, Equatable, FetchableRecord {
            var values: [Int]
            private enum CodingKeys: String, CodingKey { case c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11 }
            init(values: [Int]) { self.values = values }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                let keys: [CodingKeys] = [.c0, .c1, .c2, .c3, .c4, .c5, .c6, .c7, .c8, .c9]
                values = try keys.map { try container.decode(Int.self, forKey: $0) }
                values.append(try container.decode(Int.self, forKey: (values[0] / 100) % 2 == 0 ? .c10 : .c11))
            }
        }
        let columns = (0..<12).map { "c\($0)" }
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE wide (\(columns.map { "\($0) INTEGER" }.joined(separator: ", ")))")
            for row in 1...40 {
                try db.execute(sql: "INSERT INTO wide VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))",
                               arguments: StatementArguments((0..<12).map { row * 100 + $0 }))
            }
        }
        try dbQueue.read { db in
            let sql = "SELECT * FROM wide ORDER BY c0"
            let wide = (1...40).map { row -> Wide in
                let v: [Int] = (0..<12).map { row * 100 + $0 }
                return Wide(c0: v[0], c1: v[1], c2: v[2], c3: v[3], c4: v[4], c5: v[5],
                            c6: v[6], c7: v[7], c8: v[8], c9: v[9], c10: v[10], c11: v[11])
            }
            XCTAssertEqual(try Wide.fetchAll(db, sql: sql), wide)
            // Columns in reverse order: every key's column is another index.
            XCTAssertEqual(try Wide.fetchAll(db, sql: "SELECT \(columns.reversed().joined(separator: ", ")) FROM wide ORDER BY c0"), wide)
            let alternating = (1...40).map { row -> Alternating in
                let first: [Int] = (0..<10).map { row * 100 + $0 }
                let last: Int = row * 100 + (row % 2 == 0 ? 10 : 11)
                return Alternating(values: first + [last])
            }
            XCTAssertEqual(try Alternating.fetchAll(db, sql: sql), alternating)
            XCTAssertEqual(try Row.fetchAll(db, sql: sql).map(Alternating.init(row:)), alternating, "copied rows")
        }
    }
}

/// A key that names one of the columns of `reading`.
private protocol ReadingKey: CodingKey {
    init(named name: String)
}

private let readingColumns = ["kind", "a", "b", "c", "seen"]

extension ReadingKey {
    init?(stringValue: String) {
        guard readingColumns.contains(stringValue) else { return nil }
        self.init(named: stringValue)
    }
    init?(intValue: Int) { nil }
    var intValue: Int? { nil }
}

/// The kind column, then the columns its letters name, in their order,
/// then `seen` (nil when NULL).
private struct Reading<Key: ReadingKey>: Decodable, FetchableRecord {
    var values: [String]

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let kind = try container.decode(String.self, forKey: Key(named: "kind"))
        values = [kind]
        for letter in kind {
            values.append(try container.decode(String.self, forKey: Key(named: String(letter))))
        }
        let seen = try container.decodeIfPresent(Double.self, forKey: Key(named: "seen"))
        values.append(seen.map { "\($0)" } ?? "nil")
    }
}

/// One byte, as synthesized keys are.
private enum ByteKey: String, ReadingKey {
    case kind, a, b, c, seen
    init(named name: String) { self.init(rawValue: name)! }
}

/// Two bytes, both significant.
private struct TwoByteKey: ReadingKey {
    var tag: UInt8
    var check: UInt8
    init(named name: String) {
        tag = UInt8(readingColumns.firstIndex(of: name)!)
        check = tag &* 3 &+ 1
    }
    var stringValue: String { readingColumns[Int(tag)] }
}

/// Four bytes, one of them padding.
private struct PaddedKey: ReadingKey {
    var tag: UInt8
    var wide: UInt16
    init(named name: String) {
        tag = UInt8(readingColumns.firstIndex(of: name)!)
        wide = UInt16(tag) << 8
    }
    var stringValue: String { readingColumns[Int(tag)] }
}

/// Eight bytes: recognized by name.
private struct WideKey: ReadingKey {
    var tag: Int
    init(named name: String) { tag = readingColumns.firstIndex(of: name)! }
    var stringValue: String { readingColumns[tag] }
}

/// A reference inside: recognized by name.
private struct StringKey: ReadingKey {
    var stringValue: String
    init(named name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
}
