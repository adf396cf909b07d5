import Foundation
import TestSupport
import XCTest

/// A key given by any source never appears in stdout, stderr, JSON, the
/// verbose log, error messages, or the running process's command line; and
/// only where the operator put it (its environment variable) in its
/// environment.
final class SecretsTests: MigrateToolTestCase {
    /// Distinctive, so that any leak is found, in any case or as hex.
    private let secret = "Leak-Canary-Passphrase-7781"
    private let nextSecret = "Leak-Canary-Next-Passphrase-9044"

    private var binary: String { Self.productsDirectory.appendingPathComponent("migrate-tool").path }

    /// How a key reaches the tool: extra arguments, standard input, and a
    /// shell prefix (for --key-fd).
    private struct Source {
        var name: String
        var arguments: [String]
        var stdin = ""
        var environment: [String: String] = [:]
        var descriptorFile: String?
    }

    private func sources(for key: String) throws -> [Source] {
        let keyFile = path("keys-\(UUID().uuidString)")
        try "[current]\npassphrase = \"\(key)\"\n".write(toFile: keyFile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile)
        let descriptorFile = path("fd-\(UUID().uuidString)")
        try key.write(toFile: descriptorFile, atomically: true, encoding: .utf8)
        return [
            Source(name: "key file", arguments: ["--key-file", keyFile]),
            Source(name: "environment", arguments: ["--key-env", "LEAK_TEST_KEY"], environment: ["LEAK_TEST_KEY": key]),
            Source(name: "stdin", arguments: ["--key-stdin"], stdin: key + "\n"),
            Source(name: "descriptor", arguments: ["--key-fd", "3"], descriptorFile: descriptorFile),
        ]
    }

    /// Runs the tool with the key from `source`, and the suite's iteration
    /// count for the key (and a rekey's new key).
    private func run(_ arguments: [String], _ source: Source, extraEnvironment: [String: String] = [:]) throws -> CommandLineClient.Result {
        let environment = source.environment.merging(extraEnvironment) { $1 }
        let arguments = arguments + Self.suiteKDFArguments + (arguments.first == "rekey" ? Self.suiteNewKDFArguments : [])
        if let file = source.descriptorFile {
            return try CommandLineClient.run("/bin/bash", ["-c", "exec 3<\"$1\"; shift; exec \"$@\"", "bash", file, binary]
                                             + arguments + source.arguments, stdin: source.stdin, environment: environment)
        }
        return try CommandLineClient.run(binary, arguments + source.arguments, stdin: source.stdin, environment: environment)
    }

    private func assertHidden(_ result: CommandLineClient.Result, _ context: String, file: StaticString = #filePath, line: UInt = #line) {
        let output = (result.stdout + result.stderr).lowercased()
        for key in [secret, nextSecret] {
            let hex = Data(key.utf8).map { String(format: "%02x", $0) }.joined()
            XCTAssertFalse(output.contains(key.lowercased()), "\(context): the key shows", file: file, line: line)
            XCTAssertFalse(output.contains(hex), "\(context): the key shows in hex", file: file, line: line)
        }
    }

    // Every command's output, with the key from each source: one test per
    // source, side by side.
    func testNoOutputShowsAKeyFromAKeyFile() throws { try noOutputShowsTheKey(from: "key file") }
    func testNoOutputShowsAKeyFromTheEnvironment() throws { try noOutputShowsTheKey(from: "environment") }
    func testNoOutputShowsAKeyFromStandardInput() throws { try noOutputShowsTheKey(from: "stdin") }
    func testNoOutputShowsAKeyFromADescriptor() throws { try noOutputShowsTheKey(from: "descriptor") }

    private func makeDatabases() throws {
        let created = try tool(["create", path("app.db"), "--key-env", "K"] + Self.suiteKDFArguments, environment: ["K": secret])
        XCTAssertEqual(created.status, 0, created.stderr)
        try FileManager.default.copyItem(atPath: path("app.db"), toPath: path("other.db"))
    }

