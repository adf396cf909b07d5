import Foundation
import SecureStore
import XCTest

/// Every supported type round-trips through an encrypted file.
final class DatabaseValueTests: SecureStoreTestCase {
    private var dbQueue: DatabaseQueue!

    override func setUpWithError() throws {
        try super.setUpWithError()
        dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE v (value)") }
    }

    /// Stores `value`, reads it back through both fetch paths (fast column
    /// reads and DatabaseValue conversion), after reopening the file.
    private func roundTrip<T: DatabaseValueConvertible & Equatable>(
        _ value: T, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        try dbQueue.write { db in
            try db.execute(sql: "DELETE FROM v")
            try db.execute(sql: "INSERT INTO v VALUES (?)", arguments: [value])
        }
        try dbQueue.close()
        dbQueue = try makeEncryptedQueue()
        try dbQueue.read { db in
            let row = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT value FROM v"))
            XCTAssertEqual(try row.decode(T.self, atIndex: 0), value, file: file, line: line)
            XCTAssertEqual(T.fromDatabaseValue(row.databaseValues[0]), value, file: file, line: line)
            let cursor = try Row.fetchCursor(db, sql: "SELECT value FROM v")
            let live = try XCTUnwrap(cursor.next())
            XCTAssertEqual(try live.decode(T.self, forColumn: "VALUE"), value, file: file, line: line)
        }
    }

