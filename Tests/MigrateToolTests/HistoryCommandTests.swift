import Foundation
import TestSupport
import XCTest

/// The migration audit trail: who applied, rolled back, baselined and
/// repaired what, where, with which program, when and how long; `history`
/// prints it.
final class HistoryCommandTests: MigrateToolTestCase {
    private var userName: String { String(cString: getpwuid(getuid()).pointee.pw_name) }
    private var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        gethostname(&buffer, 255)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func history(_ database: String, _ keys: String, _ more: [String] = []) throws -> [[String: Any]] {
        let listed = try tool(["history", path(database), "--key-file", keys, "--json"] + more)
        XCTAssertEqual(listed.status, 0, listed.stderr)
        let output = try XCTUnwrap(try json(listed.stdout) as? [String: Any])
        XCTAssertEqual(output["file"] as? String, path(database))
        return try XCTUnwrap(output["events"] as? [[String: Any]])
    }

    func testApplyRollbackAndFailuresAreEventsWithWhoWhereAndHowLong() throws {
        let keys = try makeDatabase()
        let before = Date()
        let applied = try tool(["apply", path("app.db"), "--migrations", migrations, "--key-file", keys, "--no-backup"])
        XCTAssertEqual(applied.status, 0, applied.stderr)
        XCTAssertEqual(try tool(["rollback", path("app.db"), "--steps", "1", "--migrations", migrations, "--key-file", keys, "--no-backup"]).status, 0)

        var events = try history("app.db", keys)
        XCTAssertEqual(events.map { "\($0["action"] as? String ?? "") \($0["identifier"] as? String ?? "") \($0["outcome"] as? String ?? "")" },
                       ["apply Zalora-v1 applied", "apply Zalora-v2 applied", "apply Zalora-v3 applied", "rollback Zalora-v3 rolled back"])
        for event in events {
            XCTAssertEqual(event["userName"] as? String, userName)
            XCTAssertEqual(event["uid"] as? Int, Int(getuid()))
            XCTAssertEqual(event["host"] as? String, hostName)
            XCTAssertEqual(event["process"] as? String, "migrate-tool 0.2.0")
            XCTAssertEqual(event["source"] as? String, "sql")
            let started = try XCTUnwrap((event["startedAt"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) })
            XCTAssertGreaterThanOrEqual(started.timeIntervalSince(before), -1)
            XCTAssertLessThanOrEqual(started.timeIntervalSinceNow, 1)
            let duration = try XCTUnwrap(event["durationMilliseconds"] as? Int)
            XCTAssertTrue((0..<60_000).contains(duration), "\(duration) ms")
        }
        // The rolled-back migration left the history, not the trail.
        XCTAssertEqual(try appliedMigrations(), ["Zalora-v1", "Zalora-v2"])

        // A failing migration: the database is as before, the attempt is an event.
        let folder = try migrationsDirectory("failing", [
            ("0001_Zalora-v1.up.sql", try String(contentsOfFile: migrations + "/0001_Zalora-v1.up.sql", encoding: .utf8)),
            ("0002_Zalora-v2.up.sql", try String(contentsOfFile: migrations + "/0002_Zalora-v2.up.sql", encoding: .utf8)),
            ("0003_Broken.up.sql", "CREATE TABLE broken (id INTEGER PRIMARY KEY);\nINSERT INTO no_such_table VALUES (1);\n"),
        ])
        let failed = try tool(["apply", path("app.db"), "--migrations", folder, "--key-file", keys, "--no-backup", "--no-integrity"])
        XCTAssertNotEqual(failed.status, 0)
        XCTAssertEqual(try appliedMigrations(), ["Zalora-v1", "Zalora-v2"])
        XCTAssertEqual(try sqlcipher("app.db", "SELECT count(*) FROM sqlite_master WHERE name = 'broken';").stdout, "0\n")
        events = try history("app.db", keys)
        XCTAssertEqual(events.count, 5)
        let last = try XCTUnwrap(events.last)
        XCTAssertEqual(last["identifier"] as? String, "Broken")
        XCTAssertEqual(last["action"] as? String, "apply")
        XCTAssertTrue((last["outcome"] as? String ?? "").hasPrefix("failed: "), "\(last)")
        XCTAssertTrue((last["outcome"] as? String ?? "").contains("no_such_table"), "\(last)")

        // Text: newest last, with who, where, how long and the program.
        let text = try tool(["history", path("app.db"), "--key-file", keys])
        XCTAssertEqual(text.status, 0, text.stderr)
        let lines = text.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 5)
        XCTAssertTrue(lines[0].contains("apply  Zalora-v1: applied in "), lines[0])
        XCTAssertTrue(lines[0].contains(" ms by \(userName) (uid \(getuid())) on \(hostName) with migrate-tool 0.2.0, source sql"), lines[0])
        XCTAssertTrue(lines[3].contains("rollback  Zalora-v3: rolled back in "), lines[3])
        XCTAssertTrue(lines[4].contains("apply  Broken: failed: "), lines[4])
        assertNoSecret(text, passphrase)

