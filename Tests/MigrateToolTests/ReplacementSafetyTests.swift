import Foundation
import SecureStore
import TestSupport
import XCTest

/// The commands that replace a database file, as deploy layouts and running
/// services meet them: paths that are symbolic links (to another file
/// system too), files with other hard links, clients that open the file
/// for each write, `--wait-for-close`, and the backups of a rotated key.
final class ReplacementSafetyTests: MigrateToolTestCase {
    private let oldKey = String(repeating: "ab", count: 32)
    private let newKey = String(repeating: "cd", count: 32)

    private var keys: String { path("keys") }
    private var old: [String] { ["--key-file", keys, "--key-name", "old"] }
    private var rotation: [String] { old + ["--new-key-file", keys, "--new-key-name", "new"] }

    override func setUpWithError() throws {
        try super.setUpWithError()
        try "[old]\nraw = \(oldKey)\n[new]\nraw = \(newKey)\n".write(toFile: keys, atomically: true, encoding: .utf8)
        chmod(keys, 0o600)
    }

    /// `PRAGMA key = "x'...'"` for the shell; the pragma SQLCipher 4's
    /// Python client would need is ignored by the 3.4.1 shell.
    private func pragma(_ key: String) -> String { "PRAGMA key = \"x'\(key)'\";" }

    /// A database of `rows` rows in `live`, made by the shell with `key` (nil:
    /// plaintext).
    @discardableResult
    private func makeFile(_ file: String, key: String?, rows: Int = 10) throws -> String {
        let made = try CommandLineClient.sqlcipher(file, preamble: key.map(pragma) ?? "", sql: """
            CREATE TABLE live (id INTEGER PRIMARY KEY, note TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
            INSERT INTO live (id, note) SELECT i, 'canary-note' FROM n;
            """)
        XCTAssertEqual(made.status, 0, made.stderr)
        return file
    }