    /// Foundation's reference types, Decimal and CGFloat, stored as GRDB
    /// stores them.
    func testFoundationReferenceTypesAndDecimal() throws {
        XCTAssertEqual(NSNumber(value: 42).databaseValue, 42.databaseValue)
        XCTAssertEqual(NSNumber(value: true).databaseValue, 1.databaseValue)
        XCTAssertEqual(NSNumber(value: 2.5).databaseValue, 2.5.databaseValue)
        XCTAssertEqual(NSDecimalNumber(string: "12").databaseValue, 12.databaseValue, "a whole decimal is an integer")
        XCTAssertEqual(NSDecimalNumber(string: "12.5").databaseValue, 12.5.databaseValue)
        XCTAssertEqual(Decimal(string: "0.1")?.databaseValue, "0.1".databaseValue, "text: no binary rounding")
        XCTAssertEqual(NSNull().databaseValue, .null)
        XCTAssertNil(NSNull.fromDatabaseValue(.null))
        XCTAssertTrue(NSNumber.fromDatabaseValue("3.25".databaseValue) is NSDecimalNumber)
        XCTAssertNotNil(NSDecimalNumber.fromDatabaseValue(3.databaseValue))
        XCTAssertNil(NSNumber.fromDatabaseValue("three".databaseValue))

        try roundTrip(Decimal(string: "123456789.000000001")!)
        try roundTrip(NSString(string: "texte"))
        try roundTrip(NSData(data: Data([0, 1, 2, 255])))
        try roundTrip(NSDate(timeIntervalSince1970: 1_700_000_000.25))
        try roundTrip(NSURL(string: "https://example.com/a?b=c")!)
        try roundTrip(NSUUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)
        try roundTrip(NSNumber(value: Int64.max))
        try roundTrip(CGFloat(1.5))
        try dbQueue.read { db in
            XCTAssertEqual(try Decimal.fetchOne(db, sql: "SELECT '3.14'"), Decimal(string: "3.14"))
            XCTAssertEqual(try Decimal.fetchOne(db, sql: "SELECT 7"), 7)
            XCTAssertEqual(try NSUUID.fetchOne(db, sql: "SELECT ?", arguments: [UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!])?.uuidString,
                           "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        }
    }

    func testArgumentsAndRowsFromUntypedCollections() throws {
        let json = try JSONSerialization.jsonObject(with: Data(#"[1, "two", null, 2.5]"#.utf8)) as! [Any]
        let arguments = try XCTUnwrap(StatementArguments(json))
        try dbQueue.read { db in
            let row = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT ?, ?, ?, ?", arguments: arguments))
            XCTAssertEqual(row.databaseValues, [1.databaseValue, "two".databaseValue, .null, 2.5.databaseValue])
            let named = try XCTUnwrap(StatementArguments(["name": "Arthur", "age": NSNumber(value: 42)] as [AnyHashable: Any]))
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT :name || :age", arguments: named), "Arthur42")
        }
        XCTAssertNil(StatementArguments([1, Date.self] as [Any]), "a metatype is not a value")
        XCTAssertNil(StatementArguments([1: "not a name"] as [AnyHashable: Any]))
        let row = try XCTUnwrap(Row(["a": 1, "b": NSNull()] as [AnyHashable: Any]))
        XCTAssertEqual(row["a"] as Int?, 1)
        XCTAssertTrue(row.hasNull(atIndex: row.columnNames.firstIndex(of: "b")!))
        XCTAssertNil(Row([1: 1] as [AnyHashable: Any]))
    }

    func testIntegersRoundTrip() throws {
        try roundTrip(Int64.min)
        try roundTrip(Int64.max)
        try roundTrip(Int.min)
        try roundTrip(Int8.min)
        try roundTrip(Int16.max)
        try roundTrip(Int32.min)
        try roundTrip(UInt8.max)
        try roundTrip(UInt16.max)
        try roundTrip(UInt32.max)
        try roundTrip(UInt64(Int64.max))
        try roundTrip(UInt(42))
        try roundTrip(0)
    }

    func testFastAndSlowFetchesAgree() throws {
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO v VALUES (1), (2), (NULL), (3.0)")
            XCTAssertEqual(try Int?.fetchAll(db, sql: "SELECT value FROM v"), [1, 2, nil, 3])
            XCTAssertEqual(try DatabaseValue.fetchAll(db, sql: "SELECT value FROM v").map(\.isNull), [false, false, true, false])
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT value FROM v WHERE value IS NULL"), nil)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT value FROM v WHERE 0"), nil)
            XCTAssertEqual(try Int.fetchSet(db, sql: "SELECT value FROM v WHERE value IS NOT NULL"), [1, 2, 3])
            XCTAssertEqual(try Array(Int.fetchCursor(db, sql: "SELECT value FROM v WHERE value IS NOT NULL")), [1, 2, 3])
        }
    }

    func testOutOfRangeAndWrongTypesAreErrors() throws {
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO v VALUES (300)")
            XCTAssertThrowsError(try UInt8.fetchOne(db, sql: "SELECT value FROM v")) { error in
                XCTAssertTrue("\(error)".contains("could not decode UInt8"), "\(error)")
            }
            // Copied rows are strict: a TEXT is not an Int.
            let copied = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT ?", arguments: ["secret-text"]))
            XCTAssertThrowsError(try copied.decode(Int.self, atIndex: 0)) { error in
                XCTAssertTrue("\(error)".contains("TEXT"), "\(error)")
                XCTAssertFalse("\(error)".contains("secret-text"), "values stay out of errors")
            }
            // The statement fast path lets SQLite convert, as GRDB does and
            // documents: TEXT pragmas read as numbers, numbers as text.
            XCTAssertEqual(try Int.fetchOne(db, sql: "PRAGMA cipher_page_size"), CipherSettings.libraryDefaults.pageSize)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT '20 small cigars'"), 20)
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT 12"), "12")
            XCTAssertEqual(try Double.fetchOne(db, sql: "SELECT '1.5'"), 1.5)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT 1.5"), 1)
            XCTAssertThrowsError(try Int.fetchAll(db, sql: "SELECT NULL")) { error in
                XCTAssertTrue("\(error)".contains("NULL"), "\(error)")
            }
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT 2.0"), 2)
        }
    }

