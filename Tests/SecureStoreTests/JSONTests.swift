import Foundation
import SecureStore
import TestSupport
import XCTest

/// JSON: Codable records whose nested values are stored as JSON text, read
/// back and queried with `->>`, GRDB's `Database.json*` functions and
/// `JSONColumn`, on an encrypted file. JSON is built into SQLite 3.38 and
/// later (SQLCipher 4); on SQLite 3.15.2 a request that uses it throws an
/// error that names the version, before it runs.
final class JSONTests: TracedQueueTestCase {
    private struct Address: Codable, Equatable {
        var city: String
        var zip: String
    }

    private struct Player: Codable, Equatable, FetchableRecord, PersistableRecord {
        var id: Int64
        var name: String
        var address: Address
        var tags: [String]
        enum Columns {
            static let name = Column(CodingKeys.name)
            static let address = JSONColumn(CodingKeys.address)
            static let tags = JSONColumn(CodingKeys.tags)
        }
    }

    override func setUpSchema(_ db: Database) throws {
        try db.create(table: "player") { t in
            t.primaryKey("id", .integer)
            t.column("name", .text).notNull()
            t.column("address", .jsonText).notNull()
            t.column("tags", .jsonText).notNull()
        }
        try Player(id: 1, name: "Arthur", address: Address(city: "Paris", zip: "75001"), tags: ["a"]).insert(db)
        try Player(id: 2, name: "Barbara", address: Address(city: "Lyon", zip: "69001"), tags: ["b", "c"]).insert(db)
    }

    func testJSONNeedsSQLite338() throws {
        guard Database.sqliteLibVersionNumber < 3_038_000 else {
            throw XCTSkip("SQLite \(Database.sqliteLibVersion) has JSON: the other tests of this class cover it")
        }
        try dbQueue.read { db in
            XCTAssertThrowsError(try Player.filter(Player.Columns.address["city"] == "Paris").fetchAll(db)) { error in
                XCTAssertTrue("\(error)".contains("The JSON operator ->> needs SQLite 3.38 or later; this SQLCipher runs SQLite 3.15.2"), "\(error)")
            }
            XCTAssertThrowsError(try Player.select(Database.jsonArray([Player.Columns.name]), as: String.self).fetchAll(db)) { error in
                XCTAssertTrue("\(error)".contains("The SQL function JSON_ARRAY needs SQLite 3.38"), "\(error)")
            }
        }
        // The records themselves store JSON text on every line.
        XCTAssertEqual(try dbQueue.read { try Player.fetchOne($0, key: 2)?.tags }, ["b", "c"])
    }

    private func requireJSON() throws {
        guard Database.sqliteLibVersionNumber >= 3_038_000 else {
            throw XCTSkip("JSON needs SQLite 3.38; this SQLCipher runs SQLite \(Database.sqliteLibVersion) (testJSONNeedsSQLite338 covers it)")
        }
    }

