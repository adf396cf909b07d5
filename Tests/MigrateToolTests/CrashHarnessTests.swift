import Foundation
import TestSupport
import XCTest

/// The crash harness: `migrate-tool` apply, rollback, rekey, encrypt,
/// upgrade and restore, killed with SIGKILL at random moments of their run.
/// After each kill an independent client checks that the file opens (for
/// rekey and upgrade: in exactly one of its two forms), passes the
/// integrity check, holds one whole state (the before or after of some
/// step, never between) with every row, and that no file in the folder
/// holds plaintext; then the same command, run again, finishes the job
/// without manual steps and without waiting for a stuck lock.
///
/// What matters is where the kills land, not how big the file is: the
/// files are small (`SECURESTORE_CRASH_ROWS` rows of about 1 KB, 1,000 by
/// default: 1.2 MB) and the kills many (`SECURESTORE_CRASH_KILLS` per
/// operation, 20 by default), each at a uniformly random moment within an
/// uninterrupted run's duration after the tool opened the file (its start,
/// a fixed cost of each run, is not what is tested). RELIABILITY.md gives the command of the long run on
/// 57 MB files. The keys are raw: no run pays for a key derivation.
final class CrashHarnessTests: MigrateToolTestCase {
    private static let kills = Int(ProcessInfo.processInfo.environment["SECURESTORE_CRASH_KILLS"] ?? "") ?? 20
    private static let rows = Int(ProcessInfo.processInfo.environment["SECURESTORE_CRASH_ROWS"] ?? "") ?? 1_000
    private static let canary = "PLAINTEXT-CANARY"
    private let oldKey = "x'\(String(repeating: "1f", count: 32))'"
    private let newKey = "x'\(String(repeating: "2e", count: 32))'"
    /// An older format than the line's: SQLCipher 1 (no HMAC) on 3.4.1,
    /// SQLCipher 3 on 4.x; with a raw key, the only difference from the
    /// current format is the format itself.
    private let legacySettings = CommandLineClient.sqlcipherMajorVersion >= 4
        ? " PRAGMA cipher_compatibility = 3;" : " PRAGMA cipher_use_hmac = OFF;"

    private var tool: URL { Self.productsDirectory.appendingPathComponent("migrate-tool") }
    private var environment: [String: String] { ["OLD_KEY": oldKey, "NEW_KEY": newKey] }
    private var trialFile: String { path("trial.db") }

    // MARK: Seeds

    private func seed(_ name: String, opener: CrashHarness.Opener) throws -> String {
        let file = path("seed-" + name)
        let made = try CommandLineClient.run(opener.client, ["-batch", file], stdin: """
            \(opener.preamble)
            CREATE TABLE item (id INTEGER PRIMARY KEY, payload TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(Self.rows))
            INSERT INTO item SELECT i, '\(Self.canary)-' || hex(randomblob(480)) FROM n;

            """)
        XCTAssertEqual(made.status, 0, made.stderr)
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
        XCTAssertGreaterThanOrEqual(size, Self.rows * 1_000, "the harness runs on files of about 1 KB a row")
        return file
    }

