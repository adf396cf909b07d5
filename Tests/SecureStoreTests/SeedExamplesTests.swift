import Foundation
import SecureStore
import XCTest

// MARK: - A "Storage" module, as an app would write it

struct BrandRGDB: Codable, Equatable, FetchableRecord, PersistableRecord {
    var brandId: String
    var image: String?
    var keywords: String?
    var name: String?
    var language: String?

    enum Columns {
        static let brandId = Column("brandId")
        static let language = Column("language")
    }
}

protocol BrandStorageClient {
    func save(_ brands: [BrandRGDB]) throws
    func getBrandByLanguage(_ language: String) throws -> [BrandRGDB]
    func clearBrandBy(language: String) throws
    func delete(id: String) throws -> Int
}

struct BrandStorage: BrandStorageClient {
    let writer: any DatabaseWriter

    static func migrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("Zalora-v1") { db in
            try db.execute(sql: "CREATE TABLE brandRGDB (brandId TEXT PRIMARY KEY, image TEXT, keywords TEXT, name TEXT)")
        }
        migrator.registerMigration("Zalora-v2") { db in
            try db.execute(sql: "ALTER TABLE brandRGDB ADD COLUMN language TEXT; CREATE INDEX brandRGDB_on_language ON brandRGDB(language)")
        }
        return migrator
    }

    func save(_ brands: [BrandRGDB]) throws {
        try writer.write { db in for brand in brands { try brand.save(db) } }
    }

    func getBrandByLanguage(_ language: String) throws -> [BrandRGDB] {
        try writer.read { db in
            try BrandRGDB.filter(BrandRGDB.Columns.language == language).order(BrandRGDB.Columns.brandId).fetchAll(db)
        }
    }

    func clearBrandBy(language: String) throws {
        _ = try writer.write { db in try BrandRGDB.filter(BrandRGDB.Columns.language == language).deleteAll(db) }
    }

    func delete(id: String) throws -> Int {
        try writer.write { db in try BrandRGDB.filter(key: id).deleteAll(db) }
    }
}

// MARK: - Polymorphic decoding through a decoder protocol of one's own

class Base {
    let type: String
    init(type: String) { self.type = type }
}
final class Foo: Base {
    let name: String
    init(name: String) { self.name = name; super.init(type: "foo") }
}
final class Bar: Base {
    let score: Int
    init(score: Int) { self.score = score; super.init(type: "bar") }
}

struct UnknownRowType: Error { let type: String }

/// Decodes rows into values of a type chosen per row; may throw on bad rows.
protocol MyDatabaseDecoder {
    associatedtype DecodedType
    static func decode(_ row: Row) throws -> DecodedType
}

extension MyDatabaseDecoder {
    static func fetchCursor(_ statement: Statement, arguments: StatementArguments? = nil) throws -> MapCursor<RowCursor, DecodedType> {
        try Row.fetchCursor(statement, arguments: arguments).map { try decode($0) }
    }
    static func fetchAll(_ statement: Statement, arguments: StatementArguments? = nil) throws -> [DecodedType] {
        try Array(fetchCursor(statement, arguments: arguments))
    }
    static func fetchOne(_ statement: Statement, arguments: StatementArguments? = nil) throws -> DecodedType? {
        try fetchCursor(statement, arguments: arguments).next()
    }
    static func fetchAll(_ db: Database, sql: String, arguments: StatementArguments = StatementArguments()) throws -> [DecodedType] {
        try fetchAll(db.makeStatement(sql: sql), arguments: arguments)
    }
    static func fetchOne(_ db: Database, sql: String, arguments: StatementArguments = StatementArguments()) throws -> DecodedType? {
        try fetchOne(db.makeStatement(sql: sql), arguments: arguments)
    }
}

extension FetchRequest where RowDecoder: MyDatabaseDecoder {
    func fetchCursor(_ db: Database) throws -> MapCursor<RowCursor, RowDecoder.DecodedType> {
        try RowDecoder.fetchCursor(makePreparedRequest(db, forSingleResult: false).statement)
    }
    func fetchAll(_ db: Database) throws -> [RowDecoder.DecodedType] {
        try RowDecoder.fetchAll(makePreparedRequest(db, forSingleResult: false).statement)
    }
    func fetchOne(_ db: Database) throws -> RowDecoder.DecodedType? {
        try RowDecoder.fetchOne(makePreparedRequest(db, forSingleResult: true).statement)
    }
}

