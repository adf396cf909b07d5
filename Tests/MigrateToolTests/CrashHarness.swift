import Foundation
import TestSupport
import XCTest

/// What an independent client (the `sqlcipher` or `sqlite3` CLI) sees in a
/// crash-test database: enough to tell one whole migration state from
/// another, and from anything in between.
struct DatabaseState: Equatable, CustomStringConvertible {
    /// `type|name` of every schema object but SQLite's own.
    var objects: [String]
    /// The columns of `item`, in order.
    var itemColumns: [String]
    /// Row counts of `item` and, when it exists, `archive`.
    var rowCounts: [String: Int]
    /// Applied migrations, in order (empty without a history table).
    var history: [String]

    var description: String {
        "objects \(objects), item columns \(itemColumns), rows \(rowCounts.sorted { $0.key < $1.key }), history \(history)"
    }
}

/// Reading states and running the tool for the crash harness.
enum CrashHarness {
    /// How a client opens a file: the CLI, and the PRAGMAs before any read.
    struct Opener {
        var label: String
        var client: String
        var preamble: String

        /// A passphrase, or a raw key written `x'<64 hex digits>'`.
        static func key(_ key: String, settings: String = "", label: String) -> Opener {
            let literal = key.hasPrefix("x'") ? "\"\(key)\"" : "'\(key)'"
            return Opener(label: label, client: CommandLineClient.sqlcipherPath, preamble: "PRAGMA key = \(literal);\(settings)")
        }

        static let plaintext = Opener(label: "plaintext", client: "/usr/bin/sqlite3", preamble: "")
    }

    /// The state of a file, or nil when this opener cannot read it. A file
    /// that opens but fails the integrity check is a test failure.
    static func state(of path: String, with opener: Opener,
                      file: StaticString = #filePath, line: UInt = #line) throws -> DatabaseState? {
        let first = try CommandLineClient.run(opener.client, ["-batch", path], stdin: """
            \(CommandLineClient.quietly(opener.preamble))PRAGMA integrity_check;
            SELECT 'object|' || type || '|' || name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name;
            PRAGMA table_info(item);
            SELECT 'rows|item|' || count(*) FROM item;

            """)
        guard first.status == 0 else { return nil }
        let lines = first.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "ok", "\(path) opened with \(opener.label) fails the integrity check", file: file, line: line)
        var state = DatabaseState(objects: [], itemColumns: [], rowCounts: [:], history: [])
        for line in lines.dropFirst() {
            let fields = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            if fields.first == "object" {
                state.objects.append(fields.dropFirst().joined(separator: "|"))
            } else if fields.first == "rows" {
                state.rowCounts[fields[1]] = Int(fields[2])
            } else if fields.count >= 2, Int(fields[0]) != nil {
                state.itemColumns.append(fields[1])
            }
        }
        var more = ""
        if state.objects.contains("table|archive") { more += "SELECT 'rows|archive|' || count(*) FROM archive;\n" }
        if state.objects.contains("table|securestore_migrations") {
            more += "SELECT 'history|' || identifier FROM securestore_migrations ORDER BY applied_order;\n"
        }
        if !more.isEmpty {
            let second = try CommandLineClient.run(opener.client, ["-batch", path], stdin: CommandLineClient.quietly(opener.preamble) + more)
            XCTAssertEqual(second.status, 0, second.stderr, file: file, line: line)
            for line in second.stdout.split(separator: "\n") {
                let fields = line.split(separator: "|").map(String.init)
                if fields.first == "rows", fields.count == 3 { state.rowCounts[fields[1]] = Int(fields[2]) }
                if fields.first == "history", fields.count == 2 { state.history.append(fields[1]) }
            }
        }
        return state
    }

    /// The names of files in `directory` whose bytes contain `canary`.
    static func files(in directory: URL, containing canary: String) throws -> [String] {
        let needle = Data(canary.utf8)
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted().filter { name in
            var isDirectory: ObjCBool = false
            let url = directory.appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else { return false }
            let data = try Data(contentsOf: url, options: .alwaysMapped)
            return data.range(of: needle) != nil
        }
    }

    /// Starts the tool and kills it with SIGKILL `delay` seconds after it
    /// started, or, with `opening`, after it opened that file: the kills
    /// then spread over its work, not over its start. Returns true when the
    /// kill landed (the tool was still running).
    static func runAndKill(_ executable: URL, _ arguments: [String], environment: [String: String], after delay: Double,
                           opening file: String? = nil) throws -> Bool {
        let process = try startQuietly(executable, arguments, environment: environment)
        if let file { _ = waitUntil(process, opens: file) }
        Thread.sleep(forTimeInterval: delay)
        return killNow(process)
    }

    /// Waits (30 s at most) until `process` has `file` open; false if it
    /// never did (it ended first).
    static func waitUntil(_ process: Process, opens file: String) -> Bool {
        let target = URL(fileURLWithPath: file).resolvingSymlinksInPath().path
        let folder = "/proc/\(process.processIdentifier)/fd"
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning, Date() < deadline {
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            if descriptors.contains(where: { (try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + $0)) == target }) {
                return true
            }
            usleep(1_000)
        }
        return false
    }

    /// Starts the tool and kills it with SIGKILL as soon as one of `files`
    /// has been replaced (its inode changed: a crash-safe rekey renames
    /// the new file into place), or after 30 s. Waits for the event, not
    /// for a guessed share of a timed run, which a loaded machine
    /// stretches. Returns true when the kill landed (the tool was still
    /// running).
    static func runAndKill(_ executable: URL, _ arguments: [String], environment: [String: String],
                           afterReplacingOneOf files: [String]) throws -> Bool {
        func inode(_ file: String) -> UInt64? {
            (try? FileManager.default.attributesOfItem(atPath: file)[.systemFileNumber] as? UInt64) ?? nil
        }
        let before = files.map(inode)
        let process = try startQuietly(executable, arguments, environment: environment)
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning, Date() < deadline, files.map(inode) == before {
            Thread.sleep(forTimeInterval: 0.005)
        }
        return killNow(process)
    }

    /// The tool, started with its output discarded.
    private static func startQuietly(_ executable: URL, _ arguments: [String], environment: [String: String]) throws -> Process {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Kills `process` with SIGKILL; true when the kill landed (it was
    /// still running).
    private static func killNow(_ process: Process) -> Bool {
        let landed = process.isRunning
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return landed && process.terminationReason == .uncaughtSignal
    }

    /// Seconds an uninterrupted run takes (with `opening`, from the moment
    /// it opened that file), and its exit status.
    static func timedRun(_ executable: URL, _ arguments: [String], environment: [String: String],
                         opening file: String? = nil) throws -> (Double, Int32) {
        let process = try startQuietly(executable, arguments, environment: environment)
        var start = Date()
        if let file, waitUntil(process, opens: file) { start = Date() }
        process.waitUntilExit()
        return (Date().timeIntervalSince(start), process.terminationStatus)
    }
}
