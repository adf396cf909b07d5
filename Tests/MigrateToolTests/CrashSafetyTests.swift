import Foundation
import TestSupport
import XCTest

/// Kill the tool with SIGKILL at random moments: afterwards the file opens
/// with exactly one of the keys, is whole, and the next run recovers.
final class CrashSafetyTests: MigrateToolTestCase {
    private let rows = 84_000 // about 20 MB

    private func count(_ file: String, key: String) throws -> Int? {
        let result = try CommandLineClient.sqlcipher(file, preamble: "PRAGMA key = '\(key)';", sql: "SELECT count(*) FROM item; PRAGMA integrity_check;")
        guard result.status == 0 else { return nil }
        let lines = result.stdout.split(separator: "\n")
        return lines.count == 2 && lines[1] == "ok" ? Int(lines[0]) : -1
    }

    private func killAtRandom(_ arguments: [String], environment: [String: String], within seconds: Double) throws {
        let process = Process()
        process.executableURL = Self.productsDirectory.appendingPathComponent("migrate-tool")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        Thread.sleep(forTimeInterval: Double.random(in: 0...seconds))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func testRekeyKilledAtRandomLeavesExactlyOneKey() throws {
        let original = path("original.db")
        let made = try CommandLineClient.sqlcipher(original, preamble: "PRAGMA key = 'old';", sql: """
            CREATE TABLE item (id INTEGER PRIMARY KEY, payload BLOB);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows)) INSERT INTO item SELECT i, randomblob(200) FROM n;
            """)
        XCTAssertEqual(made.status, 0, made.stderr)
        let env = ["OLD": "old", "NEW": "new"]
        var outcomes: [String: Int] = [:]
        for trial in 0..<6 {
            let file = path("trial-\(trial).db")
            try FileManager.default.copyItem(atPath: original, toPath: file)
            try killAtRandom(["rekey", file, "--key-env", "OLD", "--new-key-env", "NEW"], environment: env, within: 2.0)
            let old = try count(file, key: "old"), new = try count(file, key: "new")
            XCTAssertTrue((old == rows) != (new == rows), "trial \(trial): old \(String(describing: old)), new \(String(describing: new))")
            XCTAssertTrue(old == nil || new == nil, "both keys open the file")
            outcomes[old == rows ? "old key" : "new key", default: 0] += 1
            // The next run recovers without manual steps.
            if old == rows {
                let again = try tool(["rekey", file, "--key-env", "OLD", "--new-key-env", "NEW"], environment: env)
                XCTAssertEqual(again.status, 0, again.stdout + again.stderr)
                XCTAssertEqual(try count(file, key: "new"), rows)
            }
            let stale = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("trial-\(trial).db.securestore-tmp") }
            XCTAssertEqual(stale, [], "trial \(trial)")
            try FileManager.default.removeItem(atPath: file)
        }
        print("rekey kills: \(outcomes)")
    }

    func testEncryptKilledAtRandomLeavesNoPlaintextCopyAndRecovers() throws {
        let original = path("original.db")
        let made = try CommandLineClient.sqlite3(original, sql: """
            CREATE TABLE item (id INTEGER PRIMARY KEY, payload BLOB);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows)) INSERT INTO item SELECT i, randomblob(200) FROM n;
            """)
        XCTAssertEqual(made.status, 0, made.stderr)
        for trial in 0..<4 {
            let file = path("trial-\(trial).db")
            try FileManager.default.copyItem(atPath: original, toPath: file)
            try killAtRandom(["encrypt", file, "--key-env", "K"], environment: ["K": "key"], within: 1.5)
            let plaintext = try CommandLineClient.sqlite3(file, sql: "SELECT count(*) FROM item;")
            let encrypted = try count(file, key: "key")
            XCTAssertTrue((plaintext.stdout == "\(rows)\n") != (encrypted == rows), "trial \(trial)")
            // Temporary files of the killed run are encrypted; the next run removes them.
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name.contains("securestore-tmp") {
                let header = try Data(contentsOf: URL(fileURLWithPath: path(name))).prefix(16)
                XCTAssertNotEqual(header, Data("SQLite format 3\0".utf8), "\(name) holds plaintext")
            }
            if encrypted != rows {
                XCTAssertEqual(try tool(["encrypt", file, "--key-env", "K"], environment: ["K": "key"]).status, 0)
                XCTAssertEqual(try count(file, key: "key"), rows)
            }
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("trial-\(trial).db.securestore-tmp") }, [])
            try FileManager.default.removeItem(atPath: file)
        }
    }
}