    /// The row count of `live` read by the shell with `key`; nil when the key
    /// does not open the file.
    private func count(_ file: String, key: String?) throws -> Int? {
        let result = try CommandLineClient.sqlcipher(file, preamble: key.map(pragma) ?? "", sql: "SELECT count(*) FROM live;")
        return result.status == 0 ? Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) : nil
    }

    // MARK: Symbolic links

    func testEncryptThroughASymbolicLinkEncryptsTheFileItNames() throws {
        try FileManager.default.createDirectory(atPath: path("real"), withIntermediateDirectories: false)
        try makeFile(path("real/app.db"), key: nil)
        try FileManager.default.createSymbolicLink(atPath: path("app.db"), withDestinationPath: "real/app.db")

        let encrypted = try tool(["encrypt", path("app.db")] + old)
        XCTAssertEqual(encrypted.status, 0, encrypted.stderr)
        XCTAssertTrue(encrypted.stdout.contains("(the file \(path("real/app.db")))"), encrypted.stdout)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: path("app.db")), "real/app.db", "still a link")
        XCTAssertEqual(try count(path("real/app.db"), key: oldKey), 10)
        XCTAssertNil(try count(path("real/app.db"), key: nil), "no plaintext left at the target")
        XCTAssertEqual(try CrashHarness.files(in: directory.appendingPathComponent("real"), containing: "canary-note"), [],
                       "no plaintext copy anywhere")
        XCTAssertEqual(try names(in: path("real")), ["app.db"])
    }

    func testRekeyAndRestoreThroughASymbolicLinkReplaceTheFileItNames() throws {
        try FileManager.default.createDirectory(atPath: path("real"), withIntermediateDirectories: false)
        try makeFile(path("real/app.db"), key: oldKey)
        try FileManager.default.createSymbolicLink(atPath: path("app.db"), withDestinationPath: path("real/app.db"))
        let backup = try tool(["backup", path("app.db"), "--output", path("kept.db")] + old)
        XCTAssertEqual(backup.status, 0, backup.stderr)

        let rekeyed = try tool(["rekey", path("app.db")] + rotation)
        XCTAssertEqual(rekeyed.status, 0, rekeyed.stderr)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: path("app.db")), path("real/app.db"))
        XCTAssertEqual(try count(path("real/app.db"), key: newKey), 10)
        XCTAssertNil(try count(path("real/app.db"), key: oldKey), "the old key opens nothing")

        let restored = try tool(["restore", path("app.db"), "--from", path("kept.db"), "--no-backup"] + old)
        XCTAssertEqual(restored.status, 0, restored.stderr)
        XCTAssertTrue(restored.stdout.contains("(the file \(path("real/app.db")))"), restored.stdout)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: path("app.db")), path("real/app.db"))
        XCTAssertEqual(try count(path("real/app.db"), key: oldKey), 10, "the restored file is the target")
        XCTAssertEqual(try names(in: path("real")), ["app.db"])
    }

    /// The temporary file sits beside the target, on its file system: the
    /// final rename cannot cross file systems.
    func testALinkToAnotherFileSystemReplacesTheTargetThere() throws {
        let elsewhere = "/dev/shm/securestore-\(UUID().uuidString)"
        guard FileManager.default.fileExists(atPath: "/dev/shm") else { throw XCTSkip("no /dev/shm") }
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: elsewhere) }
        var here = stat(), there = stat()
        XCTAssertEqual(stat(directory.path, &here), 0)
        XCTAssertEqual(stat(elsewhere, &there), 0)
        XCTAssertNotEqual(here.st_dev, there.st_dev, "/dev/shm is another file system")
        try makeFile(elsewhere + "/app.db", key: oldKey)
        try FileManager.default.createSymbolicLink(atPath: path("app.db"), withDestinationPath: elsewhere + "/app.db")

        let rekeyed = try tool(["rekey", path("app.db")] + rotation)
        XCTAssertEqual(rekeyed.status, 0, rekeyed.stderr)
        XCTAssertEqual(try count(elsewhere + "/app.db", key: newKey), 10)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere), ["app.db"])
        XCTAssertEqual(try names(in: directory.path), ["app.db", "keys"])
    }

    // MARK: Hard links

    func testAFileWithOtherHardLinksIsRefusedByEveryReplacingCommand() throws {
        try makeFile(path("app.db"), key: oldKey)
        try makeFile(path("plain.db"), key: nil)
        XCTAssertEqual(link(path("app.db"), path("app-alias.db")), 0)
        XCTAssertEqual(link(path("plain.db"), path("plain-alias.db")), 0)
        let backup = try tool(["backup", path("app.db"), "--output", path("kept.db")] + old)
        XCTAssertEqual(backup.status, 0, backup.stderr)
        for arguments in [["rekey", path("app.db")] + rotation,
                          ["restore", path("app.db"), "--from", path("kept.db")] + old,
                          ["upgrade", path("app.db")] + old,
                          ["encrypt", path("plain.db")] + old] {
            let result = try tool(arguments)
            // upgrade finds nothing to do on a file in the current format.
            guard arguments[0] != "upgrade" || result.status != 0 else { continue }
            XCTAssertEqual(result.status, 10, "\(arguments[0]): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("2 hard links"), result.stderr)
        }
        XCTAssertEqual(try count(path("app-alias.db"), key: oldKey), 10, "nothing changed")
        XCTAssertEqual(try count(path("plain-alias.db"), key: nil), 10)
    }

    // MARK: Clients

    /// A client that opens the file for each insert (a cron job, a shell
    /// loop) while a rekey runs: the rekey exits 0 or 75, never 65, and
    /// every insert the client was told succeeded is in the file.
    func testAWriterThatOpensTheFileForEachInsert() throws {
        // Large enough for inserts to land while the file is copied.
        let file = try makeFile(path("app.db"), key: oldKey, rows: 200_000)
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/bash")
        writer.arguments = ["-c", """
            i=10000000
            while read -t 0.005 _ || [ $? -gt 128 ]; do
                printf '%s\\nINSERT INTO live (id, note) VALUES (%d, \\047w\\047);\\nSELECT \\047ack \\047 || id FROM live WHERE id = %d AND note = \\047w\\047;\\n' \
                    "$PRAGMA" $i $i | "$SQLCIPHER" -batch "$FILE" 2>/dev/null
                i=$((i + 1))
            done
            """]
        writer.environment = ProcessInfo.processInfo.environment.merging(
            ["PRAGMA": pragma(oldKey), "SQLCIPHER": CommandLineClient.sqlcipherPath, "FILE": file]) { $1 }
        let input = Pipe(), output = Pipe()
        writer.standardInput = input
        writer.standardOutput = output
        try writer.run()
        let acks = Locked<[Int]>([])
        let firstAck = DispatchSemaphore(value: 0)
        let reading = Background {
            var buffer = Data()
            while case let chunk = output.fileHandleForReading.availableData, !chunk.isEmpty {
                buffer.append(chunk)
                let lines = String(decoding: buffer, as: UTF8.self).split(separator: "\n")
                let ids = lines.compactMap { $0.hasPrefix("ack ") ? Int($0.dropFirst(4)) : nil }
                if acks.value.isEmpty && !ids.isEmpty { firstAck.signal() }
                acks.value = ids
            }
        }
        XCTAssertEqual(firstAck.wait(timeout: .now() + 30), .success, "the writer acknowledged an insert")

        let rekeyed = try tool(["rekey", file] + rotation)
        try input.fileHandleForWriting.close()
        writer.waitUntilExit()
        try reading.value()

        XCTAssertTrue([0, 75].contains(rekeyed.status), "exit \(rekeyed.status): \(rekeyed.stderr)")
        XCTAssertFalse(rekeyed.stderr.contains("damaged"), rekeyed.stderr)
        let opener = try count(file, key: newKey) != nil ? newKey : oldKey
        XCTAssertNotNil(try count(file, key: opener))
        XCTAssertTrue(try count(file, key: opener == newKey ? oldKey : newKey) == nil, "exactly one key opens it")
        let present = try CommandLineClient.sqlcipher(file, preamble: pragma(opener), sql: "SELECT id FROM live;")
        let ids = Set(present.stdout.split(separator: "\n").compactMap { Int($0) })
        XCTAssertFalse(acks.value.isEmpty)
        XCTAssertEqual(Set(acks.value).subtracting(ids), [], "every acknowledged insert is in the file")
    }

    /// `--wait-for-close`: the rekey waits while a client has the file
    /// open, and goes ahead once it closes it; without it, exit 75.
    func testWaitForCloseWaitsForTheClientToLeave() throws {
        let file = try makeFile(path("app.db"), key: oldKey)
        let client = try LiveClient.start(.shellWAL, .idle, path: file,
                                          keying: LiveClient.Keying(key: nil, pragmas: pragma(oldKey)), python: nil)
        let refused = try tool(["rekey", file] + rotation)
        XCTAssertEqual(refused.status, 75, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("pid \(client.processIdentifier ?? -1) (sqlcipher"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("--wait-for-close"), refused.stderr)

        let waiting = Process()
        waiting.executableURL = Self.productsDirectory.appendingPathComponent("migrate-tool")
        waiting.arguments = ["rekey", file, "--wait-for-close", "60"] + rotation
        let errors = Pipe()
        waiting.standardError = errors
        waiting.standardOutput = FileHandle.nullDevice
        try waiting.run()
        // It has the file open, and cannot finish while the client has it too.
        XCTAssertTrue(waitUntil(waiting, opens: file))
        XCTAssertTrue(waiting.isRunning, "waits for the client")
        XCTAssertEqual(try count(file, key: oldKey), 10)
        _ = try client.stop()
        let said = errors.fileHandleForReading.readDataToEndOfFile()
        waiting.waitUntilExit()
        XCTAssertEqual(waiting.terminationStatus, 0, String(decoding: said, as: UTF8.self))
        XCTAssertEqual(try count(file, key: newKey), 10)
    }

    // MARK: Backups of a rotated key

    func testARotationRekeysTheBackupsOrNamesThoseLeft() throws {
        try makeFile(path("app.db"), key: oldKey)
        let migrations = try migrationsDirectory("migrations", brand + [
            ("0002_Index.up.sql", "CREATE INDEX brand_name ON brand (name);"), ("0002_Index.down.sql", "DROP INDEX brand_name;"),
        ])
        for step in ["Brand", "Index"] {
            let applied = try tool(["apply", path("app.db"), "--migrations", migrations, "--to", step] + old)
            XCTAssertEqual(applied.status, 0, applied.stderr)
        }
        let backups = try names(in: directory.path).filter { $0.hasSuffix(".backup") }
        XCTAssertEqual(backups.count, 2, "\(backups)")

        // Kept: each one named, and how to finish.
        let kept = try tool(["rekey", path("app.db"), "--keep-old-backups"] + rotation)
        XCTAssertEqual(kept.status, 0, kept.stderr)
        for backup in backups {
            XCTAssertTrue(kept.stdout.contains("still opens with the OLD key: \(path(backup))"), kept.stdout)
            XCTAssertNotNil(try count(path(backup), key: oldKey))
        }
        XCTAssertTrue(kept.stdout.contains("to finish the rotation"), kept.stdout)
        let listed = try tool(["backups", path("app.db"), "--key-file", keys, "--key-name", "new"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertEqual(listed.stdout.components(separatedBy: "key [old], NOT the key given").count - 1, 2, listed.stdout)

        // The same command again finishes the rotation: the database is
        // done already, the backups are re-keyed.
        let finished = try tool(["rekey", path("app.db"), "--json"] + rotation)
        XCTAssertEqual(finished.status, 0, finished.stderr)
        let report = try XCTUnwrap(try json(finished.stdout) as? [String: Any])
        XCTAssertEqual((report["note"] as? String)?.hasPrefix("already re-keyed"), true, "\(report)")
        let statuses = (report["backups"] as? [[String: Any]])?.compactMap { $0["status"] as? String }
        XCTAssertEqual(statuses, ["rekeyed", "rekeyed"])
        for backup in backups {
            XCTAssertNil(try count(path(backup), key: oldKey), "\(backup): the old key opens nothing")
            XCTAssertNotNil(try count(path(backup), key: newKey))
        }
        let relisted = try tool(["backups", path("app.db"), "--key-file", keys, "--key-name", "new"])
        XCTAssertEqual(relisted.stdout.components(separatedBy: "opens with key file \(keys), key [new]").count - 1, 2, relisted.stdout)
        XCTAssertFalse(relisted.stdout.contains("NOT the key given"), relisted.stdout)

        // A restore with the current key can use them.
        let restored = try tool(["restore", path("app.db"), "--latest", "--key-file", keys, "--key-name", "new"])
        XCTAssertEqual(restored.status, 0, restored.stderr)
    }

    /// A rotation killed once the database was replaced: the database is
    /// on the new key, the backups not yet. Running it again finishes.
    func testAKilledRotationFinishesWhenRunAgain() throws {
        try makeFile(path("app.db"), key: oldKey, rows: 2000)
        let applied = try tool(["apply", path("app.db"), "--migrations", try migrationsDirectory("migrations", brand)] + old)
        XCTAssertEqual(applied.status, 0, applied.stderr)
        let backup = try XCTUnwrap(try names(in: directory.path).first { $0.hasSuffix(".backup") })
        _ = try CrashHarness.runAndKill(Self.productsDirectory.appendingPathComponent("migrate-tool"), ["rekey", path("app.db")] + rotation,
                                        environment: [:], afterReplacingOneOf: [path("app.db")])
        XCTAssertNotNil(try count(path("app.db"), key: newKey))
        let again = try tool(["rekey", path("app.db")] + rotation)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertNil(try count(path(backup), key: oldKey))
        XCTAssertEqual(try count(path(backup), key: newKey), 2000)
        XCTAssertEqual(try names(in: directory.path).filter { $0.contains("securestore-tmp") }, [], "no temporary file left")
    }
}
