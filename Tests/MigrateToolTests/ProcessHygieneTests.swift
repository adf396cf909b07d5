import Foundation
import TestSupport
import XCTest

/// While `migrate-tool` runs, its keys are out of reach: the process is
/// non-dumpable with no core file, so another process of the same user
/// (without root's CAP_SYS_PTRACE) can neither read its `/proc/PID/environ`
/// nor attach a debugger; a key given with `--key-env` is gone from its
/// environment once read.
final class ProcessHygieneTests: MigrateToolTestCase {
    private let secret = "hygiene passphrase 7d1c"
    private var binary: String { Self.productsDirectory.appendingPathComponent("migrate-tool").path }

    /// A `rekey` that has read its current key from the environment and
    /// waits for its new key on descriptor 3 (the returned pipe).
    private func startRekeyWaitingForItsNewKey() throws -> (process: Process, newKey: FileHandle, errors: Pipe) {
        let created = try tool(["create", path("app.db"), "--key-env", "K"], environment: ["K": secret])
        XCTAssertEqual(created.status, 0, created.stderr)
        let process = Process()
        let command = unprivilegedCommand(["/bin/bash", "-c", "exec 3<&0 0</dev/null; exec \"$@\"", "bash", binary,
                                           "rekey", path("app.db"), "--key-env", "K", "--new-key-fd", "3"])
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = ProcessInfo.processInfo.environment.merging(["K": secret]) { $1 }
        let input = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        return (process, input.fileHandleForWriting, errors)
    }

    /// Reads a file of `/proc/PID` (as the test's user, root in CI).
    private func procFile(_ pid: Int32, _ name: String) -> Data? {
        try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/\(name)"))
    }

    /// A command line run as the test's user without capabilities: as root
    /// (CI), with an empty capability bounding set, which makes it what an
    /// unprivileged user's process is to another (no CAP_SYS_PTRACE, no
    /// CAP_DAC_OVERRIDE); as any other user, as it is.
    private func unprivilegedCommand(_ arguments: [String]) -> [String] {
        getuid() == 0 ? ["/usr/bin/setpriv", "--bounding-set=-all", "--inh-caps=-all", "--"] + arguments : arguments
    }

    private func unprivileged(_ arguments: [String]) throws -> CommandLineClient.Result {
        let command = unprivilegedCommand(arguments)
        return try CommandLineClient.run(command[0], Array(command.dropFirst()), timeout: 30)
    }

    func testARunningCommandIsOutOfReachOfTheSameUser() throws {
        let (process, newKey, errors) = try startRekeyWaitingForItsNewKey()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let pid = process.processIdentifier
        // Until the tool runs and has read its key (10 s at most).
        var environment = Data()
        for _ in 0..<100 {
            let commandLine = procFile(pid, "cmdline") ?? Data()
            environment = procFile(pid, "environ") ?? Data()
            if String(decoding: commandLine, as: UTF8.self).contains("rekey"), environment.range(of: Data(secret.utf8)) == nil { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        XCTAssertNil(environment.range(of: Data(secret.utf8)), "the key is still in /proc/\(pid)/environ")
        XCTAssertNotNil(environment.range(of: Data("PATH=".utf8)), "the rest of the environment is there")

        let limits = String(decoding: procFile(pid, "limits") ?? Data(), as: UTF8.self)
        let coreLimit = limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") }
        XCTAssertEqual(coreLimit?.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).prefix(2), ["0", "0"],
                       limits)

        // A process of the same user, dumpable: what the reader could see.
        // (The tool and the control run like the reader, without
        // capabilities; see unprivilegedCommand.)
        let control = Process()
        let sleep = unprivilegedCommand(["/bin/sleep", "30"])
        control.executableURL = URL(fileURLWithPath: sleep[0])
        control.arguments = Array(sleep.dropFirst())
        try control.run()
        defer { kill(control.processIdentifier, SIGKILL); control.waitUntilExit() }
        // Until the control is `sleep`, without capabilities (10 s at most):
        // before that exec, as root, it is `setpriv` with all of them, and a
        // reader without any is refused (a failure seen in CI).
        for _ in 0..<100 {
            let status = String(decoding: procFile(control.processIdentifier, "status") ?? Data(), as: UTF8.self)
            if status.contains("CapPrm:\t0000000000000000") { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        let readable = try unprivileged(["/bin/cat", "/proc/\(control.processIdentifier)/environ"])
        XCTAssertEqual(readable.status, 0, "the control: \(readable.stderr)")
        let refused = try unprivileged(["/bin/cat", "/proc/\(pid)/environ"])
        XCTAssertNotEqual(refused.status, 0, "another process of the same user read the tool's environment")
        XCTAssertTrue(refused.stderr.contains("Permission denied"), refused.stderr)

        // A debugger: attached to the control, refused by the tool.
        let gdb = ["/usr/bin/gdb", "-nx", "-batch", "-ex", "detach", "-p"]
        let attached = try unprivileged(gdb + ["\(control.processIdentifier)"])
        let attachedOutput = attached.stdout + attached.stderr
        if attachedOutput.contains("ptrace: Operation not permitted") {
            print("note: this kernel refuses ptrace between these processes anyway (Yama); the attach check proves nothing here")
        } else {
            let debugged = try unprivileged(gdb + ["\(pid)"])
            XCTAssertTrue((debugged.stdout + debugged.stderr).contains("ptrace: Operation not permitted"),
                          debugged.stdout + debugged.stderr)
        }

        // The new key: the run goes on and ends well.
        newKey.write(Data("hygiene new key\n".utf8))
        try newKey.close()
        process.waitUntilExit()
        let printed = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 0, printed)
        let reopened = try CommandLineClient.sqlcipher(path("app.db"), preamble: "PRAGMA key = 'hygiene new key';" + Self.newFileKDFPragma,
                                                       sql: "SELECT count(*) FROM sqlite_master;")
        XCTAssertEqual(reopened.status, 0, reopened.stderr)
    }
}