        // --since: an age, a date, a time; a bad value names itself.
        XCTAssertEqual(try history("app.db", keys, ["--since", "1h"]).count, 5)
        XCTAssertEqual(try history("app.db", keys, ["--since", "2000-01-01"]).count, 5)
        XCTAssertEqual(try history("app.db", keys, ["--since", "2999-01-01T00:00:00Z"]).count, 0)
        let empty = try tool(["history", path("app.db"), "--key-file", keys, "--since", "2999-01-01"])
        XCTAssertEqual(empty.stdout, "\(path("app.db")): no migration events since 2999-01-01\n")
        let bad = try tool(["history", path("app.db"), "--key-file", keys, "--since", "last tuesday"])
        XCTAssertEqual(bad.status, 64, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("--since: 'last tuesday' is not a date"), bad.stderr)
    }

    func testBaselineAndRepairAreEvents() throws {
        let keys = try makeKeyFile()
        let shellSQL = try String(contentsOfFile: migrations + "/0001_Zalora-v1.up.sql", encoding: .utf8)
        XCTAssertEqual(try sqlcipher("shell.db", shellSQL).status, 0)
        XCTAssertEqual(try tool(["baseline", path("shell.db"), "--at", "Zalora-v1", "--migrations", migrations, "--key-file", keys]).status, 0)
        XCTAssertEqual(try sqlcipher("shell.db", "CREATE INDEX brand_on_name ON brandRGDB(name);").status, 0)
        XCTAssertEqual(try tool(["repair", path("shell.db"), "--migrations", migrations, "--key-file", keys]).status, 0)
        let events = try history("shell.db", keys)
        XCTAssertEqual(events.map { "\($0["action"] as? String ?? "") \($0["identifier"] as? String ?? "") \($0["source"] as? String ?? "")" },
                       ["baseline Zalora-v1 baseline", "repair Zalora-v1 repair"])
        XCTAssertEqual(events[0]["outcome"] as? String, "baselined")
        XCTAssertTrue((events[1]["outcome"] as? String ?? "").hasPrefix("repaired: schema fingerprint updated"), "\(events[1])")
        XCTAssertEqual(events[1]["userName"] as? String, userName)
    }

    /// A database of an older release (a history without the audit trail,
    /// and GRDB's table): `history` shows what is known; the next apply
    /// adds the trail in place, and GRDB still finds its identifiers.
    func testAnOlderHistoryIsUpgradedInPlaceAndGRDBStillReadsIt() throws {
        let keys = try makeDatabase()
        XCTAssertEqual(try tool(["apply", path("app.db"), "--migrations", migrations, "--key-file", keys, "--no-backup", "--to", "Zalora-v2"]).status, 0)
        // As an older release left it: no trail, GRDB's table beside ours.
        XCTAssertEqual(try sqlcipher("app.db", """
            DROP TABLE securestore_migration_events;
            CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
            INSERT INTO grdb_migrations SELECT identifier FROM securestore_migrations;
            """).status, 0)

        let old = try history("app.db", keys)
        XCTAssertEqual(old.map { $0["identifier"] as? String }, ["Zalora-v1", "Zalora-v2"])
        XCTAssertTrue(old.allSatisfy { $0["userName"] == nil && $0["durationMilliseconds"] == nil && $0["startedAt"] != nil }, "\(old)")
        let oldText = try tool(["history", path("app.db"), "--key-file", keys])
        XCTAssertTrue(oldText.stdout.contains("Zalora-v1: applied (recorded before auditing: who, where and how long unknown), source sql"),
                      oldText.stdout)
        XCTAssertEqual(try sqlcipher("app.db", "SELECT count(*) FROM sqlite_master WHERE name = 'securestore_migration_events';").stdout, "0\n",
                       "reading changes nothing")

        XCTAssertEqual(try tool(["apply", path("app.db"), "--migrations", migrations, "--key-file", keys, "--no-backup"]).status, 0)
        let upgraded = try history("app.db", keys)
        XCTAssertEqual(upgraded.map { $0["identifier"] as? String }, ["Zalora-v1", "Zalora-v2", "Zalora-v3"])
        XCTAssertNil(upgraded[1]["userName"])
        XCTAssertEqual(upgraded[2]["userName"] as? String, userName)
        XCTAssertEqual(try sqlcipher("app.db", "SELECT identifier FROM grdb_migrations ORDER BY rowid;").stdout,
                       "Zalora-v1\nZalora-v2\nZalora-v3\n")
        XCTAssertEqual(try appliedMigrations(), ["Zalora-v1", "Zalora-v2", "Zalora-v3"])
        // The trail is bookkeeping: the schema matches the migrations.
        XCTAssertEqual(try tool(["status", path("app.db"), "--migrations", migrations, "--key-file", keys, "--check"]).status, 0)
    }
}
