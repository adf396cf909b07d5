import Foundation
import SecureStore
import XCTest

private struct Wrapper<RawValue>: RawRepresentable {
    var rawValue: RawValue
}

// What GRDB's documentation asks of a wrapper (swift-tagged's `Tagged`):
// conformances declared, no code.
extension Wrapper: SQLExpressible where RawValue: SQLExpressible {}
extension Wrapper: StatementBinding where RawValue: StatementBinding {}
extension Wrapper: DatabaseValueConvertible where RawValue: DatabaseValueConvertible {}
extension Wrapper: StatementColumnConvertible where RawValue: StatementColumnConvertible {}
extension Wrapper: SQLSelectable where RawValue: SQLSelectable {}
extension Wrapper: SQLOrderingTerm where RawValue: SQLOrderingTerm {}
extension Wrapper: SQLSpecificExpressible where RawValue: SQLSpecificExpressible {}

private enum Grape: String, DatabaseValueConvertible {
    case merlot, riesling
}

/// `StatementBinding` and the `RawRepresentable` defaults of the value and
/// query protocols: a generic wrapper declares its conformances and is
/// stored, fetched, filtered, selected and ordered like the value it wraps;
/// `bind(to:at:)` sets parameters of a raw statement handle.
final class StatementBindingProtocolTests: SecureStoreTestCase {
    private func makeWines() throws -> DatabaseQueue {
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE wine (id INTEGER PRIMARY KEY, grape TEXT, year INTEGER)")
        }
        return dbQueue
    }

    func testAWrapperIsStoredFetchedAndComparedAsItsRawValue() throws {
        let dbQueue = try makeWines()
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO wine (grape, year) VALUES (?, ?)",
                           arguments: [Wrapper(rawValue: "merlot"), Wrapper(rawValue: 2019)])
            try db.execute(sql: "INSERT INTO wine (grape, year) VALUES (?, ?)",
                           arguments: [Wrapper(rawValue: Grape.riesling), Wrapper<Int?>(rawValue: nil)])
        }
        try dbQueue.read { db in
            XCTAssertEqual(try Wrapper<String>.fetchAll(db, sql: "SELECT grape FROM wine ORDER BY id").map(\.rawValue),
                           ["merlot", "riesling"])
            XCTAssertEqual(try Wrapper<Grape>.fetchOne(db, sql: "SELECT grape FROM wine WHERE id = 2")?.rawValue, .riesling)
            XCTAssertEqual(try Row.fetchOne(db, sql: "SELECT typeof(year) FROM wine WHERE id = 2")?[0] as String?, "null")
            // A wrapped value in the query interface: a bound argument.
            let request = Table("wine").filter(Column("year") == Wrapper(rawValue: 2019)).select(Column("grape"), as: String.self)
            XCTAssertEqual(try request.fetchAll(db), ["merlot"])
            XCTAssertEqual(try request.makePreparedRequest(db).statement.sql, "SELECT \"grape\" FROM \"wine\" WHERE \"year\" = ?")
        }
    }

    func testAWrappedColumnIsSelectedOrderedAndCompared() throws {
        let dbQueue = try makeWines()
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO wine (grape, year) VALUES ('merlot', 2019), ('riesling', 2021), ('syrah', 2020)")
        }
        let grape = Wrapper(rawValue: Column("grape")), year = Wrapper(rawValue: Column("year"))
        try dbQueue.read { db in
            let request = Table("wine").select(grape).filter(year > 2019).order(year.desc)
            XCTAssertEqual(try String.fetchAll(db, request), ["riesling", "syrah"])
            XCTAssertEqual(try request.makePreparedRequest(db).statement.sql,
                           "SELECT \"grape\" FROM \"wine\" WHERE \"year\" > ? ORDER BY \"year\" DESC")
        }
    }

    func testBindingAParameterOfARawStatementHandle() throws {
        let dbQueue = try makeWines()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE value (a, b, c, d, e, f, g, h)")
            let insert = try db.makeStatement(sql: "INSERT INTO value VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
            do {
                // Made and dropped in this scope: SQLite keeps its own copies.
                let text = String(repeating: "é", count: 3) + "\0after"
                let values: [any StatementBinding] = [
                    42, 1.5, text, Data([0, 1, 2]), Data(), "", Optional<Int>.none, Grape.merlot,
                ]
                for (offset, value) in values.enumerated() {
                    XCTAssertEqual(value.bind(to: insert.sqliteStatement, at: CInt(offset + 1)), 0, "SQLITE_OK for \(value)")
                }
                XCTAssertEqual(Wrapper(rawValue: 1).bind(to: insert.sqliteStatement, at: 9), 25, "SQLITE_RANGE")
                XCTAssertEqual(DatabaseValue.null.bind(to: insert.sqliteStatement, at: 0), 25, "SQLITE_RANGE")
            }
            // No arguments: the statement runs with what is bound.
            try insert.execute()
        }
        try dbQueue.read { db in
            let row = try XCTUnwrap(Row.fetchOne(db, sql: """
                SELECT a, b, c, d, e, f, g, h, typeof(a), typeof(b), typeof(c), typeof(d), typeof(e), typeof(f), typeof(g), length(c)
                FROM value
                """))
            XCTAssertEqual(row[0] as Int, 42)
            XCTAssertEqual(row[1] as Double, 1.5)
            XCTAssertEqual(row[2] as String, "ééé\0after", "the text's length is bound, not up to its first NUL")
            XCTAssertEqual(row[3] as Data, Data([0, 1, 2]))
            XCTAssertEqual(row[7] as String, "merlot")
            XCTAssertEqual((8...14).map { row[$0] as String }, ["integer", "real", "text", "blob", "blob", "text", "null"],
                           "an empty blob is a blob and an empty text is text, not NULL")
            XCTAssertEqual(row[15] as Int, 3, "length() of text stops at a NUL")
        }
    }
}
