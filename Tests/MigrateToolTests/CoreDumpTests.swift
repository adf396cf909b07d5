import Foundation
import TestSupport
import XCTest

/// A core dump that root takes (`gcore`) of a running `rekey`, half-way
/// through its export, holds no copy of either passphrase: the tool and
/// SecureStore keep keys in `SecretBytes` (left out of core dumps), and
/// SQLCipher keeps none of its own once it has derived the key, as a C
/// program doing the same keying and export shows (SQLCipher holds copies
/// only between `sqlite3_key` and its first read).
final class CoreDumpTests: MigrateToolTestCase {
    private let key = "core dump passphrase 5e2a", next = "core dump new passphrase 9b47"

    /// How many times each text is in a core of the process, taken now.
    private func occurrences(of texts: [String], inCoreOf pid: Int32, named name: String) throws -> [Int] {
        let dumped = try CommandLineClient.run("/usr/bin/gcore", ["-o", path(name), "\(pid)"], timeout: 120)
        XCTAssertEqual(dumped.status, 0, dumped.stderr)
        let file = path("\(name).\(pid)")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let core = try Data(contentsOf: URL(fileURLWithPath: file), options: .alwaysMapped)
        XCTAssertGreaterThan(core.count, 100_000, "not a core")
        return texts.map { text in
            let needle = Data(text.utf8)
            var count = 0
            var start = core.startIndex
            while let found = core.range(of: needle, in: start..<core.endIndex) {
                count += 1
                start = found.upperBound
            }
            return count
        }
    }

    /// The copies of the two passphrases in cores of a C program that keys
    /// and exports as `rekey` does (Tests/Fixtures/core-baseline.c): once
    /// keyed, before SQLCipher's first read derives the key, and after the
    /// export.
    private func sqlcipherBaseline() throws -> (keyed: [Int], exported: [Int]) {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/core-baseline.c").path
        let flags = try CommandLineClient.run("/usr/bin/pkg-config", ["--cflags", "--libs", "sqlcipher"])
        let libdir = try CommandLineClient.run("/usr/bin/pkg-config", ["--variable=libdir", "sqlcipher"])
        XCTAssertEqual(flags.status, 0, flags.stderr)
        let compiled = try CommandLineClient.run("/usr/bin/cc", ["-DSQLITE_HAS_CODEC", source, "-o", path("core-baseline"),
                                                                 "-Wl,-rpath," + libdir.stdout.trimmingCharacters(in: .whitespacesAndNewlines)]
                                                 + flags.stdout.split(whereSeparator: \.isWhitespace).map(String.init))
        XCTAssertEqual(compiled.status, 0, compiled.stderr)
        let made = try CommandLineClient.sqlcipher(path("baseline.db"), preamble: "PRAGMA key = '\(key)';",
                                                   sql: "CREATE TABLE t (a); INSERT INTO t VALUES (randomblob(1000));")
        XCTAssertEqual(made.status, 0, made.stderr)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path("core-baseline"))
        process.arguments = [path("baseline.db"), path("baseline-copy.db")]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        input.fileHandleForWriting.write(Data("\(key)\n\(next)\n".utf8))
        XCTAssertEqual(String(decoding: output.fileHandleForReading.availableData, as: UTF8.self), "keyed\n")
        let keyed = try occurrences(of: [key, next], inCoreOf: process.processIdentifier, named: "baseline-core")
        input.fileHandleForWriting.write(Data("g".utf8))
        XCTAssertEqual(String(decoding: output.fileHandleForReading.availableData, as: UTF8.self), "ready\n")
        let exported = try occurrences(of: [key, next], inCoreOf: process.processIdentifier, named: "baseline-core")
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        return (keyed, exported)
    }

    func testACoreOfARunningRekeyHoldsNoPassphrase() throws {
        guard getuid() == 0 else { throw XCTSkip("gcore of a non-dumpable process needs root") }
        // The method finds a passphrase that a process does hold (here, in
        // its environment).
        let control = Process()
        control.executableURL = URL(fileURLWithPath: "/bin/sleep")
        control.arguments = ["60"]
        control.environment = ["HELD": key]
        try control.run()
        defer { kill(control.processIdentifier, SIGKILL); control.waitUntilExit() }
        XCTAssertGreaterThanOrEqual(try occurrences(of: [key], inCoreOf: control.processIdentifier, named: "control-core")[0], 1)

        let baseline = try sqlcipherBaseline()
        print("""
            SQLCipher's own copies of the passphrase: \(baseline.keyed[0]) once keyed (before its first read derives \
            the key), \(baseline.exported[0]) after the export; of the new passphrase after the export: \(baseline.exported[1])
            """)

        // About 32 MB: the export lasts long enough to be caught half-way,
        // when every connection has derived its key.
        // The suite's iteration count (the baseline's): at 1,300,000 a core
        // may catch SQLCipher's copy while it still derives the key.
        let created = try tool(["create", path("big.db"), "--key-env", "K"] + Self.suiteKDFArguments, environment: ["K": key])
        XCTAssertEqual(created.status, 0, created.stderr)
        let filled = try CommandLineClient.sqlcipher(path("big.db"), preamble: "PRAGMA key = '\(key)';", sql: """
            CREATE TABLE t (a);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 32000)
            INSERT INTO t SELECT randomblob(1000) FROM n;
            """)
        XCTAssertEqual(filled.status, 0, filled.stderr)
        let rekey = Process()
        rekey.executableURL = Self.productsDirectory.appendingPathComponent("migrate-tool")
        rekey.arguments = ["rekey", path("big.db"), "--key-env", "K", "--new-key-env", "N"] + Self.suiteKDFArguments + Self.suiteNewKDFArguments
        rekey.environment = ProcessInfo.processInfo.environment.merging(["K": key, "N": next]) { $1 }
        rekey.standardOutput = FileHandle.nullDevice
        rekey.standardError = FileHandle.nullDevice
        try rekey.run()
        defer { if rekey.isRunning { kill(rekey.processIdentifier, SIGKILL) } }
        // The export's copy is half written: both keys are in use, each
        // connection has derived its key. The process is stopped there
        // while the core is taken.
        let half = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path("big.db"))[.size] as? Int) / 2
        var exporting = false
        for _ in 0..<30000 where rekey.isRunning {
            let copy = try names(in: directory.path).first { $0.hasPrefix(".big.db") }
            if let copy, let size = try? FileManager.default.attributesOfItem(atPath: path(copy))[.size] as? Int, size >= half {
                kill(rekey.processIdentifier, SIGSTOP)
                exporting = true
                break
            }
            Thread.sleep(forTimeInterval: 0.001)
        }
        XCTAssertTrue(exporting, "the export was not caught")
        let copies = try occurrences(of: [key, next], inCoreOf: rekey.processIdentifier, named: "rekey-core")
        kill(rekey.processIdentifier, SIGCONT)
        print("copies in the core of migrate-tool rekey during its export: \(copies[0]) of the passphrase, \(copies[1]) of the new one")
        XCTAssertLessThanOrEqual(copies[0], baseline.exported[0], "a copy of the passphrase that SQLCipher does not keep")
        XCTAssertLessThanOrEqual(copies[1], baseline.exported[1], "a copy of the new passphrase that SQLCipher does not keep")
        rekey.waitUntilExit()
        XCTAssertEqual(rekey.terminationStatus, 0)
    }
}