    func testLargeUInt64IsStoredAsReal() throws {
        let dbValue = UInt64.max.databaseValue
        guard case .double = dbValue.storage else { return XCTFail("\(dbValue)") }
    }

    func testFloatingPointRoundTrip() throws {
        try roundTrip(3.141592653589793)
        try roundTrip(-0.0)
        try roundTrip(Double.greatestFiniteMagnitude)
        try roundTrip(Float(1.5))
    }

    func testBoolRoundTrip() throws {
        try roundTrip(true)
        try roundTrip(false)
        XCTAssertEqual(true.databaseValue, 1.databaseValue)
    }

    func testStringRoundTrip() throws {
        try roundTrip("")
        try roundTrip("plain")
        try roundTrip("Grüße, 世界, emoji 🔐, RTL שלום")
        try roundTrip("with\0nul")
        try roundTrip("quote ' and \"double\"; DROP TABLE v; --")
    }

    func testDataRoundTrip() throws {
        try roundTrip(Data())
        try roundTrip(Data([0, 1, 2, 255]))
        try roundTrip(Data(repeating: 0xAB, count: 100_000))
        // An empty Data is an empty BLOB, not NULL.
        try dbQueue.write { db in
            try db.execute(sql: "DELETE FROM v; INSERT INTO v VALUES (?)", arguments: [Data()])
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT typeof(value) FROM v"), "blob")
            try db.execute(sql: "DELETE FROM v; INSERT INTO v VALUES (?)", arguments: [""])
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT typeof(value) FROM v"), "text")
        }
    }