    private func noOutputShowsTheKey(from sourceName: String) throws {
        try makeDatabases()
        for source in try sources(for: secret) where source.name == sourceName {
            // Successes, with every kind of output.
            let commands: [[String]] = [
                ["inspect", path("app.db"), "--json", "--verbose", "--integrity", "--migrations", migrations],
                ["inspect", path("app.db"), "--verbose"],
                ["status", path("app.db"), "--migrations", migrations, "--json", "--verbose"],
                ["apply", path("app.db"), "--migrations", migrations, "--json", "--verbose"],
                ["rollback", path("app.db"), "--migrations", migrations, "--all", "--verbose"],
                ["verify", path("app.db"), "--json", "--verbose"],
                ["backup", path("app.db"), "--output", path("backup-\(UUID().uuidString).db"), "--json"],
                ["backups", path("app.db"), "--json"],
                ["restore", path("app.db"), "--latest", "--json", "--verbose"],
            ]
            for arguments in commands {
                let result = try run(arguments, source)
                XCTAssertEqual(result.status, 0, "\(source.name) \(arguments[0]): \(result.stderr)")
                assertHidden(result, "\(source.name) \(arguments[0])")
            }
            // A rekey and back, the new key from the environment.
            let rekey = try run(["rekey", path("other.db"), "--new-key-env", "NEXT", "--json", "--verbose"], source,
                                extraEnvironment: ["NEXT": nextSecret])
            XCTAssertEqual(rekey.status, 0, "\(source.name) rekey: \(rekey.stderr)")
            assertHidden(rekey, "\(source.name) rekey")
            let back = try tool(["rekey", path("other.db"), "--key-env", "NEXT", "--new-key-env", "K", "--json"]
                                + Self.suiteKDFArguments + Self.suiteNewKDFArguments,
                                environment: ["NEXT": nextSecret, "K": secret])
            XCTAssertEqual(back.status, 0, back.stderr)
            assertHidden(back, "rekey back")
        }
    }

    /// Failures: the wrong key, given by every source, against every command.
    func testNoFailureShowsTheKey() throws {
        try makeDatabases()
        // A backup for restore --latest to find (apply takes one).
        let applied = try tool(["apply", path("app.db"), "--migrations", migrations, "--key-env", "K"] + Self.suiteKDFArguments,
                               environment: ["K": secret])
        XCTAssertEqual(applied.status, 0, applied.stderr)
        for source in try sources(for: nextSecret) {
            for arguments in [["inspect", path("app.db"), "--json"], ["apply", path("app.db"), "--migrations", migrations, "--verbose"],
                              ["verify", path("app.db")], ["rekey", path("app.db"), "--new-key-env", "THIRD", "--json"],
                              ["encrypt", path("app.db"), "--json"], ["restore", path("app.db"), "--latest", "--json"]] {
                let result = try run(arguments, source, extraEnvironment: ["THIRD": "a third key"])
                XCTAssertEqual(result.status, 65, "\(source.name) \(arguments[0]) with the wrong key: \(result.stdout)\(result.stderr)")
                assertHidden(result, "\(source.name) \(arguments[0]) with the wrong key")
            }
        }
    }

    /// While the tool runs (here: waiting for a lock another process
    /// holds), neither its command line nor its environment holds the key:
    /// a key given with --key-env is taken out of the environment (zeroed
    /// where the kernel shows it, and unset) once read.
    func testRunningProcessCommandLineAndEnvironment() throws {
        let created = try tool(["create", path("app.db"), "--key-env", "K"], environment: ["K": secret])
        XCTAssertEqual(created.status, 0, created.stderr)
        let holder = try holdLock(on: path("app.db"), seconds: 60)
        defer { kill(holder.processIdentifier, SIGKILL); holder.waitUntilExit() }

        for source in try sources(for: secret) {
            let process = Process()
            var arguments = ["apply", path("app.db"), "--migrations", migrations, "--lock-timeout", "2"] + source.arguments
            if let file = source.descriptorFile {
                process.executableURL = URL(fileURLWithPath: "/bin/bash")
                arguments = ["-c", "exec 3<\"$1\"; shift; exec \"$@\"", "bash", file, binary] + arguments
            } else {
                process.executableURL = URL(fileURLWithPath: binary)
            }
            process.arguments = arguments
            process.environment = ProcessInfo.processInfo.environment.merging(source.environment) { $1 }
            let input = Pipe(), output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = output
            try process.run()
            input.fileHandleForWriting.write(Data(source.stdin.utf8))
            try input.fileHandleForWriting.close()
            // Past reading the key: waiting for the lock on the open file.
            XCTAssertTrue(waitUntil(process, opens: path("app.db")), "\(source.name): the tool never opened the database")
            let pid = process.processIdentifier
            let commandLine = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))
            let environment = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ"))
            XCTAssertTrue(String(decoding: commandLine, as: UTF8.self).contains("apply"), "\(source.name): not the tool's command line")
            XCTAssertNil(commandLine.range(of: Data(secret.utf8)), "\(source.name): the key is in /proc/\(pid)/cmdline")
            XCTAssertNil(environment.range(of: Data(secret.utf8)), "\(source.name): the key is in /proc/\(pid)/environ")
            let printed = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 75, "\(source.name): \(String(decoding: printed, as: UTF8.self))")
            XCTAssertNil(printed.range(of: Data(secret.utf8)), "\(source.name): the key was printed")
        }
    }
}
