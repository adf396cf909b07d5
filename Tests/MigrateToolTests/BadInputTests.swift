import Foundation
import TestSupport
import XCTest

/// Wrong files get a message naming the file, the documented exit code, and
/// stay unchanged.
final class BadInputTests: MigrateToolTestCase {
    private func apply(_ file: String, keys: String) throws -> CommandLineClient.Result {
        try tool(["apply", file, "--migrations", migrations, "--key-file", keys])
    }

    func testMissingFileAndDirectory() throws {
        let keys = try makeKeyFile()
        let missing = try apply(path("missing.db"), keys: keys)
        XCTAssertEqual(missing.status, 66)
        XCTAssertTrue(missing.stdout.contains("missing.db: no such file"), missing.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("missing.db")), "nothing is created")
        XCTAssertEqual(try tool(["inspect", path("missing.db"), "--key-file", keys]).status, 66)

        try FileManager.default.createDirectory(atPath: path("dir.db"), withIntermediateDirectories: false)
        let directory = try apply(path("dir.db"), keys: keys)
        XCTAssertEqual(directory.status, 66)
        XCTAssertTrue(directory.stdout.contains("is a directory"), directory.stdout)
    }

    func testZeroByteTruncatedAndRandomFiles() throws {
        let keys = try makeDatabase()
        XCTAssertEqual(try apply(path("app.db"), keys: keys).status, 0)
        let good = try Data(contentsOf: URL(fileURLWithPath: path("app.db")))

        _ = FileManager.default.createFile(atPath: path("empty.db"), contents: Data())
        let empty = try apply(path("empty.db"), keys: keys)
        XCTAssertEqual(empty.status, 65, empty.stdout)
        XCTAssertTrue(empty.stdout.contains("is empty (0 bytes)"), empty.stdout)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path("empty.db"))).count, 0)

        for (name, bytes) in [("truncated.db", good.prefix(good.count / 2 + 7)), ("random.db", Data((0..<8192).map { _ in UInt8.random(in: 0...255) }))] {
            _ = FileManager.default.createFile(atPath: path(name), contents: bytes)
            let before = try sha256OfFile(path(name))
            let result = try tool(["inspect", path(name), "--key-file", keys, "--integrity"])
            XCTAssertEqual(result.status, 65, "\(name): \(result.stdout) \(result.stderr)")
            let applyResult = try apply(path(name), keys: keys)
            XCTAssertEqual(applyResult.status, 65, "\(name): \(applyResult.stdout)")
            XCTAssertEqual(try sha256OfFile(path(name)), before, name)
        }
    }

    func testPlaintextFileGivenAKey() throws {
        let keys = try makeKeyFile()
        XCTAssertEqual(try CommandLineClient.sqlite3(path("plain.db"), sql: "CREATE TABLE t (a);").status, 0)
        let before = try sha256OfFile(path("plain.db"))
        let result = try apply(path("plain.db"), keys: keys)
        XCTAssertEqual(result.status, 65)
        XCTAssertTrue(result.stdout.contains("file is not encrypted"), result.stdout)
        XCTAssertEqual(try sha256OfFile(path("plain.db")), before)
        // Without a key, inspect shows that it is plaintext.
        let inspect = try tool(["inspect", path("plain.db"), "--json"])
        XCTAssertEqual(inspect.status, 0, inspect.stderr)
        XCTAssertEqual((try json(inspect.stdout) as? [String: Any])?["encrypted"] as? Bool, false)
    }

    func testReadOnlyFileIsNotChanged() throws {
        let keys = try makeDatabase()
        try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: path("app.db"))
        let before = try sha256OfFile(path("app.db"))
        let result = try apply(path("app.db"), keys: keys)
        XCTAssertEqual(result.status, 74, result.stdout)
        XCTAssertTrue(result.stdout.contains("read-only"), result.stdout)
        XCTAssertEqual(try sha256OfFile(path("app.db")), before)
        XCTAssertEqual(try tool(["inspect", path("app.db"), "--key-file", keys]).status, 0, "reading still works")
    }

    func testMalformedMigrationsDirectory() throws {
        let keys = try makeDatabase()
        let folder = path("bad-migrations")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "SELECT 1;".write(toFile: folder + "/1_a.down.sql", atomically: true, encoding: .utf8)
        let result = try tool(["apply", path("app.db"), "--migrations", folder, "--key-file", keys])
        XCTAssertEqual(result.status, 78)
        XCTAssertTrue(result.stderr.contains("1_a.down.sql: down file without an up file"), result.stderr)
        XCTAssertEqual(try tool(["apply", path("app.db"), "--migrations", path("nowhere"), "--key-file", keys]).status, 78)
    }

    func testUnknownTarget() throws {
        let keys = try makeDatabase()
        let result = try tool(["apply", path("app.db"), "--migrations", migrations, "--key-file", keys, "--to", "Zalora-v9"])
        XCTAssertEqual(result.status, 64, result.stdout)
        XCTAssertTrue(result.stdout.contains("no migration named \"Zalora-v9\""), result.stdout)
    }
}