enum BaseDecoder: MyDatabaseDecoder, TableRecord {
    static let databaseTableName = "base"
    static func decode(_ row: Row) throws -> Base {
        let type: String = try row.decode(forColumn: "type")
        switch type {
        case "foo": return Foo(name: try row.decode(forColumn: "fooName"))
        case "bar": return Bar(score: try row.decode(forColumn: "barScore"))
        default: throw UnknownRowType(type: type)
        }
    }
}

// MARK: - Job / ExtendedJob: a LEFT JOIN in a custom request

struct Job: Codable, FetchableRecord, PersistableRecord {
    var id: Int64
    var userId: Int64
    var title: String
}

struct ExtendedJob: Decodable, FetchableRecord {
    var id: Int64
    var title: String
    var companyName: String

    /// The jobs of a user, with their company's name ("-" when unknown).
    static func filter(userId: Int64) -> SQLRequest<ExtendedJob> {
        """
        SELECT job.id, job.title, IFNULL(company.name, '-') AS companyName
        FROM job LEFT JOIN company ON company.jobId = job.id
        WHERE job.userId = \(userId)
        ORDER BY job.id
        """
    }
}

// MARK: - Two structs per table

/// Persistence: the table's shape, with an auto-incremented id.
struct PlayerRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "player"
    var id: Int64?
    var name: String
    var score: Int

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

/// The app's model: validated, never built from an invalid record.
struct Player: Equatable {
    struct Invalid: Error {}
    private(set) var id: Int64?
    let name: String
    let score: Int

    init(name: String, score: Int) throws {
        guard !name.isEmpty, score >= 0 else { throw Invalid() }
        self.name = name
        self.score = score
    }

    init(record: PlayerRecord) throws {
        try self.init(name: record.name, score: record.score)
        id = record.id
    }

    mutating func insert(_ db: Database) throws {
        var record = PlayerRecord(id: nil, name: name, score: score)
        try record.insert(db)
        id = record.id
    }
}

// MARK: - Tests

final class SeedExamplesTests: SecureStoreTestCase {
    func testBrandStorageModule() throws {
        let dbQueue = try makeEncryptedQueue()
        try BrandStorage.migrator().migrate(dbQueue)
        let storage: any BrandStorageClient = BrandStorage(writer: dbQueue)
        try storage.save([
            BrandRGDB(brandId: "b1", image: "1.png", keywords: "shoes", name: "One", language: "en"),
            BrandRGDB(brandId: "b2", image: nil, keywords: nil, name: "Deux", language: "fr"),
            BrandRGDB(brandId: "b3", image: "3.png", keywords: "bags", name: "Three", language: "en"),
        ])
        XCTAssertEqual(try storage.getBrandByLanguage("en").map(\.brandId), ["b1", "b3"])
        // save updates an existing brand
        try storage.save([BrandRGDB(brandId: "b1", image: "new.png", keywords: "shoes", name: "One", language: "en")])
        XCTAssertEqual(try storage.getBrandByLanguage("en").first?.image, "new.png")
        XCTAssertEqual(try storage.delete(id: "b3"), 1)
        XCTAssertEqual(try storage.delete(id: "b3"), 0)
        try storage.clearBrandBy(language: "en")
        XCTAssertEqual(try storage.getBrandByLanguage("en"), [])
        XCTAssertEqual(try storage.getBrandByLanguage("fr").map(\.name), ["Deux"])
        // Still encrypted: the brand names are not in the file.
        try dbQueue.close()
        XCTAssertNil(try fileBytes(path("db.sqlite")).range(of: Data("Deux".utf8)))
    }

