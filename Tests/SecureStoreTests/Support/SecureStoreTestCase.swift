import Foundation
import SecureStore
import XCTest

/// Base class: a fresh temporary folder per test, removed afterwards, and
/// helpers to make encrypted databases and run the real command-line clients.
class SecureStoreTestCase: XCTestCase {
    private(set) var directory: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("SecureStoreTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let directory { try? FileManager.default.removeItem(at: directory) }
        try super.tearDownWithError()
    }

    /// A path inside the test's folder.
    func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    /// A configuration that keys every connection with `passphrase`.
    func keyedConfiguration(
        passphrase: String, cipherSettings: CipherSettings = CipherSettings()
    ) -> Configuration {
        var config = Configuration()
        config.cipherSettings = cipherSettings
        config.prepareDatabase { db in try db.usePassphrase(passphrase) }
        return config
    }

    /// A configuration that keys every connection with a raw key.
    func rawKeyConfiguration(_ key: Data) -> Configuration {
        var config = Configuration()
        config.prepareDatabase { db in try db.useRawKey(key) }
        return config
    }

    func makeEncryptedQueue(_ name: String = "db.sqlite", passphrase: String = "secret") throws -> DatabaseQueue {
        try DatabaseQueue(path: path(name), configuration: keyedConfiguration(passphrase: passphrase))
    }

    func sha256(_ path: String) throws -> String {
        let result = try CommandLineClient.run("/usr/bin/sha256sum", [path])
        XCTAssertEqual(result.status, 0, result.stderr)
        return String(result.stdout.prefix(64))
    }

    func fileBytes(_ path: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: path))
    }
}

/// Runs a real executable (the `sqlcipher` and `sqlite3` CLIs, the
/// `migrate-tool` binary) with input on stdin.
enum CommandLineClient {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ executable: String, _ arguments: [String], stdin: String = "") throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
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
    static func sqlcipher(_ path: String, preamble: String, sql: String) throws -> Result {
        try run("/usr/bin/sqlcipher", ["-batch", path], stdin: preamble + "\n" + sql + "\n")
    }

    static func sqlite3(_ path: String, sql: String) throws -> Result {
        try run("/usr/bin/sqlite3", ["-batch", path], stdin: sql + "\n")
    }
}
