import Foundation

/// Runs a real executable (the `sqlcipher` and `sqlite3` CLIs, the
/// `migrate-tool` binary) with input on stdin.
public enum CommandLineClient {
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// Runs `executable`, feeding `stdin`; a child still running after
    /// `timeout` seconds is killed and reported with status -1, so that a
    /// test fails instead of hanging.
    public static func run(
        _ executable: String, _ arguments: [String], stdin: String = "", environment: [String: String] = [:],
        timeout: TimeInterval = 300
    ) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let input = Pipe(), output = Pipe(), error = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        try process.run()
        // Weak: Dispatch keeps a cancelled item until its deadline, and with
        // it the process and its pipes' six descriptors. Held strongly,
        // they piled up (1,296 open in the test process after 13 tests),
        // and Foundation's `Process.run()` of Swift 6.3.1 over-reads
        // `/proc/self/fd` when the list fills glibc's buffer: a crash
        // (swift-corelibs-foundation #5472). The process object lives
        // while this function waits for it, which is when the watchdog
        // may need it.
        let watchdog = DispatchWorkItem { [weak process] in
            if let process, process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        defer { watchdog.cancel() }
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
        // Read both pipes before waiting, so a full pipe cannot block the child.
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        let errData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let killed = process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
        return Result(status: killed ? -1 : process.terminationStatus,
                      stdout: String(decoding: outData, as: UTF8.self),
                      stderr: (killed ? "killed after \(Int(timeout)) s\n" : "") + String(decoding: errData, as: UTF8.self))
    }

    /// The `sqlcipher` CLI of the SQLCipher line under test: the first on
    /// PATH (scripts/sqlcipher-line.sh puts SQLCipher 4's first when the
    /// suite runs against it), else Debian's.
    public static let sqlcipherPath: String = {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = "\(folder)/sqlcipher"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return "/usr/bin/sqlcipher"
    }()

    /// The SQLCipher version of that CLI, as `PRAGMA cipher_version`
    /// gives it: "3.4.1", "4.6.1 community".
    public static let sqlcipherVersion: String = {
        let result = try? run(sqlcipherPath, ["-batch", ":memory:"], stdin: "PRAGMA cipher_version;\n")
        return (result?.stdout ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }()

    /// The major version of that CLI's SQLCipher: 3 or 4.
    public static var sqlcipherMajorVersion: Int { Int(sqlcipherVersion.prefix { $0.isNumber }) ?? 3 }

    /// The Python of the independent SQLCipher 4 client (PyPI's
    /// `sqlcipher3`): `SECURESTORE_PYTHON_SQLCIPHER` (set by the scripts), or
    /// the virtual environment `scripts/python-sqlcipher.sh` caches; nil when
    /// neither exists.
    public static var pythonSQLCipher: String? {
        if let named = ProcessInfo.processInfo.environment["SECURESTORE_PYTHON_SQLCIPHER"] { return named }
        let cached = FileManager.default.homeDirectoryForCurrentUser
            .appendingPathComponent(".cache/securestore/sqlcipher3-venv-0.6.0/bin/python").path
        return FileManager.default.isExecutableFile(atPath: cached) ? cached : nil
    }

    /// The PBKDF2 iteration count of the suite's passphrase-keyed files,
    /// chosen here only: the `sqlcipher` CLI's own default on each line
    /// (64,000 on SQLCipher 3, 256,000 on 4), so that the CLI reads them
    /// with the key alone. Given explicitly, it also spares every open the
    /// search through other formats and counts (SecureStore's new-file
    /// count, 1,300,000 on SQLCipher 3.4.x, among them). The tests of key
    /// derivation itself (`KeyStrengthTests`, `NewFileKeyDerivationTests`,
    /// `KeyDerivationStrengthTests`) use the library's defaults, and prove
    /// that nothing lowers them.
    public static var suiteKDFIterations: Int { sqlcipherMajorVersion >= 4 ? 256_000 : 64_000 }

    /// Runs SQL with the `sqlcipher` CLI; `preamble` holds the key PRAGMAs.
    /// What the preamble prints (SQLCipher 4 answers `PRAGMA key` with
    /// `ok`) is discarded: the output is the SQL's.
    public static func sqlcipher(_ path: String, preamble: String, sql: String) throws -> Result {
        try run(sqlcipherPath, ["-batch", path], stdin: quietly(preamble) + sql + "\n")
    }

    /// `preamble` between `.output /dev/null` and `.output stdout`.
    public static func quietly(_ preamble: String) -> String {
        preamble.isEmpty ? "" : ".output /dev/null\n\(preamble)\n.output stdout\n"
    }

    public static func sqlite3(_ path: String, sql: String) throws -> Result {
        try run("/usr/bin/sqlite3", ["-batch", path], stdin: sql + "\n")
    }
}

/// SHA-256 of a file, by the `sha256sum` command (an independent check).
public func sha256OfFile(_ path: String) throws -> String {
    let result = try CommandLineClient.run("/usr/bin/sha256sum", [path])
    guard result.status == 0 else { throw CocoaError(.fileReadUnknown) }
    return String(result.stdout.prefix(64))
}

/// SHA-256 of several files by one `sha256sum` run, by path.
public func sha256OfFiles(_ paths: [String]) throws -> [String: String] {
    guard !paths.isEmpty else { return [:] }
    let result = try CommandLineClient.run("/usr/bin/sha256sum", ["--"] + paths)
    guard result.status == 0 else { throw CocoaError(.fileReadUnknown) }
    var hashes: [String: String] = [:]
    for line in result.stdout.split(separator: "\n") {
        // "<64 hex>  <path>"
        hashes[String(line.dropFirst(66))] = String(line.prefix(64))
    }
    return hashes
}