    func testPolymorphicDecoding() throws {
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in
            try db.execute(sql: """
                CREATE TABLE base (type TEXT NOT NULL, fooName TEXT, barScore INTEGER);
                INSERT INTO base VALUES ('foo', 'Arthur', NULL), ('bar', NULL, 12), ('foo', 'Barbara', NULL);
                """)
        }
        try dbQueue.read { db in
            let all = try BaseDecoder.fetchAll(db, sql: "SELECT * FROM base ORDER BY rowid")
            XCTAssertEqual(all.map(\.type), ["foo", "bar", "foo"])
            XCTAssertEqual((all[0] as? Foo)?.name, "Arthur")
            XCTAssertEqual((all[1] as? Bar)?.score, 12)
            XCTAssertEqual((try BaseDecoder.fetchOne(db, sql: "SELECT * FROM base WHERE type = ?", arguments: ["bar"]) as? Bar)?.score, 12)
            let statement = try db.makeStatement(sql: "SELECT * FROM base WHERE type = ?")
            XCTAssertEqual(try BaseDecoder.fetchAll(statement, arguments: ["foo"]).count, 2)
            let cursor = try BaseDecoder.fetchCursor(statement, arguments: ["foo"])
            XCTAssertEqual((try cursor.next() as? Foo)?.name, "Arthur")
            // Requests of the type itself and SQL requests.
            XCTAssertEqual(try BaseDecoder.all().fetchAll(db).count, 3)
            XCTAssertEqual((try BaseDecoder.filter(Column("type") == "bar").fetchOne(db) as? Bar)?.score, 12)
            let request = SQLRequest<BaseDecoder>(sql: "SELECT * FROM base WHERE type = 'foo' ORDER BY fooName DESC")
            XCTAssertEqual((try request.fetchOne(db) as? Foo)?.name, "Barbara")
        }
        // A bad row is an error, not a crash.
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO base VALUES ('baz', NULL, NULL)") }
        XCTAssertThrowsError(try dbQueue.read { db in try BaseDecoder.fetchAll(db, sql: "SELECT * FROM base") }) { error in
            XCTAssertEqual((error as? UnknownRowType)?.type, "baz")
        }
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO base VALUES ('bar', NULL, NULL)") }
        XCTAssertThrowsError(try dbQueue.read { db in try BaseDecoder.fetchAll(db, sql: "SELECT * FROM base WHERE type = 'bar'") }) { error in
            XCTAssertTrue("\(error)".contains("barScore"), "\(error)")
        }
    }

    func testExtendedJobFromALeftJoin() throws {
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in
            try db.execute(sql: """
                CREATE TABLE job (id INTEGER PRIMARY KEY, userId INTEGER NOT NULL, title TEXT NOT NULL);
                CREATE TABLE company (jobId INTEGER REFERENCES job(id), name TEXT);
                """)
            try Job(id: 1, userId: 7, title: "Engineer").insert(db)
            try Job(id: 2, userId: 7, title: "Designer").insert(db)
            try Job(id: 3, userId: 8, title: "Other").insert(db)
            try db.execute(sql: "INSERT INTO company VALUES (1, 'Zalora')")
        }
        let jobs = try dbQueue.read { db in try ExtendedJob.filter(userId: 7).fetchAll(db) }
        XCTAssertEqual(jobs.map(\.title), ["Engineer", "Designer"])
        XCTAssertEqual(jobs.map(\.companyName), ["Zalora", "-"])
        XCTAssertEqual(try dbQueue.read { try ExtendedJob.filter(userId: 7).fetchCount($0) }, 2)
    }

    func testTwoStructsPerTable() throws {
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, score INTEGER NOT NULL)")
            var arthur = try Player(name: "Arthur", score: 100)
            try arthur.insert(db)
            XCTAssertEqual(arthur.id, 1)
            var barbara = try Player(name: "Barbara", score: 5)
            try barbara.insert(db)
            XCTAssertEqual(barbara.id, 2)
            XCTAssertThrowsError(try Player(name: "", score: 1))
            let loaded = try PlayerRecord.fetchAll(db).map(Player.init(record:))
            XCTAssertEqual(loaded.map(\.name), ["Arthur", "Barbara"])
            XCTAssertEqual(try PlayerRecord.fetchOne(db, key: 2)?.name, "Barbara")

            var record = try XCTUnwrap(PlayerRecord.fetchOne(db, key: 1))
            record.score = 200
            try record.update(db)
            XCTAssertEqual(try PlayerRecord.fetchOne(db, key: 1)?.score, 200)
            try record.update(db, columns: ["score"])
            XCTAssertTrue(try record.exists(db))
            XCTAssertTrue(try record.delete(db))
            XCTAssertFalse(try record.exists(db))
            XCTAssertThrowsError(try record.update(db)) { error in
                XCTAssertEqual(error as? RecordError, .recordNotFound(databaseTableName: "player", key: ["id": 1.databaseValue]))
            }
            var newcomer = PlayerRecord(id: nil, name: "Craig", score: 1)
            try newcomer.save(db)
            XCTAssertEqual(newcomer.id, 3)
        }
    }
}

