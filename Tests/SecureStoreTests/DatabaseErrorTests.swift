import Foundation
import SecureStore
import XCTest

final class DatabaseErrorTests: SecureStoreTestCase {
    private func constraintError(publicArguments: Bool) throws -> DatabaseError {
        var config = keyedConfiguration(passphrase: "k")
        config.publicStatementArguments = publicArguments
        let dbQueue = try DatabaseQueue(path: path("db-\(publicArguments).sqlite"), configuration: config)
        return try dbQueue.write { db -> DatabaseError in
            try db.execute(sql: "CREATE TABLE user (email TEXT UNIQUE)")
            try db.execute(sql: "INSERT INTO user VALUES (?)", arguments: ["secret@example.com"])
            do {
                try db.execute(sql: "INSERT INTO user VALUES (?)", arguments: ["secret@example.com"])
            } catch let error as DatabaseError {
                return error
            }
            throw DatabaseError(message: "expected a constraint error")
        }
    }

    func testErrorFieldsAndHiddenArguments() throws {
        let error = try constraintError(publicArguments: false)
        XCTAssertEqual(error.resultCode, .SQLITE_CONSTRAINT)
        XCTAssertEqual(error.extendedResultCode, .SQLITE_CONSTRAINT_UNIQUE)
        XCTAssertEqual(error.message, "UNIQUE constraint failed: user.email")
        XCTAssertEqual(error.sql, "INSERT INTO user VALUES (?)")
        XCTAssertEqual(error.arguments, ["secret@example.com"])
        XCTAssertEqual(error.description,
                       "SQLite error 19: UNIQUE constraint failed: user.email - while executing `INSERT INTO user VALUES (?)`")
        XCTAssertFalse(error.description.contains("secret@example.com"))
        XCTAssertTrue(error.expandedDescription.contains("secret@example.com"))
    }

    func testPublicStatementArgumentsShowArguments() throws {
        let error = try constraintError(publicArguments: true)
        XCTAssertTrue(error.description.hasSuffix("with arguments [\"secret@example.com\"]"), error.description)
    }

    /// A record's INSERT does not keep its values as the statement's
    /// arguments; its errors carry them all the same, as GRDB's do.
    func testRecordInsertErrorsCarryTheRecordsValues() throws {
        struct User: Codable, PersistableRecord { var email: String; var name: String }
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE user (email TEXT UNIQUE, name TEXT)")
            try User(email: "secret@example.com", name: "A").insert(db)
            XCTAssertThrowsError(try User(email: "secret@example.com", name: "B").insert(db)) { error in
                guard let error = error as? DatabaseError else { return XCTFail("not a DatabaseError: \(error)") }
                XCTAssertEqual(error.extendedResultCode, .SQLITE_CONSTRAINT_UNIQUE)
                XCTAssertTrue(error.sql?.hasPrefix("INSERT INTO \"user\"") == true, error.sql ?? "no SQL")
                XCTAssertEqual(error.arguments, ["secret@example.com", "B"])
                XCTAssertFalse(error.description.contains("secret@example.com"), error.description)
            }
            // The same cached statement runs the next insert.
            try User(email: "other@example.com", name: "C").insert(db)
            XCTAssertEqual(try String.fetchAll(db, sql: "SELECT name FROM user ORDER BY rowid"), ["A", "C"])
        }
    }

    func testCatchPatterns() throws {
        let error: any Error = try constraintError(publicArguments: false)
        switch error {
        case DatabaseError.SQLITE_CONSTRAINT_UNIQUE: break
        default: XCTFail("extended code should match")
        }
        switch error {
        case DatabaseError.SQLITE_CONSTRAINT: break
        default: XCTFail("primary code should match its extended codes")
        }
        switch error {
        case DatabaseError.SQLITE_CONSTRAINT_FOREIGNKEY: XCTFail("another extended code must not match")
        default: break
        }
        XCTAssertTrue(ResultCode.SQLITE_CONSTRAINT ~= ResultCode.SQLITE_CONSTRAINT_NOTNULL)
        XCTAssertFalse(ResultCode.SQLITE_CONSTRAINT_NOTNULL ~= ResultCode.SQLITE_CONSTRAINT)
    }
}