    /// Three migrations that each rewrite much of the file.
    private func writeMigrations() throws -> String {
        let folder = directory.appendingPathComponent("migrations")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let files = [
            "0001_checksum.up.sql": "ALTER TABLE item ADD COLUMN checksum INTEGER;\nUPDATE item SET checksum = length(payload) + id;\n",
            "0001_checksum.down.sql": """
                CREATE TABLE item_old (id INTEGER PRIMARY KEY, payload TEXT);
                INSERT INTO item_old SELECT id, payload FROM item;
                DROP TABLE item;
                ALTER TABLE item_old RENAME TO item;

                """,
            "0002_index.up.sql": "CREATE INDEX item_checksum ON item(checksum);\n",
            "0002_index.down.sql": "DROP INDEX item_checksum;\n",
            "0003_archive.up.sql": "CREATE TABLE archive AS SELECT id, payload FROM item WHERE id % 2 = 0;\n",
            "0003_archive.down.sql": "DROP TABLE archive;\n",
        ]
        for (name, sql) in files { try sql.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        return folder.path
    }

    // MARK: The loop

    /// Runs `kills` trials: copy the seed, start the command, kill it at a
    /// random moment within an uninterrupted run's duration, `check`, run
    /// the command again, `checkRecovered`. Returns the outcomes counted.
    private func trials(
        _ name: String, seed: String, arguments: [String],
        check: (_ trial: Int) throws -> String,
        checkRecovered: (_ trial: Int) throws -> Void
    ) throws -> [String: Int] {
        try FileManager.default.copyItem(atPath: seed, toPath: trialFile)
        let (duration, first) = try CrashHarness.timedRun(tool, arguments, environment: environment, opening: trialFile)
        XCTAssertEqual(first, 0, "an uninterrupted \(name)")
        var outcomes: [String: Int] = [:]
        var landed = 0
        for trial in 0..<Self.kills {
            try clearTrialFiles()
            try FileManager.default.copyItem(atPath: seed, toPath: trialFile)
            if try CrashHarness.runAndKill(tool, arguments, environment: environment,
                                          after: Double.random(in: 0...duration), opening: trialFile) {
                landed += 1
            }
            outcomes[try check(trial), default: 0] += 1
            // The next run recovers; a lock held by the dead process would
            // make it exit 75 after a second.
            let again = try CommandLineClient.run(tool.path, arguments + ["--lock-timeout", "1"], environment: environment)
            XCTAssertEqual(again.status, 0, "\(name) trial \(trial): the next run did not recover: \(again.stderr)")
            try checkRecovered(trial)
        }
        try clearTrialFiles()
        let summary = "\(name): \(Self.kills) kills (\(landed) while running, uncaught by the tool), outcomes \(outcomes.sorted { $0.key < $1.key })"
        print(summary)
        try? (summary + "\n").appendLine(to: ProcessInfo.processInfo.environment["SECURESTORE_CRASH_REPORT"])
        return outcomes
    }

    private func clearTrialFiles() throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name.hasPrefix("trial.db") || name.hasPrefix(".trial.db") {
            try FileManager.default.removeItem(atPath: path(name))
        }
    }

    /// No file of the trial (database, journal, backups, temporary files)
    /// holds the plaintext canary, except `allowed`.
    private func assertNoPlaintext(except allowed: Set<String> = [], _ trial: Int, _ name: String) throws {
        let trialFiles = try CrashHarness.files(in: directory, containing: Self.canary)
            .filter { $0.hasPrefix("trial.db") || $0.hasPrefix(".trial.db") }
        XCTAssertEqual(Set(trialFiles).subtracting(allowed), [], "\(name) trial \(trial): plaintext left in these files")
    }

    // MARK: Operations

    func testApplyKilledAtRandom() throws {
        let migrations = try writeMigrations()
        let seed = try seed("apply.db", opener: .key(oldKey, label: "key"))
        let states = try killSteps("apply", seed: seed, migrations: migrations,
                                   step: { ["apply", $0, "--to", $1] }, targets: ["checksum", "index", "archive"],
                                   command: ["apply"])
        XCTAssertEqual(states[3].history, ["checksum", "index", "archive"])
        XCTAssertEqual(states[3].rowCounts, ["item": Self.rows, "archive": Self.rows / 2])
    }

    func testRollbackKilledAtRandom() throws {
        let migrations = try writeMigrations()
        let seed = try seed("rollback.db", opener: .key(oldKey, label: "key"))
        let applied = try tool(["apply", seed, "--migrations", migrations, "--key-env", "OLD_KEY", "--no-backup"], environment: environment)
        XCTAssertEqual(applied.status, 0, applied.stderr)
        let states = try killSteps("rollback", seed: seed, migrations: migrations,
                                   step: { file, _ in ["rollback", file, "--steps", "1"] }, targets: ["archive", "index", "checksum"],
                                   command: ["rollback", "--all"])
        XCTAssertEqual(states[3].history, [])
        XCTAssertEqual(states[3].itemColumns, ["id", "payload"])
    }