    func testDateRoundTripAndFormat() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.123)
        try roundTrip(date)
        try roundTrip(Date(timeIntervalSince1970: -86_400 * 365 * 100 + 0.5))
        XCTAssertEqual(date.databaseValue, "2023-11-14 22:13:20.123".databaseValue)
        XCTAssertEqual(Date.fromDatabaseValue("2023-11-14".databaseValue), Date(timeIntervalSince1970: 1_699_920_000))
        XCTAssertEqual(Date.fromDatabaseValue("2023-11-14T22:13:20Z".databaseValue), Date(timeIntervalSince1970: 1_700_000_000))
        XCTAssertEqual(Date.fromDatabaseValue("2023-11-15 00:13:20+02:00".databaseValue), Date(timeIntervalSince1970: 1_700_000_000))
        XCTAssertEqual(Date.fromDatabaseValue(1_700_000_000.databaseValue), Date(timeIntervalSince1970: 1_700_000_000))
        XCTAssertNil(Date.fromDatabaseValue("not a date".databaseValue))
        // Out-of-range fields roll over, as GRDB's calendar conversion does.
        XCTAssertEqual(Date.fromDatabaseValue("2023-13-01".databaseValue), Date(timeIntervalSince1970: 1_704_067_200))
        // Fraction widths from one to many digits (milliseconds are kept),
        // and a time alone is not a date.
        XCTAssertEqual(Date.fromDatabaseValue("2023-11-14 22:13:20.5".databaseValue), Date(timeIntervalSince1970: 1_700_000_000.5))
        XCTAssertEqual(Date.fromDatabaseValue("2023-11-14 22:13:20.123456".databaseValue), Date(timeIntervalSince1970: 1_700_000_000.123))
        XCTAssertEqual(Date.fromDatabaseValue("2023-11-14 22:13".databaseValue), Date(timeIntervalSince1970: 1_699_999_980))
        XCTAssertNil(Date.fromDatabaseValue("22:13:20".databaseValue))
        // SQLite's own date functions read the stored text.
        try dbQueue.write { db in
            try db.execute(sql: "DELETE FROM v; INSERT INTO v VALUES (?)", arguments: [date])
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT CAST(strftime('%s', value) AS INTEGER) FROM v"), 1_700_000_000)
        }
    }

    func testUUIDAndURLRoundTrip() throws {
        let uuid = UUID()
        try roundTrip(uuid)
        XCTAssertEqual(UUID.fromDatabaseValue(uuid.uuidString.databaseValue), uuid)
        try roundTrip(URL(string: "https://example.com/path?q=ä")!)
    }

    /// Zero, false and empty values are not NULL on the statement fast
    /// path, which reads the value first and asks SQLite for the column's
    /// type only when the value reads as zero or empty, as NULL does.
    func testZeroFalseAndEmptyAreNotNull() throws {
        struct Values: Decodable, FetchableRecord, Equatable {
            var i: Int64, n: Int, d: Double, b: Bool, s: String
        }
        struct OptionalValues: Decodable, FetchableRecord, Equatable {
            var i: Int64?, n: Int?, d: Double?, b: Bool?, s: String?
        }
        try dbQueue.read { db in
            let zeros = "SELECT 0 AS i, 0 AS n, 0.0 AS d, 0 AS b, '' AS s"
            let nulls = "SELECT NULL AS i, NULL AS n, NULL AS d, NULL AS b, NULL AS s"
            XCTAssertEqual(try Values.fetchAll(db, sql: zeros), [Values(i: 0, n: 0, d: 0, b: false, s: "")])
            XCTAssertEqual(try Values.fetchAll(db, sql: "SELECT 0 AS i, 0 AS n, -0.0 AS d, 0 AS b, x'' AS s"),
                           [Values(i: 0, n: 0, d: 0, b: false, s: "")], "an empty BLOB reads as an empty string")
            XCTAssertEqual(try OptionalValues.fetchAll(db, sql: zeros), [OptionalValues(i: 0, n: 0, d: 0, b: false, s: "")])
            XCTAssertEqual(try OptionalValues.fetchAll(db, sql: nulls), [OptionalValues(i: nil, n: nil, d: nil, b: nil, s: nil)])
            for column in ["i", "n", "d", "b", "s"] {
                let sql = "SELECT " + ["i", "n", "d", "b", "s"].map { $0 == column ? "NULL AS \($0)" : "0 AS \($0)" }.joined(separator: ", ")
                XCTAssertThrowsError(try Values.fetchAll(db, sql: sql), column) { error in
                    XCTAssertTrue("\(error)".contains("from the NULL value in column \"\(column)\""), "\(error)")
                }
            }
            XCTAssertEqual(try Int64.fetchOne(db, sql: "SELECT 0"), 0)
            XCTAssertEqual(try Double.fetchOne(db, sql: "SELECT 0.0"), 0)
            XCTAssertEqual(try Bool.fetchOne(db, sql: "SELECT 0"), false)
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT ''"), "")
            XCTAssertEqual(try Int64?.fetchAll(db, sql: "SELECT 0 UNION ALL SELECT NULL UNION ALL SELECT 7"), [0, nil, 7])
            XCTAssertEqual(try Double?.fetchAll(db, sql: "SELECT 0.0 UNION ALL SELECT NULL"), [0, nil])
            XCTAssertEqual(try Bool?.fetchAll(db, sql: "SELECT 0 UNION ALL SELECT NULL"), [false, nil])
            XCTAssertEqual(try String?.fetchAll(db, sql: "SELECT '' UNION ALL SELECT NULL"), ["", nil])
        }
    }

    func testOptionalsRoundTrip() throws {
        try roundTrip(Int?.none)
        try roundTrip(Int?.some(5))
        try roundTrip(String?.none)
        try roundTrip(Data?.none)
        try roundTrip(Date?.none)
        try roundTrip(UUID?.none)
    }

    func testDatabaseValueEqualityFollowsSQLite() {
        XCTAssertEqual(1.databaseValue, 1.0.databaseValue)
        XCTAssertNotEqual(1.databaseValue, "1".databaseValue)
        XCTAssertEqual(DatabaseValue.null, nil)
        XCTAssertEqual(Set([1.databaseValue, 1.0.databaseValue]).count, 1)
    }
}
