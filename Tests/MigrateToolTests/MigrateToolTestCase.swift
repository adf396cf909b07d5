import Foundation
import TestSupport
import XCTest

/// Runs the built `migrate-tool` (and `zalora-migrate`) binaries as a deploy
/// script would, in a fresh temporary folder per test.
class MigrateToolTestCase: XCTestCase {
    private(set) var directory: URL!
    let passphrase = "demo passphrase \u{1F512} with spaces"

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("MigrateToolTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let directory { try? FileManager.default.removeItem(at: directory) }
        try super.tearDownWithError()
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// The folder that holds the built products (`.build/debug`).
    static var productsDirectory: URL {
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        return Bundle.main.bundleURL
    }

    static var examplesDirectory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples/migrations")
    }

    var migrations: String { Self.examplesDirectory.path }

    @discardableResult
    func tool(_ arguments: [String], stdin: String = "", environment: [String: String] = [:],
              binary: String = "migrate-tool") throws -> CommandLineClient.Result {
        try CommandLineClient.run(Self.productsDirectory.appendingPathComponent(binary).path, arguments,
                                  stdin: stdin, environment: environment)
    }

    /// A private key file with the test passphrase (and a second key).
    func makeKeyFile(_ name: String = "keys", mode: Int = 0o600) throws -> String {
        let file = path(name)
        try """
            # test keys
            [current]
            passphrase = "\(passphrase)"

            [next]
            raw = \(String(repeating: "ab", count: 32))
            """.write(toFile: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file)
        return file
    }

    /// Creates an encrypted database with the tool; returns the key file.
    @discardableResult
    func makeDatabase(_ name: String = "app.db") throws -> String {
        let keys = try makeKeyFile()
        let created = try tool(["create", path(name), "--key-file", keys])
        XCTAssertEqual(created.status, 0, created.stderr)
        return keys
    }

    func sqlcipher(_ name: String, _ sql: String) throws -> CommandLineClient.Result {
        try CommandLineClient.sqlcipher(path(name), preamble: "PRAGMA key = '\(passphrase)';", sql: sql)
    }

    func appliedMigrations(_ name: String = "app.db") throws -> [String] {
        let result = try sqlcipher(name, "SELECT identifier FROM securestore_migrations ORDER BY applied_order;")
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout.split(separator: "\n").map(String.init)
    }

    func json(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8))
    }

    func assertNoSecret(_ result: CommandLineClient.Result, _ secret: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(result.stdout.contains(secret), "the key shows on stdout", file: file, line: line)
        XCTAssertFalse(result.stderr.contains(secret), "the key shows on stderr", file: file, line: line)
    }
}
