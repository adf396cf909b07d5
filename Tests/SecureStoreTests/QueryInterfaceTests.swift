import Foundation
import SecureStore
import XCTest

/// The SQL the query interface generates, read back through `trace` with
/// values expanded, as GRDB's own tests read it.
final class QueryInterfaceTests: TracedQueueTestCase {
    private struct Reader: TableRecord, FetchableRecord, Decodable {
        static let databaseTableName = "readers"
        var id: Int64
        var name: String
        var age: Int?
    }

    override func setUpSchema(_ db: Database) throws {
        try db.execute(sql: "CREATE TABLE readers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INT)")
        try db.execute(sql: "INSERT INTO readers (name, age) VALUES ('Arthur', 42), ('Barbara', 36), ('Craig', NULL)")
    }

    /// The SQL of a request, as run.
    private func sql<R: FetchRequest>(_ request: R) throws -> String {
        try dbQueue.read { db in
            traced.clear()
            _ = try Row.fetchAll(request.makePreparedRequest(db, forSingleResult: false).statement)
            return traced.last ?? ""
        }
    }

    private func assertSQL<R: FetchRequest>(_ request: R, _ expected: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try sql(request), expected, file: file, line: line)
    }

    func testComparisonsAndLogic() throws {
        let id = Column("id"), name = Column("name"), age = Column("age")
        try assertSQL(Reader.all(), "SELECT * FROM \"readers\"")
        try assertSQL(Reader.filter(id == 1), "SELECT * FROM \"readers\" WHERE \"id\" = 1")
        try assertSQL(Reader.filter(id != 1), "SELECT * FROM \"readers\" WHERE \"id\" <> 1")
        try assertSQL(Reader.filter(age > 18 && age < 50), "SELECT * FROM \"readers\" WHERE (\"age\" > 18) AND (\"age\" < 50)")
        try assertSQL(Reader.filter(age >= 18 || name == "Craig"), "SELECT * FROM \"readers\" WHERE (\"age\" >= 18) OR (\"name\" = 'Craig')")
        try assertSQL(Reader.filter(age <= 18 && age > 1 && id < 9), "SELECT * FROM \"readers\" WHERE (\"age\" <= 18) AND (\"age\" > 1) AND (\"id\" < 9)")
        try assertSQL(Reader.filter(!(id == 1)), "SELECT * FROM \"readers\" WHERE \"id\" <> 1")
        try assertSQL(Reader.filter(age == nil), "SELECT * FROM \"readers\" WHERE \"age\" IS NULL")
        try assertSQL(Reader.filter(age != nil), "SELECT * FROM \"readers\" WHERE \"age\" IS NOT NULL")
        try assertSQL(Reader.filter(18 < age), "SELECT * FROM \"readers\" WHERE 18 < \"age\"")
        try assertSQL(Reader.filter(age + 1 > id * 2), "SELECT * FROM \"readers\" WHERE (\"age\" + 1) > (\"id\" * 2)")
        try assertSQL(Reader.filter(-age < 0), "SELECT * FROM \"readers\" WHERE (-\"age\") < 0")
        try assertSQL(Reader.filter(age - 1 == id / 2), "SELECT * FROM \"readers\" WHERE (\"age\" - 1) = (\"id\" / 2)")
    }

    func testInBetweenLikeCollation() throws {
        let id = Column("id"), name = Column("name")
        try assertSQL(Reader.filter([Int]().contains(id)), "SELECT * FROM \"readers\" WHERE 0")
        try assertSQL(Reader.filter(![Int]().contains(id)), "SELECT * FROM \"readers\" WHERE 1")
        try assertSQL(Reader.filter([1].contains(id)), "SELECT * FROM \"readers\" WHERE \"id\" = 1")
        try assertSQL(Reader.filter([1, 2, 3].contains(id)), "SELECT * FROM \"readers\" WHERE \"id\" IN (1, 2, 3)")
        try assertSQL(Reader.filter(![1, 2, 3].contains(id)), "SELECT * FROM \"readers\" WHERE \"id\" NOT IN (1, 2, 3)")
        try assertSQL(Reader.filter((1..<10).contains(id)), "SELECT * FROM \"readers\" WHERE (\"id\" >= 1) AND (\"id\" < 10)")
        try assertSQL(Reader.filter((1...10).contains(id)), "SELECT * FROM \"readers\" WHERE \"id\" BETWEEN 1 AND 10")
        try assertSQL(Reader.filter(!(1...10).contains(id)), "SELECT * FROM \"readers\" WHERE \"id\" NOT BETWEEN 1 AND 10")
        try assertSQL(Reader.filter(("A"..."z").contains(name)), "SELECT * FROM \"readers\" WHERE \"name\" BETWEEN 'A' AND 'z'")
        try assertSQL(Reader.filter(name.like("%ar%")), "SELECT * FROM \"readers\" WHERE \"name\" LIKE '%ar%'")
        try assertSQL(Reader.filter(["arthur", "barbara"].contains(name.collating(.nocase))),
                      "SELECT * FROM \"readers\" WHERE (\"name\" COLLATE NOCASE) IN ('arthur', 'barbara')")
        try assertSQL(Reader.filter(name.collating(.nocase) == "arthur"), "SELECT * FROM \"readers\" WHERE \"name\" = 'arthur' COLLATE NOCASE")
        try assertSQL(Reader.filter(("A"..."z").contains(name.collating(.nocase))),
                      "SELECT * FROM \"readers\" WHERE \"name\" BETWEEN 'A' AND 'z' COLLATE NOCASE")
        XCTAssertEqual(try dbQueue.read { try Reader.filter(name.collating(.nocase) == "ARTHUR").fetchAll($0) }.map(\.name), ["Arthur"])
    }

    func testOrderLimitSelectDistinctGroupHaving() throws {
        let name = Column("name"), age = Column("age")
        try assertSQL(Reader.order(age), "SELECT * FROM \"readers\" ORDER BY \"age\"")
        try assertSQL(Reader.order(age.desc, name.asc), "SELECT * FROM \"readers\" ORDER BY \"age\" DESC, \"name\" ASC")
        try assertSQL(Reader.order(age.desc).reversed(), "SELECT * FROM \"readers\" ORDER BY \"age\" ASC")
        try assertSQL(Reader.order(name.collating(.nocase)), "SELECT * FROM \"readers\" ORDER BY \"name\" COLLATE NOCASE")
        try assertSQL(Reader.all().reversed(), "SELECT * FROM \"readers\"")
        try assertSQL(Reader.limit(1), "SELECT * FROM \"readers\" LIMIT 1")
        try assertSQL(Reader.limit(10, offset: 20), "SELECT * FROM \"readers\" LIMIT 10 OFFSET 20")
        try assertSQL(Reader.select(name, age + 1), "SELECT \"name\", \"age\" + 1 FROM \"readers\"")
        try assertSQL(Reader.select(name.forKey("nom"), (age + 1).forKey("agePlusOne")),
                      "SELECT \"name\" AS \"nom\", \"age\" + 1 AS \"agePlusOne\" FROM \"readers\"")
        try assertSQL(Reader.select(name).distinct(), "SELECT DISTINCT \"name\" FROM \"readers\"")
        try assertSQL(Reader.group(name), "SELECT * FROM \"readers\" GROUP BY \"name\"")
        try assertSQL(Reader.group(name).having(min(age) > 18), "SELECT * FROM \"readers\" GROUP BY \"name\" HAVING MIN(\"age\") > 18")
        try assertSQL(Reader.group(name).having(min(age) > 18).having(max(age) < 50),
                      "SELECT * FROM \"readers\" GROUP BY \"name\" HAVING (MIN(\"age\") > 18) AND (MAX(\"age\") < 50)")
        try assertSQL(Reader.select(count(Column.rowID), sum(age), average(age), count(distinct: name)),
                      "SELECT COUNT(\"rowid\"), SUM(\"age\"), AVG(\"age\"), COUNT(DISTINCT \"name\") FROM \"readers\"")
        try assertSQL(Reader.filter(sql: "age > ?", arguments: [18]).order(sql: "lower(name) desc"),
                      "SELECT * FROM \"readers\" WHERE age > 18 ORDER BY lower(name) desc")
        XCTAssertEqual(try dbQueue.read { try Reader.select(max(age), as: Int.self).fetchOne($0) }, 42)
        XCTAssertEqual(try dbQueue.read { try Reader.select(name, as: String.self).order(name.desc).fetchAll($0) }, ["Craig", "Barbara", "Arthur"])
    }

    func testCountDeleteUpdate() throws {
        let name = Column("name"), age = Column("age")
        try dbQueue.write { db in
            traced.clear()
            XCTAssertEqual(try Reader.fetchCount(db), 3)
            XCTAssertEqual(traced.last, "SELECT COUNT(*) FROM \"readers\"")
            XCTAssertEqual(try Reader.filter(age == 42).fetchCount(db), 1)
            XCTAssertEqual(traced.last, "SELECT COUNT(*) FROM \"readers\" WHERE \"age\" = 42")
            XCTAssertEqual(try Reader.limit(2).fetchCount(db), 2)
            XCTAssertEqual(traced.last, "SELECT COUNT(*) FROM (SELECT * FROM \"readers\" LIMIT 2)")
            XCTAssertEqual(try Reader.select(name).distinct().fetchCount(db), 3)
            XCTAssertEqual(traced.last, "SELECT COUNT(DISTINCT \"name\") FROM \"readers\"")
            XCTAssertEqual(try Reader.all().distinct().fetchCount(db), 3)
            XCTAssertEqual(traced.last, "SELECT COUNT(*) FROM (SELECT DISTINCT * FROM \"readers\")")
            XCTAssertEqual(try Reader.select(max(age)).group(name).fetchCount(db), 3)
            XCTAssertEqual(traced.last, "SELECT COUNT(*) FROM (SELECT MAX(\"age\") FROM \"readers\" GROUP BY \"name\")")

            XCTAssertEqual(try Reader.filter(age == nil).updateAll(db, age.set(to: 7), name.set(to: "C.")), 1)
            XCTAssertEqual(traced.last, "UPDATE \"readers\" SET \"age\" = 7, \"name\" = 'C.' WHERE \"age\" IS NULL")
            XCTAssertEqual(try Reader.updateAll(db, age.set(to: age + 1)), 3)
            // A column that is not overwritten is left out; bitwise
            // assignments as in GRDB.
            XCTAssertEqual(try Reader.filter(name == "Arthur").updateAll(db, [name.noOverwrite, age <<= 1, age |= 1]), 1)
            XCTAssertEqual(traced.last, "UPDATE \"readers\" SET \"age\" = \"age\" << 1, \"age\" = \"age\" | 1 WHERE \"name\" = 'Arthur'")
            XCTAssertEqual(try Reader.filter(name == "Arthur").updateAll(db, [age >>= 1, age &= 127]), 1)
            XCTAssertEqual(try Reader.filter(name == "Arthur").fetchOne(db)?.age, 43)
            XCTAssertEqual(try Reader.updateAll(db, [name.noOverwrite]), 0, "nothing to set: no statement")
            XCTAssertEqual(try Reader.filter(name == "C.").deleteAll(db), 1)
            XCTAssertEqual(traced.last, "DELETE FROM \"readers\" WHERE \"name\" = 'C.'")
            XCTAssertEqual(try Reader.fetchAll(db).compactMap(\.age), [43, 37])
            XCTAssertEqual(try Reader.deleteAll(db), 2)
        }
    }

    func testKeysAndIdentifiable() throws {
        try dbQueue.write { db in
            XCTAssertEqual(try Reader.fetchOne(db, key: 2)?.name, "Barbara")
            // A primary key matches one row at most: no LIMIT, as in GRDB.
            XCTAssertEqual(traced.last, "SELECT * FROM \"readers\" WHERE \"id\" = 2")
            XCTAssertEqual(try Reader.fetchAll(db, keys: [1, 3]).map(\.name), ["Arthur", "Craig"])
            XCTAssertThrowsError(try Reader.fetchOne(db, key: ["name": "Craig"])) { error in
                XCTAssertEqual((error as? DatabaseError)?.message, "table readers has no unique key on column(s) name")
            }
            try db.create(index: "readers_name", on: "readers", columns: ["name"], unique: true)
            XCTAssertEqual(try Reader.fetchOne(db, key: ["name": "Craig"])?.id, 3)
            XCTAssertEqual(traced.last, "SELECT * FROM \"readers\" WHERE \"name\" = 'Craig'")
            XCTAssertTrue(try Reader.exists(db, key: 1))
            XCTAssertFalse(try Reader.exists(db, key: 99))
            XCTAssertTrue(try Reader.deleteOne(db, key: 1))
            XCTAssertFalse(try Reader.deleteOne(db, key: 1))
            XCTAssertEqual(try Reader.fetchCount(db), 2)
        }
    }

    private struct Member: Codable, FetchableRecord, MutablePersistableRecord {
        static let databaseTableName = "readers"
        var id: Int64?
        var name: String
        var age: Int?
        enum Columns {
            static let name = Column("name")
        }
    }

    /// RETURNING (SQLite 3.35) and UPSERT (3.24): an error that names them,
    /// before `modify` runs and before anything is written.
    func testMethodsThatNeedReturningOrUpsertThrowBeforeAnyChange() throws {
        guard Database.sqliteLibVersionNumber < 3_035_000 else {
            throw XCTSkip("SQLite \(Database.sqliteLibVersion) has RETURNING and UPSERT: ReturningTests covers them")
        }
        try dbQueue.write { db in
            var member = try XCTUnwrap(Member.fetchOne(db, key: 1))
            var modified = false
            XCTAssertThrowsError(try member.updateChangesAndFetch(db) { modified = true; $0.name = "Z" }) { error in
                XCTAssertTrue("\(error)".contains("RETURNING needs SQLite 3.35"), "\(error)")
            }
            XCTAssertFalse(modified)
            XCTAssertThrowsError(try member.insertAndFetch(db, fetch: { try Row.fetchOne($0) }, select: { [$0.name] }))
            XCTAssertThrowsError(try member.upsertAndFetch(db, doUpdate: { _ in [Column("age").noOverwrite] })) { error in
                XCTAssertTrue("\(error)".contains("needs SQLite 3.24"), "\(error)")
            }
            XCTAssertEqual(try String.fetchAll(db, sql: "SELECT name FROM readers ORDER BY id"), ["Arthur", "Barbara", "Craig"])
        }
    }

    /// A record whose container spells columns in another case.
    private struct ShoutingMember: FetchableRecord, PersistableRecord {
        static let databaseTableName = "readers"
        var id: Int64
        var name: String
        init(row: Row) throws { (id, name) = (row["id"], row["name"]) }
        init(id: Int64, name: String) { (self.id, self.name) = (id, name) }
        func encode(to container: inout PersistenceContainer) throws {
            container["ID"] = id
            container["NAme"] = name
        }
    }

    func testUpdatesNameColumnsAsTheTableDoes() throws {
        try dbQueue.write { db in
            traced.clear()
            try ShoutingMember(id: 1, name: "Craig").update(db)
            XCTAssertEqual(traced.last, "UPDATE \"readers\" SET \"name\"='Craig' WHERE \"id\"=1")
            try ShoutingMember(id: 2, name: "Dora").update(db, columns: ["NAME"])
            XCTAssertEqual(traced.last, "UPDATE \"readers\" SET \"name\"='Dora' WHERE \"id\"=2")
            XCTAssertEqual(try String.fetchAll(db, sql: "SELECT name FROM readers ORDER BY id"), ["Craig", "Dora", "Craig"])
        }
    }

    func testHostileStringsAreBound() throws {
        let hostile = "Robert'); DROP TABLE readers; --"
        try dbQueue.write { db in
            XCTAssertEqual(try Reader.filter(Column("name") == hostile).fetchCount(db), 0)
            let statement = try Reader.filter(Column("name") == hostile).makePreparedRequest(db, forSingleResult: false).statement
            XCTAssertEqual(statement.sql, "SELECT * FROM \"readers\" WHERE \"name\" = ?")
            XCTAssertEqual(statement.arguments, [hostile])
            try Reader.filter(Column("name") == "Arthur").updateAll(db, Column("name").set(to: hostile))
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT name FROM readers WHERE id = 1"), hostile)
            XCTAssertTrue(try db.tableExists("readers"))
        }
        // Identifiers are quoted too.
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE \"odd \"\"table\"\"\" (\"a b\" INT)")
            try db.execute(sql: "INSERT INTO \"odd \"\"table\"\"\" VALUES (1)")
            XCTAssertEqual(try Table("odd \"table\"").filter(Column("a b") == 1).fetchCount(db), 1)
        }
    }

    func testSQLRequestInterpolationBindsValues() throws {
        let name = "Arthur"
        let request: SQLRequest<Row> = "SELECT * FROM readers WHERE name = \(name) AND age > \(Column("id") + 1)"
        let statement = try dbQueue.read { try request.makePreparedRequest($0).statement }
        XCTAssertEqual(statement.sql, "SELECT * FROM readers WHERE name = ? AND age > \"id\" + ?")
        XCTAssertEqual(statement.arguments, ["Arthur", 1])
        XCTAssertEqual(try dbQueue.read { try request.fetchAll($0) }.count, 1)
        XCTAssertEqual(try dbQueue.read { try request.asRequest(of: Reader.self).fetchOne($0) }?.age, 42)
        XCTAssertEqual(try dbQueue.read { try request.fetchCount($0) }, 1)
    }
}
