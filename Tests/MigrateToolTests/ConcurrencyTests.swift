import Foundation
import TestSupport
import XCTest

final class ConcurrencyTests: MigrateToolTestCase {
    func testTwoAndFourConcurrentAppliesApplyOnce() throws {
        for runs in [2, 4] {
            let name = "app-\(runs).db"
            let keys = try makeDatabase(name)
            let arguments = ["apply", path(name), "--migrations", migrations, "--key-file", keys, "--json"]
            let results = ResultBox()
            let binary = Self.productsDirectory.appendingPathComponent("migrate-tool").path
            DispatchQueue.concurrentPerform(iterations: runs) { _ in
                if let result = try? CommandLineClient.run(binary, arguments) { results.append(result) }
            }
            let all = results.all
            XCTAssertEqual(all.count, runs)
            // The others wait for the lock (30 s by default), then find
            // nothing to do; none may fail otherwise.
            XCTAssertEqual(all.map(\.status), Array(repeating: 0, count: runs), all.map(\.stderr).joined())
            let statuses = try all.map { result in
                try XCTUnwrap((try json(result.stdout) as? [[String: Any]])?.first?["status"] as? String)
            }
            XCTAssertEqual(statuses.filter { $0 == "applied" }.count, 1, "exactly one of \(runs) runs applies: \(statuses)")
            XCTAssertEqual(statuses.filter { $0 == "up-to-date" }.count, runs - 1, "\(statuses)")
            XCTAssertEqual(try appliedMigrations(name), ["Zalora-v1", "Zalora-v2", "Zalora-v3"])
            let integrity = try sqlcipher(name, "PRAGMA integrity_check;")
            XCTAssertEqual(integrity.stdout, "ok\n", integrity.stderr)
        }
    }

    func testLockTimeoutHasItsOwnExitCode() throws {
        let keys = try makeDatabase()
        // Another process holds the lock (flock(1), as a second run would).
        let holder = try holdLock(on: path("app.db"), seconds: 60)
        defer { holder.terminate(); holder.waitUntilExit() }
        let result = try tool(["apply", path("app.db"), "--migrations", migrations, "--key-file", keys, "--lock-timeout", "0.5"])
        XCTAssertEqual(result.status, 75, result.stdout)
        XCTAssertTrue(result.stdout.contains("locked by another run"), result.stdout)
        XCTAssertEqual(try sqlcipher("app.db", "SELECT count(*) FROM sqlite_master;").stdout, "0\n", "nothing applied")
        holder.terminate()
        holder.waitUntilExit()
        // A killed holder leaves no stuck lock.
        XCTAssertEqual(try tool(["apply", path("app.db"), "--migrations", migrations, "--key-file", keys, "--lock-timeout", "5"]).status, 0)
    }

    func testSeveralFilesWithJobsAndFailFast() throws {
        let keys = try makeDatabase("a.db")
        XCTAssertEqual(try tool(["create", path("b.db"), "--key-file", keys]).status, 0)
        XCTAssertEqual(try tool(["create", path("c.db"), "--key-file", keys]).status, 0)
        let all = try tool(["apply", path("a.db"), path("b.db"), path("c.db"), "--migrations", migrations, "--key-file", keys, "--jobs", "2"])
        XCTAssertEqual(all.status, 0, all.stdout)
        XCTAssertTrue(all.stdout.contains("3 file(s): 3 ok, 0 failed, 0 skipped"), all.stdout)
        for name in ["a.db", "b.db", "c.db"] { XCTAssertEqual(try appliedMigrations(name).count, 3) }

        let failFast = try tool(["rollback", path("missing.db"), path("a.db"), "--steps", "1", "--key-file", keys, "--fail-fast", "--json"])
        XCTAssertEqual(failFast.status, 66)
        let results = try XCTUnwrap(try json(failFast.stdout) as? [[String: Any]])
        XCTAssertEqual(results.compactMap { $0["status"] as? String }, ["failed", "skipped"])
        XCTAssertEqual(try appliedMigrations("a.db").count, 3)
    }
}

final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [CommandLineClient.Result] = []
    func append(_ result: CommandLineClient.Result) { lock.withLock { results.append(result) } }
    var all: [CommandLineClient.Result] { lock.withLock { results } }
}
