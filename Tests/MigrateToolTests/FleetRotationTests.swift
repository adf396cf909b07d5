import Foundation
import TestSupport
import XCTest

/// A key rotation over 50 files, killed with SIGKILL at random moments and
/// finished by running the same command again.
///
/// The keys are raw (`x'<hex>'`), so that no key derivation hides the
/// rotation's own work; the `sqlcipher` CLI checks every file.
final class FleetRotationTests: MigrateToolTestCase {
    private static let fleetSize = 50
    private let oldKey = "x'" + String(repeating: "1f", count: 32) + "'"
    private let newKey = "x'" + String(repeating: "e2", count: 32) + "'"
    private let strangerKey = "x'" + String(repeating: "5a", count: 32) + "'"
    private var environment: [String: String] { ["OLD_KEY": oldKey, "NEW_KEY": newKey] }
    private var tool: URL { Self.productsDirectory.appendingPathComponent("migrate-tool") }

    func testAStoppedRotationIsFinishedByTheSameCommand() throws {
        var rows: [String: Int] = [:]
        for index in 0..<Self.fleetSize {
            let file = path(String(format: "fleet-%02d.db", index))
            rows[file] = 150 + 10 * index
            try makeFile(file, key: oldKey, rows: 150 + 10 * index)
        }
        let stranger = path("fleet-stranger.db")
        try makeFile(stranger, key: strangerKey, rows: 10)
        let strangerBefore = try sha256OfFile(stranger)
        var files = rows.keys.sorted()
        files.insert(stranger, at: Self.fleetSize / 2)

        // How long an uninterrupted rotation takes, on copies.
        let copies = directory.appendingPathComponent("timing")
        try FileManager.default.createDirectory(at: copies, withIntermediateDirectories: true)
        for file in files {
            try FileManager.default.copyItem(atPath: file, toPath: copies.appendingPathComponent((file as NSString).lastPathComponent).path)
        }
        let copiedFiles = files.map { copies.appendingPathComponent(($0 as NSString).lastPathComponent).path }
        let (duration, timed) = try CrashHarness.timedRun(tool, rotation(copiedFiles), environment: environment)
        XCTAssertEqual(timed, 65, "the stranger's wrong key")

        // Three kills: the first as soon as one file is on the new key (so
        // that it stops the rotation halfway however loaded the machine
        // is), the others at random moments; after each, every file opens
        // with exactly one of the two keys and holds all its rows.
        var landed = 0
        for kill in 0..<3 {
            let delay = Double.random(in: (0.2 * duration)...(0.7 * duration))
            let killed = kill == 0
                ? try CrashHarness.runAndKill(tool, rotation(files), environment: environment, afterReplacingOneOf: files)
                : try CrashHarness.runAndKill(tool, rotation(files), environment: environment, after: delay)
            if killed { landed += 1 }
            let onNewKey = try checkFleet(rows, afterKill: kill)
            if kill == 0 {
                XCTAssertEqual(landed, 1, "the first kill lands within the rotation (\(duration) s uninterrupted)")
                XCTAssertTrue(onNewKey > 0 && onNewKey < Self.fleetSize,
                              "the first kill stops the rotation halfway: \(onNewKey) of \(Self.fleetSize) on the new key")
            }
        }

        // The same command finishes the job; the stranger fails alone.
        let finished = try tool(rotation(files) + ["--json"], environment: environment)
        XCTAssertEqual(finished.status, 65, finished.stderr)
        assertNoSecret(finished, String(oldKey.dropFirst(2).prefix(64)))
        assertNoSecret(finished, String(newKey.dropFirst(2).prefix(64)))
        let output = try XCTUnwrap(try json(finished.stdout) as? [String: Any])
        let summary = try XCTUnwrap(output["summary"] as? [String: Int])
        let results = try XCTUnwrap(output["results"] as? [[String: Any]])
        XCTAssertEqual(results.map { $0["file"] as? String }, files)
        let statuses = results.map { $0["status"] as? String ?? "" }
        XCTAssertEqual(statuses[Self.fleetSize / 2], "failed")
        XCTAssertEqual(results[Self.fleetSize / 2]["exitCode"] as? Int, 65)
        XCTAssertEqual(Set(statuses.enumerated().filter { $0.offset != Self.fleetSize / 2 }.map(\.element))
                        .subtracting(["rekeyed", "already-rekeyed"]), [])
        XCTAssertEqual(summary["files"], Self.fleetSize + 1)
        XCTAssertEqual(summary["rekeyed"], statuses.filter { $0 == "rekeyed" }.count)
        XCTAssertEqual(summary["alreadyRekeyed"], statuses.filter { $0 == "already-rekeyed" }.count)
        XCTAssertEqual((summary["rekeyed"] ?? 0) + (summary["alreadyRekeyed"] ?? 0), Self.fleetSize)
        XCTAssertGreaterThan(summary["alreadyRekeyed"] ?? 0, 0, "the killed runs re-keyed some files")
        XCTAssertEqual(summary["failed"], 1)
        XCTAssertEqual(summary["skipped"], 0)
        XCTAssertEqual(try checkFleet(rows, afterKill: nil), Self.fleetSize, "every file ends on the new key")
        XCTAssertEqual(try sha256OfFile(stranger), strangerBefore, "the file neither key opens is unchanged")

        // Once more: nothing left to do, and the text summary says so.
        let again = try tool(rotation(files), environment: environment)
        XCTAssertEqual(again.status, 65, again.stderr)
        XCTAssertTrue(again.stdout.contains("\(Self.fleetSize + 1) file(s): 0 re-keyed, \(Self.fleetSize) already re-keyed, 1 failed, 0 skipped"),
                      again.stdout)
        XCTAssertTrue(again.stdout.contains("\(path("fleet-07.db")): already re-keyed"), again.stdout)
        print("fleet rotation: \(landed) of 3 kills landed within a run of \(duration) s; the last run: \(summary)")
    }

