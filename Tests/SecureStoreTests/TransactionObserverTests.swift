import Foundation
import SecureStore
import XCTest

/// Transaction observers on encrypted files: which events they get, when
/// commits and rollbacks are reported, savepoints, and refused commits.
final class TransactionObserverTests: SecureStoreTestCase {
    /// Records what it is told, for the tables and columns it observes.
    private final class Recorder: TransactionObserver, @unchecked Sendable {
        let observes: @Sendable (DatabaseEventKind) -> Bool
        var events: [String] = []
        var commits = 0
        var rollbacks = 0
        var refuseCommit = false

        init(_ observes: @escaping @Sendable (DatabaseEventKind) -> Bool = { _ in true }) { self.observes = observes }

        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { observes(eventKind) }
        func databaseDidChange(with event: DatabaseEvent) { events.append("\(event.kind) \(event.tableName) \(event.rowID)") }
        func databaseWillCommit() throws {
            if refuseCommit { throw DatabaseError(resultCode: .SQLITE_CONSTRAINT, message: "refused by observer") }
        }
        func databaseDidCommit(_ db: Database) { commits += 1 }
        func databaseDidRollback(_ db: Database) { rollbacks += 1 }
    }

    private var dbQueue: DatabaseQueue!

    override func setUpWithError() throws {
        try super.setUpWithError()
        dbQueue = try makeEncryptedQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INT)")
            try db.execute(sql: "CREATE TABLE team (id INTEGER PRIMARY KEY, name TEXT)")
        }
    }

    func testEventsCommitsAndRollbacks() throws {
        let recorder = Recorder()
        try dbQueue.writeWithoutTransaction { db in
            db.add(transactionObserver: recorder)
            try db.execute(sql: "INSERT INTO player (name, score) VALUES ('Arthur', 1)")
            try db.inTransaction {
                try db.execute(sql: "UPDATE player SET score = 2")
                try db.execute(sql: "DELETE FROM player")
                return .commit
            }
            try db.inTransaction {
                try db.execute(sql: "INSERT INTO team (name) VALUES ('red')")
                return .rollback
            }
        }
        XCTAssertEqual(recorder.events, ["insert player 1", "update player 1", "delete player 1", "insert team 1"])
        XCTAssertEqual(recorder.commits, 2)
        XCTAssertEqual(recorder.rollbacks, 1)
    }

    func testStatementsAreFilteredByTableAndColumn() throws {
        // Only updates of player.score.
        let recorder = Recorder { kind in
            if case let .update(table, columns) = kind { return table == "player" && columns.contains("score") }
            return false
        }
        try dbQueue.writeWithoutTransaction { db in
            db.add(transactionObserver: recorder)
            try db.execute(sql: "INSERT INTO player (name, score) VALUES ('Arthur', 1)")
            try db.execute(sql: "UPDATE player SET name = 'Barbara'")
            try db.execute(sql: "UPDATE player SET score = 3")
        }
        XCTAssertEqual(recorder.events, ["update player 1"])
        XCTAssertEqual(recorder.commits, 3, "every transaction is reported, observed or not")
    }

    func testDeleteWithoutWhereReportsEveryRow() throws {
        // SQLite's truncate optimization would delete all rows at once,
        // without telling the update hook: it is turned off for observers
        // of deletions.
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('a'), ('b'), ('c')") }
        let recorder = Recorder { if case .delete = $0 { return true } else { return false } }
        try dbQueue.writeWithoutTransaction { db in
            db.add(transactionObserver: recorder)
            try db.execute(sql: "DELETE FROM player")
        }
        XCTAssertEqual(recorder.events, ["delete player 1", "delete player 2", "delete player 3"])
    }

    /// SQLite asks about deleting a table's rows when it drops the table:
    /// answering SQLITE_IGNORE there (as for DELETE) would silently keep
    /// the table. A migration that rebuilds an observed table needs it gone.
    func testDropTableOfAnObservedTableDropsIt() throws {
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('a')") }
        let recorder = Recorder { if case .delete = $0 { return true } else { return false } }
        try dbQueue.writeWithoutTransaction { db in
            db.add(transactionObserver: recorder)
            try db.execute(sql: "CREATE VIEW named AS SELECT name FROM player; CREATE TEMP VIEW scratch AS SELECT 1")
            try db.execute(sql: "DROP VIEW named; DROP VIEW scratch")
            XCTAssertFalse(try db.viewExists("named"))
            XCTAssertFalse(try db.viewExists("scratch", in: "temp"))
            try db.execute(sql: "DROP TABLE player")
            XCTAssertFalse(try db.tableExists("player"))
            try db.execute(sql: """
                CREATE TABLE new_team (id INTEGER PRIMARY KEY, label TEXT);
                INSERT INTO new_team SELECT id, name FROM team;
                DROP TABLE team;
                ALTER TABLE new_team RENAME TO team;
                """)
            XCTAssertEqual(try db.columns(in: "team").map(\.name), ["id", "label"])
        }
        XCTAssertEqual(recorder.commits, 9, "one per autocommitted statement")
    }

    func testSavepointEventsAreHeldUntilReleasedAndDroppedOnRollback() throws {
        let recorder = Recorder()
        try dbQueue.writeWithoutTransaction { db in
            db.add(transactionObserver: recorder)
            try db.inTransaction {
                try db.execute(sql: "INSERT INTO player (name) VALUES ('kept')")
                try db.inSavepoint {
                    try db.execute(sql: "INSERT INTO player (name) VALUES ('dropped')")
                    XCTAssertEqual(recorder.events, ["insert player 1"], "held while the savepoint is open")
                    return .rollback
                }
                try db.inSavepoint {
                    try db.execute(sql: "INSERT INTO player (name) VALUES ('released')")
                    return .commit
                }
                return .commit
            }
        }
        XCTAssertEqual(recorder.events, ["insert player 1", "insert player 2"])
        XCTAssertEqual(recorder.commits, 1)
    }

    func testObserverThatRefusesTheCommitRollsBack() throws {
        let recorder = Recorder()
        recorder.refuseCommit = true
        dbQueue.writeWithoutTransaction { db in db.add(transactionObserver: recorder) }
        XCTAssertThrowsError(try dbQueue.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('x')") }) { error in
            XCTAssertEqual((error as? DatabaseError)?.message, "refused by observer")
        }
        XCTAssertEqual(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM player") }, 0)
        XCTAssertEqual(recorder.rollbacks, 1)
        XCTAssertEqual(recorder.commits, 0)
    }

    func testExtentsAndAfterNextTransaction() throws {
        final class Flags: @unchecked Sendable { var commits = 0 }
        let flags = Flags()
        try dbQueue.writeWithoutTransaction { db in
            // Released at once: the connection holds it weakly.
            db.add(transactionObserver: Recorder())
            db.add(transactionObserver: Recorder(), extent: .nextTransaction)
            db.afterNextTransaction { _ in flags.commits += 1 }
            try db.execute(sql: "INSERT INTO player (name) VALUES ('x')")
            try db.execute(sql: "INSERT INTO player (name) VALUES ('y')")
        }
        XCTAssertEqual(flags.commits, 1, "afterNextTransaction runs once")
        // An empty transaction is reported too.
        try dbQueue.writeWithoutTransaction { db in
            db.afterNextTransaction { _ in flags.commits += 1 }
            try db.inTransaction(.deferred) { .commit }
        }
        XCTAssertEqual(flags.commits, 2)
    }

    func testStopObservingUntilNextTransaction() throws {
        final class OnceRecorder: TransactionObserver {
            var count = 0
            func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
            func databaseDidChange(with event: DatabaseEvent) {
                count += 1
                stopObservingDatabaseChangesUntilNextTransaction()
            }
            func databaseDidCommit(_ db: Database) {}
            func databaseDidRollback(_ db: Database) {}
        }
        let recorder = OnceRecorder()
        try dbQueue.writeWithoutTransaction { db in
            db.add(transactionObserver: recorder)
            try db.inTransaction {
                try db.execute(sql: "INSERT INTO player (name) VALUES ('a'), ('b')")
                try db.execute(sql: "INSERT INTO player (name) VALUES ('c')")
                return .commit
            }
            try db.execute(sql: "INSERT INTO player (name) VALUES ('d')")
        }
        XCTAssertEqual(recorder.count, 2, "one per transaction")
    }

    func testNotifyChangesOfTheSchemaTablesReachesTheirObservers() throws {
        final class SchemaObserver: TransactionObserver, @unchecked Sendable {
            let table: String
            var changes = 0
            init(_ table: String) { self.table = table }
            func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { eventKind.tableName == table }
            func databaseDidChange(with event: DatabaseEvent) {}
            func databaseDidChange() { changes += 1 }
            func databaseDidCommit(_ db: Database) {}
            func databaseDidRollback(_ db: Database) {}
        }
        let master = SchemaObserver("sqlite_master")
        let tempMaster = SchemaObserver("sqlite_temp_master")
        dbQueue.add(transactionObserver: master)
        dbQueue.add(transactionObserver: tempMaster)
        // The full database is its tables, not the schema table.
        try dbQueue.write { db in try db.notifyChanges(in: .fullDatabase) }
        XCTAssertEqual(master.changes, 0)
        try dbQueue.write { db in try db.notifyChanges(in: Table("sqlite_master")) }
        XCTAssertEqual(master.changes, 1)
        // The temporary schema counts once it has an object.
        try dbQueue.write { db in try db.notifyChanges(in: Table("sqlite_temp_master")) }
        XCTAssertEqual(tempMaster.changes, 0)
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TEMPORARY TABLE scratch (a)")
            try db.notifyChanges(in: Table("sqlite_temp_master"))
        }
        XCTAssertEqual(tempMaster.changes, 1)
    }
}
