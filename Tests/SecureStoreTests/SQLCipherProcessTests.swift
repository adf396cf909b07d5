import Foundation
@testable import SecureStore
import XCTest

/// The settings SecureStore makes once per process, before SQLite
/// initializes.
final class SQLCipherProcessTests: SecureStoreTestCase {
    /// SQLite's memory statistics take a process-wide mutex at each of its
    /// allocations: SecureStore turns them off, so SQLite counts nothing,
    /// even with a connection open that has written and read.
    func testMemoryStatisticsAreOff() throws {
        let dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT)")
            for index in 0..<100 {
                try db.execute(sql: "INSERT INTO item (name) VALUES (?)", arguments: [String(repeating: "x", count: index)])
            }
        }
        XCTAssertEqual(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM item") }, 100)
        XCTAssertFalse(SQLCipherProcess.keepsMemoryStatistics)
    }
}