    /// Kills a migration command (`apply`, `rollback`) and checks that each
    /// kill leaves one of the states that uninterrupted single steps go
    /// through (`step(file, target)` for each of `targets`), and that the
    /// retry ends in the last one. Returns those states.
    private func killSteps(
        _ name: String, seed: String, migrations: String,
        step: (_ file: String, _ target: String) -> [String], targets: [String], command: [String]
    ) throws -> [DatabaseState] {
        let opener = CrashHarness.Opener.key(oldKey, label: "key")
        let options = ["--migrations", migrations, "--key-env", "OLD_KEY"]
        var states = [try XCTUnwrap(CrashHarness.state(of: seed, with: opener))]
        try FileManager.default.copyItem(atPath: seed, toPath: path("steps.db"))
        for target in targets {
            let done = try tool(step(path("steps.db"), target) + options + ["--no-backup"], environment: environment)
            XCTAssertEqual(done.status, 0, done.stderr)
            states.append(try XCTUnwrap(CrashHarness.state(of: path("steps.db"), with: opener)))
        }
        var arguments = command
        arguments.insert(trialFile, at: 1)
        let outcomes = try trials(name, seed: seed, arguments: arguments + options) { trial in
            let state = try XCTUnwrap(CrashHarness.state(of: trialFile, with: opener), "\(name) trial \(trial): the key no longer opens the file")
            let index = states.firstIndex(of: state)
            XCTAssertNotNil(index, "\(name) trial \(trial): a state between steps: \(state)")
            try assertNoPlaintext(trial, name)
            return "after \(index ?? -1) of \(targets.count) steps"
        } checkRecovered: { trial in
            XCTAssertEqual(try CrashHarness.state(of: trialFile, with: opener), states.last, "\(name) trial \(trial)")
        }
        XCTAssertEqual(outcomes.values.reduce(0, +), Self.kills)
        return states
    }

    func testRekeyKilledAtRandom() throws {
        let seed = try seed("rekey.db", opener: .key(oldKey, label: "old key"))
        let old = CrashHarness.Opener.key(oldKey, label: "old key"), new = CrashHarness.Opener.key(newKey, label: "new key")
        let expected = try XCTUnwrap(CrashHarness.state(of: seed, with: old))
        let outcomes = try trials("rekey", seed: seed, arguments: ["rekey", trialFile, "--key-env", "OLD_KEY", "--new-key-env", "NEW_KEY"]) { trial in
            let withOld = try CrashHarness.state(of: trialFile, with: old)
            let withNew = try CrashHarness.state(of: trialFile, with: new)
            XCTAssertTrue((withOld == nil) != (withNew == nil), "rekey trial \(trial): exactly one key must open the file")
            XCTAssertEqual(withOld ?? withNew, expected, "rekey trial \(trial)")
            try assertNoPlaintext(trial, "rekey")
            return withOld != nil ? "old key opens" : "new key opens"
        } checkRecovered: { trial in
            XCTAssertNil(try CrashHarness.state(of: trialFile, with: old), "rekey trial \(trial)")
            XCTAssertEqual(try CrashHarness.state(of: trialFile, with: new), expected, "rekey trial \(trial)")
        }
        XCTAssertEqual(outcomes.values.reduce(0, +), Self.kills)
    }

