import Foundation
import TestSupport
import XCTest

/// Runs the built `migrate-tool` (and `zalora-migrate`) binaries as a deploy
/// script would, in a fresh temporary folder per test.
class MigrateToolTestCase: XCTestCase {
    private(set) var directory: URL!
    let passphrase = "demo passphrase \u{1F512} with spaces"
    private var watchdog: TestWatchdog?

    override func setUpWithError() throws {
        try super.setUpWithError()
        watchdog = TestWatchdog(name: name)
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("MigrateToolTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        watchdog?.cancel()
        if let directory { try? FileManager.default.removeItem(at: directory) }
        try super.tearDownWithError()
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// The folder that holds the built products (`.build/debug`), or
    /// `SECURESTORE_TOOL_DIR` to run the tests against other binaries (an
    /// older build, to show that a test fails there).
    static var productsDirectory: URL {
        if let folder = ProcessInfo.processInfo.environment["SECURESTORE_TOOL_DIR"] {
            return URL(fileURLWithPath: folder, isDirectory: true)
        }
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

    /// Runs the tool; with `umask`, the child process starts with it (set
    /// by a shell that then runs the tool in its place: this process's own
    /// umask never changes, so tests and cells may run side by side).
    @discardableResult
    func tool(_ arguments: [String], stdin: String = "", environment: [String: String] = [:],
              binary: String = "migrate-tool", umask mask: mode_t? = nil) throws -> CommandLineClient.Result {
        let executable = Self.productsDirectory.appendingPathComponent(binary).path
        guard let mask else {
            return try CommandLineClient.run(executable, arguments, stdin: stdin, environment: environment)
        }
        return try CommandLineClient.run("/bin/sh", ["-c", "umask \(String(mask, radix: 8)) && exec \"$0\" \"$@\"", executable] + arguments,
                                         stdin: stdin, environment: environment)
    }

    /// A migrations directory from (file name, SQL) pairs.
    func migrationsDirectory(_ name: String, _ files: [(String, String)]) throws -> String {
        let folder = path(name)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        for (file, sql) in files { try sql.write(toFile: folder + "/" + file, atomically: true, encoding: .utf8) }
        return folder
    }

    /// A first migration that creates `brand(id, name NOT NULL)`, with its down step.
    let brand = [
        ("0001_Brand.up.sql", "CREATE TABLE brand (id INTEGER PRIMARY KEY, name TEXT NOT NULL);"),
        ("0001_Brand.down.sql", "DROP TABLE brand;"),
    ]

    /// The permission bits of a file.
    func mode(_ file: String) throws -> Int {
        try XCTUnwrap(FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
    }

    /// The names in a folder, sorted.
    func names(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }

    /// A legacy SQLCipher file made by the sqlcipher CLI with `settings`
    /// (`PRAGMA cipher_compatibility = 3; PRAGMA kdf_iter = 4000; ...`: SQLCipher
    /// 3.4.1 ignores the first), holding a table `t` with `rows` rows.
    func makeLegacyDatabase(_ file: String, key: String, settings: String, rows: Int = 10) throws {
        let made = try CommandLineClient.sqlcipher(file, preamble: "PRAGMA key = '\(key)'; \(settings)", sql: """
            CREATE TABLE t (id INTEGER PRIMARY KEY, payload TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
            INSERT INTO t (payload) SELECT 'row ' || i FROM n;
            """)
        XCTAssertEqual(made.status, 0, made.stderr)
    }

    /// The key file line that pins the suite's iteration count
    /// (``CommandLineClient/suiteKDFIterations``: the `sqlcipher` CLI's
    /// default): the 1,300,000 the tool gives new files on SQLCipher 3.4.x
    /// cost 0.6 s or more per open, a key without a count is tried in every
    /// format, and the suite opens files hundreds of times. The tool's
    /// defaults are tested in `KeyStrengthTests`.
    static var suiteKDFLine: String { "kdf_iter = \(CommandLineClient.suiteKDFIterations)" }

    /// The same pin as options, for keys given without a key file.
    static var suiteKDFArguments: [String] { ["--kdf-iter", String(CommandLineClient.suiteKDFIterations)] }

    /// The same pin for the new key of `rekey`.
    static var suiteNewKDFArguments: [String] { ["--new-kdf-iter", String(CommandLineClient.suiteKDFIterations)] }

    /// What the `sqlcipher` CLI needs after the key to read a new file the
    /// tool made with a passphrase and no count: ` PRAGMA kdf_iter =
    /// 1300000;` on SQLCipher 3.4.x, nothing on 4.x.
    static var newFileKDFPragma: String { CommandLineClient.sqlcipherMajorVersion == 3 ? " PRAGMA kdf_iter = 1300000;" : "" }

    /// A private key file with the test passphrase (and a second key);
    /// `pinsKDF: false` leaves out the suite's iteration count, for files
    /// whose format the open must find.
    func makeKeyFile(_ name: String = "keys", mode: Int = 0o600, pinsKDF: Bool = true) throws -> String {
        let file = path(name)
        try """
            # test keys
            [current]
            passphrase = "\(passphrase)"
            \(pinsKDF ? Self.suiteKDFLine : "")

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

    /// Another process that holds the exclusive `flock` on `file` (as a
    /// second run of the tool would) for up to `seconds`; returns once the
    /// lock is held, not after a guessed delay. Terminating the process
    /// releases the lock: `flock --no-fork` holds it in that process.
    func holdLock(on file: String, seconds: Int) throws -> Process {
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = ["--exclusive", "--no-fork", file, "/bin/sh", "-c", "echo held; exec sleep \(seconds)"]
        let output = Pipe()
        holder.standardOutput = output
        try holder.run()
        // "held" once flock has the lock; end of file if it failed.
        let said = output.fileHandleForReading.availableData
        guard String(decoding: said, as: UTF8.self).hasPrefix("held") else {
            holder.waitUntilExit()
            throw CocoaError(.fileLocking, userInfo: [NSFilePathErrorKey: file])
        }
        return holder
    }

    /// Waits (30 s at most) until `process` has `file` open, which the tool
    /// does only after it has read its key; false if it never did.
    func waitUntil(_ process: Process, opens file: String) -> Bool {
        CrashHarness.waitUntil(process, opens: file)
    }
}