    private func rotation(_ files: [String]) -> [String] {
        ["rekey"] + files + ["--key-env", "OLD_KEY", "--new-key-env", "NEW_KEY", "--jobs", "2", "--lock-timeout", "1"]
    }

    private func makeFile(_ file: String, key: String, rows: Int) throws {
        let made = try CommandLineClient.sqlcipher(file, preamble: "PRAGMA key = \"\(key)\";", sql: """
            CREATE TABLE item (id INTEGER PRIMARY KEY, payload TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
            INSERT INTO item SELECT i, hex(randomblob(200)) FROM n;
            """)
        XCTAssertEqual(made.status, 0, made.stderr)
    }

    /// Checks that exactly one key opens each file, with all its rows and
    /// a passing integrity check; returns how many are on the new key. The
    /// files are read side by side (two readers per core).
    private func checkFleet(_ rows: [String: Int], afterKill kill: Int?) throws -> Int {
        let files = rows.sorted(by: { $0.key < $1.key })
        let reads = Locked([(old: Read?, new: Read?)?](repeating: nil, count: files.count))
        let failure = Locked<(any Error)?>(nil)
        let (oldKey, newKey) = (oldKey, newKey)
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            do {
                let pair = (try Self.read(files[index].key, key: oldKey), try Self.read(files[index].key, key: newKey))
                reads.mutate { $0[index] = pair }
            } catch {
                failure.value = error
            }
        }
        if let error = failure.value { throw error }
        var onNewKey = 0
        for ((file, count), pair) in zip(files, reads.value) {
            let (withOld, withNew) = try XCTUnwrap(pair)
            let moment = kill.map { "after kill \($0)" } ?? "after the last run"
            XCTAssertTrue((withOld == nil) != (withNew == nil), "\(file) \(moment): exactly one key must open it")
            XCTAssertEqual((withOld ?? withNew)?.rows, count, "\(file) \(moment): every row")
            XCTAssertEqual((withOld ?? withNew)?.integrity, "ok", "\(file) \(moment) fails the integrity check")
            if withNew != nil { onNewKey += 1 }
            if kill == nil { XCTAssertNil(withOld, "\(file): the old key no longer opens it") }
        }
        return onNewKey
    }

    /// What the `sqlcipher` shell reads with one key.
    private struct Read {
        var integrity: String?
        var rows: Int?
    }

    /// Nil when `key` does not open the file.
    private static func read(_ file: String, key: String) throws -> Read? {
        let read = try CommandLineClient.sqlcipher(file, preamble: "PRAGMA key = \"\(key)\";",
                                                   sql: "PRAGMA integrity_check; SELECT count(*) FROM item;")
        guard read.status == 0 else { return nil }
        let lines = read.stdout.split(separator: "\n").map(String.init)
        return Read(integrity: lines.first, rows: lines.last.flatMap { Int($0) })
    }
}