    /// `restore` of a migrated backup over the unmigrated file: each kill
    /// leaves the old database or the restored one, never a mix.
    func testRestoreKilledAtRandom() throws {
        let seed = try seed("restore.db", opener: .key(oldKey, label: "key"))
        let opener = CrashHarness.Opener.key(oldKey, label: "key")
        let backup = path("restore-source.backup")
        try FileManager.default.copyItem(atPath: seed, toPath: backup)
        let applied = try tool(["apply", backup, "--migrations", try writeMigrations(), "--key-env", "OLD_KEY", "--no-backup"], environment: environment)
        XCTAssertEqual(applied.status, 0, applied.stderr)
        let old = try XCTUnwrap(CrashHarness.state(of: seed, with: opener))
        let restored = try XCTUnwrap(CrashHarness.state(of: backup, with: opener))
        let arguments = ["restore", trialFile, "--from", backup, "--key-env", "OLD_KEY", "--backup-dir", path("restore-kept"), "--keep-backups", "1"]
        let outcomes = try trials("restore", seed: seed, arguments: arguments) { trial in
            let state = try XCTUnwrap(CrashHarness.state(of: trialFile, with: opener), "restore trial \(trial): the key no longer opens the file")
            XCTAssertTrue(state == old || state == restored, "restore trial \(trial): neither the old nor the restored database: \(state)")
            try assertNoPlaintext(trial, "restore")
            return state == old ? "old database" : "restored database"
        } checkRecovered: { trial in
            XCTAssertEqual(try CrashHarness.state(of: trialFile, with: opener), restored, "restore trial \(trial)")
        }
        XCTAssertEqual(outcomes.values.reduce(0, +), Self.kills)
        XCTAssertEqual(try names(in: path("restore-kept")).filter { $0.hasSuffix(".backup") }.count, 1, "--keep-backups 1")
    }

    func testEncryptKilledAtRandom() throws {
        let seed = try seed("encrypt.db", opener: .plaintext)
        let key = CrashHarness.Opener.key(oldKey, label: "key")
        let expected = try XCTUnwrap(CrashHarness.state(of: seed, with: .plaintext))
        let outcomes = try trials("encrypt", seed: seed, arguments: ["encrypt", trialFile, "--key-env", "OLD_KEY"]) { trial in
            let plaintext = try CrashHarness.state(of: trialFile, with: .plaintext)
            let encrypted = try CrashHarness.state(of: trialFile, with: key)
            XCTAssertTrue((plaintext == nil) != (encrypted == nil), "encrypt trial \(trial): the file must be plaintext or encrypted")
            XCTAssertEqual(plaintext ?? encrypted, expected, "encrypt trial \(trial)")
            // Only the original may still be plaintext: never a temporary file.
            try assertNoPlaintext(except: plaintext != nil ? ["trial.db"] : [], trial, "encrypt")
            return plaintext != nil ? "still plaintext" : "encrypted"
        } checkRecovered: { trial in
            XCTAssertNil(try CrashHarness.state(of: trialFile, with: .plaintext), "encrypt trial \(trial)")
            XCTAssertEqual(try CrashHarness.state(of: trialFile, with: key), expected, "encrypt trial \(trial)")
            try assertNoPlaintext(trial, "encrypt, recovered")
        }
        XCTAssertEqual(outcomes.values.reduce(0, +), Self.kills)
    }

    func testUpgradeKilledAtRandom() throws {
        let legacy = CrashHarness.Opener.key(oldKey, settings: legacySettings, label: "an older format")
        let current = CrashHarness.Opener.key(oldKey, label: "the current format")
        let seed = try seed("upgrade.db", opener: legacy)
        let expected = try XCTUnwrap(CrashHarness.state(of: seed, with: legacy))
        let outcomes = try trials("upgrade", seed: seed, arguments: ["upgrade", trialFile, "--key-env", "OLD_KEY"]) { trial in
            let old = try CrashHarness.state(of: trialFile, with: legacy)
            let upgraded = try CrashHarness.state(of: trialFile, with: current)
            XCTAssertTrue((old == nil) != (upgraded == nil), "upgrade trial \(trial): the file must be in exactly one format")
            XCTAssertEqual(old ?? upgraded, expected, "upgrade trial \(trial)")
            try assertNoPlaintext(trial, "upgrade")
            return old != nil ? "old format" : "upgraded"
        } checkRecovered: { trial in
            XCTAssertEqual(try CrashHarness.state(of: trialFile, with: current), expected, "upgrade trial \(trial)")
        }
        XCTAssertEqual(outcomes.values.reduce(0, +), Self.kills)
    }
}

private extension String {
    /// Appends to a report file when one is named (the long documented run).
    func appendLine(to path: String?) throws {
        guard let path else { return }
        if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(utf8))
    }
}