    func testCodableColumnsQueriedWithTheJSONOperators() throws {
        try requireJSON()
        try dbQueue.read { db in
            traced.clear()
            let parisians = try Player.filter(Player.Columns.address["city"] == "Paris").fetchAll(db)
            XCTAssertEqual(traced.last, #"SELECT * FROM "player" WHERE ("address" ->> 'city') = 'Paris'"#)
            XCTAssertEqual(parisians.map(\.name), ["Arthur"])
            XCTAssertEqual(parisians.first?.address, Address(city: "Paris", zip: "75001"))

            let zips = try Player.select(Player.Columns.address.jsonRepresentation(atPath: "zip"), as: String.self)
                .order(Player.Columns.name).fetchAll(db)
            XCTAssertEqual(zips, [#""75001""#, #""69001""#], "-> gives JSON")
            let counts = try Player.select(Database.jsonArrayLength(Player.Columns.tags), as: Int.self).order(Column("id")).fetchAll(db)
            XCTAssertEqual(counts, [1, 2])
            XCTAssertEqual(try Player.filter(Player.Columns.tags.jsonExtract(atPath: "$[1]") == "c").fetchCount(db), 1)

            // Through an alias: the column keeps its JSON operators.
            let alias = TableAlias(name: "p")
            traced.clear()
            let lyonnais = try Player.aliased(alias).filter(alias[Player.Columns.address]["city"] == "Lyon").fetchAll(db)
            XCTAssertEqual(lyonnais.map(\.name), ["Barbara"])
            XCTAssertEqual(traced.last, #"SELECT "p".* FROM "player" "p" WHERE ("p"."address" ->> 'city') = 'Lyon'"#)
        }
    }

    func testJSONBuildersEmbedJSONValues() throws {
        try requireJSON()
        try dbQueue.read { db in
            traced.clear()
            let built = try Player
                .select(Database.jsonObject(["name": Player.Columns.name, "tags": Player.Columns.tags] as KeyValuePairs<String, any SQLExpressible>), as: String.self)
                .filter(key: 2).fetchOne(db)
            XCTAssertEqual(built, #"{"name":"Barbara","tags":["b","c"]}"#, "a JSON column goes in as JSON, not as a string")
            let wrapper = Database.sqliteLibVersionNumber >= 3_045_000 ? "JSONB" : "JSON"
            XCTAssertTrue(traced.last?.contains(#"JSON_OBJECT('name', "name", 'tags', \#(wrapper)("tags"))"#) == true, traced.last ?? "")
            // A plain string column goes in as a string.
            XCTAssertEqual(try String.fetchOne(db, Player.select(Database.jsonArray([Column("tags")])).filter(key: 1)), #"["[\"a\"]"]"#)
            XCTAssertEqual(try String.fetchOne(db, Player.select(Database.jsonArray([Column("tags").asJSON])).filter(key: 1)), #"[["a"]]"#)
            // NULL goes in as JSON null, unwrapped.
            traced.clear()
            XCTAssertEqual(try String.fetchOne(db, Player.select(Database.jsonArray([DatabaseValue.null.sqlExpression.asJSON])).filter(key: 1)),
                           "[null]")
            XCTAssertTrue(traced.last?.contains("JSON_ARRAY(NULL)") == true, traced.last ?? "")
            // An aggregate.
            let names = try String.fetchOne(db, Player.select(Database.jsonGroupArray(Player.Columns.name, orderBy: Player.Columns.name)))
            XCTAssertEqual(names, #"["Arthur","Barbara"]"#)
            XCTAssertEqual(try Bool.fetchOne(db, sql: "SELECT json_valid(address) FROM player WHERE id = 1"), true)
        }
    }

    func testJSONEditsInUpdates() throws {
        try requireJSON()
        try dbQueue.write { db in
            try Player.filter(key: 1).updateAll(db, [
                Player.Columns.address.set(to: Database.jsonSet(Player.Columns.address, ["$.city": "Marseille"])),
            ])
            XCTAssertEqual(try Player.fetchOne(db, key: 1)?.address, Address(city: "Marseille", zip: "75001"))
            try Player.filter(key: 2).updateAll(db, [Player.Columns.tags.set(to: Database.jsonRemove(Player.Columns.tags, atPath: "$[0]"))])
            XCTAssertEqual(try Player.fetchOne(db, key: 2)?.tags, ["c"])
        }
        // The JSON lives in the encrypted file only.
        try dbQueue.close()
        XCTAssertFalse(try fileBytes(path("db.sqlite")).contains(Data("Marseille".utf8)))
        let cli = try CommandLineClient.sqlcipher(path("db.sqlite"), preamble: "PRAGMA key = 'secret';",
                                                  sql: "SELECT address ->> 'city' FROM player WHERE id = 1;")
        XCTAssertEqual(cli.stdout, "Marseille\n", cli.stderr)
    }
}