/// Codable details: dates, UUIDs, data, nested Codable as JSON, raw enums.
final class CodableRecordTests: SecureStoreTestCase {
    enum Status: String, Codable { case active, banned }
    struct Address: Codable, Equatable { var city: String; var zip: String }
    struct Account: Codable, Equatable, FetchableRecord, PersistableRecord, Identifiable {
        var id: UUID
        var createdAt: Date
        var avatar: Data?
        var address: Address
        var tags: [String]
        var status: Status
        var nickname: String?
    }

    func testRoundTrip() throws {
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE account (id BLOB PRIMARY KEY, createdAt TEXT, avatar BLOB, address TEXT, tags TEXT, status TEXT, nickname TEXT)")
        }
        let account = Account(id: UUID(), createdAt: Date(timeIntervalSince1970: 1_700_000_000.5), avatar: Data([1, 2]),
                              address: Address(city: "Singapore", zip: "0100"), tags: ["a", "b"], status: .banned, nickname: nil)
        try dbQueue.write { db in try account.insert(db) }
        try dbQueue.read { db in
            XCTAssertEqual(try Account.fetchOne(db, id: account.id), account)
            let row = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT * FROM account"))
            XCTAssertEqual(row["address"] as String, "{\"city\":\"Singapore\",\"zip\":\"0100\"}")
            XCTAssertEqual(row["tags"] as String, "[\"a\",\"b\"]")
            XCTAssertEqual(row["status"] as String, "banned")
            XCTAssertEqual(row["createdAt"] as String, "2023-11-14 22:13:20.500")
            XCTAssertTrue(row.hasNull(atIndex: 6))
        }
        var changed = account
        changed.nickname = "nick"
        changed.avatar = nil
        try dbQueue.write { db in try changed.update(db) }
        XCTAssertEqual(try dbQueue.read { try Account.fetchOne($0, id: account.id) }, changed)
        XCTAssertEqual(TableRecordName.name, "brandRGDB")
    }
}

private enum TableRecordName {
    struct BrandRGDB: TableRecord {}
    struct HTTPRequest: TableRecord {}
    struct TOEFL: TableRecord {}
    static var name: String {
        XCTAssertEqual(HTTPRequest.databaseTableName, "httpRequest")
        XCTAssertEqual(TOEFL.databaseTableName, "toefl")
        return BrandRGDB.databaseTableName
    }
}

/// Decoding with a context: rows need more than their columns to decode.
final class ContextDecodingTests: SecureStoreTestCase {
    struct Currency { let symbol: String; let rate: Double }
    struct Price {
        let text: String
        init(row: Row, context: Currency) throws {
            let cents: Int = try row.decode(forColumn: "cents")
            text = "\(context.symbol)\(Double(cents) / 100 * context.rate)"
        }
    }

    func testDecodingWithAContext() throws {
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE price (cents INTEGER); INSERT INTO price VALUES (250), (1000)") }
        let euro = Currency(symbol: "€", rate: 2)
        let prices = try dbQueue.read { db in
            try Array(Row.fetchCursor(db.makeStatement(sql: "SELECT cents FROM price ORDER BY cents")).map { try Price(row: $0, context: euro) })
        }
        XCTAssertEqual(prices.map(\.text), ["€5.0", "€20.0"])
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO price VALUES (NULL)") }
        XCTAssertThrowsError(try dbQueue.read { db in
            try Array(Row.fetchCursor(db, sql: "SELECT cents FROM price").map { try Price(row: $0, context: euro) })
        })
    }
}
