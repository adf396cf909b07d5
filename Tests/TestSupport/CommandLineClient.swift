import Foundation

/// Runs a real executable (the `sqlcipher` and `sqlite3` CLIs, the
/// `migrate-tool` binary) with input on stdin.
public enum CommandLineClient {
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    public static func run(
        _ executable: String, _ arguments: [String], stdin: String = "", environment: [String: String] = [:]
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
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
        // Read both pipes before waiting, so a full pipe cannot block the child.
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        let errData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus,
                      stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Runs SQL with the `sqlcipher` CLI; `preamble` holds the key PRAGMAs.
    public static func sqlcipher(_ path: String, preamble: String, sql: String) throws -> Result {
        try run("/usr/bin/sqlcipher", ["-batch", path], stdin: preamble + "\n" + sql + "\n")
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
