import Foundation
import TestSupport
import XCTest

/// Every command of the tool against every kind of bad input file: a clear
/// message that names the file, the documented exit code, no crash, and
/// every input file byte for byte the same (SHA-256) afterwards.
final class BadInputMatrixTests: MigrateToolTestCase {
    /// The exit codes the documentation lists (`migrate-tool --help`).
    private static let documentedExitCodes: Set<Int32> = [0, 1, 3, 4, 5, 6, 7, 10, 64, 65, 66, 73, 74, 75, 78]
    private let key = "bad input key"
    private var environment: [String: String] {
        ["DB_KEY": key, "NEW_KEY": "bad input next key", "WRONG_KEY": "not the key", "FIXTURE_KEY": "fixture key"]
    }

    /// Commands that only read the database.
    private let readers = ["inspect", "status", "verify", "backup", "decrypt", "history"]
    /// Commands that change it.
    private let writers = ["apply", "rollback", "rekey", "upgrade", "encrypt"]
    private var commands: [String] { readers + writers }

    private func arguments(_ command: String, _ file: String, keyVariable: String = "DB_KEY") -> [String] {
        let key = Self.suiteKDFArguments + ["--key-env", keyVariable]
        let output = path("output-\(UUID().uuidString).db")
        switch command {
        case "inspect": return ["inspect", file] + key
        case "status": return ["status", file, "--migrations", migrations] + key
        case "verify": return ["verify", file] + key
        case "history": return ["history", file] + key
        case "backup": return ["backup", file, "--output", output] + key
        case "decrypt": return ["decrypt", file, "--output", output, "--allow-plaintext"] + key
        case "apply": return ["apply", file, "--migrations", migrations] + key
        case "rollback": return ["rollback", file, "--migrations", migrations, "--all"] + key
        case "rekey": return ["rekey", file, "--new-key-env", "NEW_KEY"] + key
        case "upgrade": return ["upgrade", file] + key
        case "encrypt": return ["encrypt", file] + key
        default: preconditionFailure(command)
        }
    }

    /// An encrypted database with the example migrations applied and
    /// enough rows that any cut of the file hits a page that is read.
    private func makeGoodDatabase(_ name: String) throws -> String {
        let file = path(name)
        XCTAssertEqual(try tool(["create", file, "--key-env", "DB_KEY"] + Self.suiteKDFArguments, environment: environment).status, 0)
        XCTAssertEqual(try tool(["apply", file, "--migrations", migrations, "--key-env", "DB_KEY", "--no-backup"] + Self.suiteKDFArguments,
                                environment: environment).status, 0)
        let filled = try CommandLineClient.sqlcipher(file, preamble: "PRAGMA key = '\(key)';", sql: """
            CREATE TABLE filler (payload TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
            INSERT INTO filler SELECT hex(randomblob(100)) FROM n;
            """)
        XCTAssertEqual(filled.status, 0, filled.stderr)
        return file
    }

    /// Runs `command` on `file` and checks the outcome; returns the result.
    @discardableResult
    private func check(
        _ command: String, _ file: String, expecting codes: Set<Int32>, keyVariable: String = "DB_KEY",
        mentions: String? = nil, runAs user: String? = nil, line: UInt = #line
    ) throws -> CommandLineClient.Result {
        let name = URL(fileURLWithPath: file).lastPathComponent
        let before = try fileHashes()
        var arguments = self.arguments(command, file, keyVariable: keyVariable)
        var executable = Self.productsDirectory.appendingPathComponent("migrate-tool").path
        var environment = self.environment
        if let user {
            // Root reads any file: run as another user to meet a permission
            // check. The checkout may sit in a folder that user cannot
            // enter (root's home is 0700): it gets its own copies.
            let shared = try sharedCopiesForOtherUsers()
            arguments = arguments.map { $0 == migrations ? shared.migrations : $0 }
            arguments = ["--reuid=\(user)", "--regid=\(user)", "--clear-groups", shared.tool] + arguments
            executable = "/usr/bin/setpriv"
            if let library = shared.library { environment["LD_LIBRARY_PATH"] = library }
        }
        let result = try CommandLineClient.run(executable, arguments, environment: environment)
        let output = result.stdout + result.stderr
        let context = "\(command) \(name): exit \(result.status): \(output)"
        XCTAssertTrue(codes.contains(result.status), "expected \(codes.sorted()): \(context)", line: line)
        XCTAssertTrue(Self.documentedExitCodes.contains(result.status) && result.status != 1, "undocumented or internal: \(context)", line: line)
        if result.status != 0 {
            XCTAssertTrue(output.contains(name), "the message does not name the file: \(context)", line: line)
        }
        if let mentions { XCTAssertTrue(output.contains(mentions), "no \"\(mentions)\": \(context)", line: line) }
        XCTAssertFalse(output.contains(key), "the key shows: \(context)", line: line)
        // Inputs are unchanged; outputs of failed runs are not left behind.
        let after = try fileHashes()
        for (input, hash) in before { XCTAssertEqual(after[input], hash, "\(input) changed: \(context)", line: line) }
        if result.status != 0 {
            XCTAssertEqual(Set(after.keys).subtracting(before.keys), [], "files left by a failed run: \(context)", line: line)
        }
        return result
    }

    /// The tool and the example migrations, copied where any user can read
    /// them: the test folder, opened to others (with umask 077 it is 0700).
    /// On the SQLCipher 4 line the tool's library lives in a private build
    /// prefix (scripts/sqlcipher4.sh): it is copied too.
    private func sharedCopiesForOtherUsers() throws -> (tool: String, migrations: String, library: String?) {
        let folder = path("shared-with-other-users")
        let tool = folder + "/migrate-tool", copied = folder + "/migrations", library = folder + "/lib"
        let prefix = ProcessInfo.processInfo.environment["SECURESTORE_SQLCIPHER_PREFIX"]
        if !FileManager.default.fileExists(atPath: folder) {
            try FileManager.default.createDirectory(atPath: copied, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Self.productsDirectory.appendingPathComponent("migrate-tool").path,
                                             toPath: tool)
            for name in try FileManager.default.contentsOfDirectory(atPath: migrations) {
                try FileManager.default.copyItem(atPath: migrations + "/" + name, toPath: copied + "/" + name)
            }
            var folders = [directory.path, folder, copied]
            if let prefix {
                try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: true)
                let real = URL(fileURLWithPath: prefix + "/lib/libsqlcipher.so.1").resolvingSymlinksInPath().path
                try FileManager.default.copyItem(atPath: real, toPath: library + "/libsqlcipher.so.1")
                try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: library + "/libsqlcipher.so.1")
                folders.append(library)
            }
            for item in folders {
                try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: item)
            }
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tool)
            for name in try FileManager.default.contentsOfDirectory(atPath: copied) {
                try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: copied + "/" + name)
            }
        }
        return (tool, copied, prefix == nil ? nil : library)
    }

    /// SHA-256 of every regular file in the test folder and the migrations.
    private func fileHashes() throws -> [String: String] {
        var files: [String] = []
        for folder in [directory.path, migrations] {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
                let file = folder + "/" + name
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), !isDirectory.boolValue,
                      FileManager.default.isReadableFile(atPath: file) || getuid() == 0 else { continue }
                files.append(file)
            }
        }
        return try sha256OfFiles(files)
    }

    // MARK: Files that are not databases

    func testMissingDirectoryAndEmptyFiles() throws {
        try FileManager.default.createDirectory(atPath: path("directory.db"), withIntermediateDirectories: false)
        _ = FileManager.default.createFile(atPath: path("empty.db"), contents: Data())
        for command in commands {
            try check(command, path("missing.db"), expecting: [66], mentions: "no such file")
            XCTAssertFalse(FileManager.default.fileExists(atPath: path("missing.db")), "\(command) created the missing file")
            try check(command, path("directory.db"), expecting: [66], mentions: "directory")
            try check(command, path("empty.db"), expecting: [65], mentions: "empty")
        }
    }

    /// A cut inside the last page: SQLite rounds the page count up and only
    /// the commands that read that page would notice. Every command does.
    func testAFileCutInsideItsLastPageIsReportedAsTruncated() throws {
        let good = try Data(contentsOf: URL(fileURLWithPath: makeGoodDatabase("good.db")))
        _ = FileManager.default.createFile(atPath: path("cut.db"), contents: good.prefix(good.count - 100))
        for command in commands {
            let result = try check(command, path("cut.db"), expecting: command == "verify" ? [65, 7] : [65])
            // encrypt expects a plaintext file and says it is not one.
            if !["verify", "encrypt"].contains(command) {
                let output = result.stdout + result.stderr
                XCTAssertTrue(output.contains(path("cut.db")) && output.contains("truncated"), "\(command): \(output)")
            }
        }
    }

    /// A cut inside the first page.
    func testAFileCutInsideItsFirstPage() throws {
        try truncatedFiles { _ in [Int.random(in: 1..<1024)] }
    }

    /// Three cuts in the pages after the first.
    func testFilesCutAfterTheirFirstPage() throws {
        try truncatedFiles { size in (0..<3).map { _ in Int.random(in: 1025..<(size - 1)) } }
    }

    private func truncatedFiles(cutAt cuts: (_ size: Int) -> [Int]) throws {
        let good = try Data(contentsOf: URL(fileURLWithPath: makeGoodDatabase("good.db")))
        for cut in cuts(good.count) {
            let name = "truncated-at-\(cut).db"
            _ = FileManager.default.createFile(atPath: path(name), contents: good.prefix(cut))
            for command in commands {
                // verify says "damaged" (7) when the key opens what is left.
                try check(command, path(name), expecting: command == "verify" ? [65, 7] : [65])
            }
        }
    }

    func testARandomFile() throws {
        _ = FileManager.default.createFile(atPath: path("random.db"), contents: Data((0..<16384).map { _ in UInt8.random(in: 0...255) }))
        for command in commands {
            try check(command, path("random.db"), expecting: [65], mentions: "not a database")
        }
    }

    func testAPlaintextFile() throws {
        XCTAssertEqual(try CommandLineClient.sqlite3(path("plain.db"), sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1);").status, 0)
        // Encrypting a plaintext file is what `encrypt` is for.
        for command in commands where command != "encrypt" {
            try check(command, path("plain.db"), expecting: [65], mentions: "not encrypted")
        }
    }

    func testAFileOfSQLCipher4sDefaults() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/sqlcipher4-defaults.db")
        try FileManager.default.copyItem(at: fixture, to: URL(fileURLWithPath: path("sqlcipher4.db")))
        for command in commands {
            // A file of SQLCipher 4's defaults (made by SQLCipher 4.12):
            // SQLCipher 3 cannot read it and says what it may be; SQLCipher
            // 4 reads it with its key (the file is put back after writers).
            if CommandLineClient.sqlcipherMajorVersion >= 4 {
                let before = try Data(contentsOf: URL(fileURLWithPath: path("sqlcipher4.db")))
                if readers.contains(command) {
                    try check(command, path("sqlcipher4.db"), expecting: [0], keyVariable: "FIXTURE_KEY")
                }
                try check(command, path("sqlcipher4.db"), expecting: [65], mentions: "the key is wrong")
                try before.write(to: URL(fileURLWithPath: path("sqlcipher4.db")))
            } else {
                // encrypt wants a plaintext file, and says this one is not.
                try check(command, path("sqlcipher4.db"), expecting: [65], mentions: "may be a SQLCipher 4 file")
            }
        }
    }

    func testAWrongKey() throws {
        let good = try makeGoodDatabase("good.db")
        for command in commands {
            try check(command, good, expecting: [65], keyVariable: "WRONG_KEY", mentions: "the key is wrong")
        }
    }

    // MARK: Permissions

    func testReadOnlyAndUnreadableFiles() throws {
        let readOnly = try makeGoodDatabase("read-only.db")
        try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: readOnly)
        for command in readers {
            try check(command, readOnly, expecting: [0])
        }
        for command in writers {
            try check(command, readOnly, expecting: [74], mentions: "read-only")
        }

        let unreadable = try makeGoodDatabase("unreadable.db")
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: unreadable)
        for command in commands {
            try check(command, unreadable, expecting: [74], mentions: "permission", runAs: getuid() == 0 ? "65534" : nil)
        }
    }

    // MARK: Key files and migration files

    func testKeyFilesWithLoosePermissionsOrBadLines() throws {
        let good = try makeGoodDatabase("good.db")
        let loose = try makeKeyFile("loose-keys", mode: 0o644)
        let badLine = path("bad-line-keys")
        try "[current]\npassphrase = \"\(key)\"\nthis line is not a setting\n".write(toFile: badLine, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: badLine)
        for command in commands {
            for (keyFile, reason) in [(loose, "chmod 600"), (badLine, "bad-line-keys:3:")] {
                let before = try fileHashes()
                var arguments = self.arguments(command, good)
                arguments.removeLast(2) // the --key-env pair
                let result = try tool(arguments + ["--key-file", keyFile], environment: environment)
                let context = "\(command) with \(keyFile): \(result.stdout)\(result.stderr)"
                XCTAssertEqual(result.status, 78, context)
                XCTAssertTrue((result.stdout + result.stderr).contains(reason), context)
                XCTAssertFalse((result.stdout + result.stderr).contains(key), context)
                XCTAssertEqual(try fileHashes(), before, context)
            }
        }
    }

    func testMalformedMigrationFiles() throws {
        let created = try tool(["create", path("new.db"), "--key-env", "DB_KEY"], environment: environment)
        XCTAssertEqual(created.status, 0, created.stderr)
        let cases: [(name: String, files: [String: String], codes: Set<Int32>, reason: String)] = [
            ("empty", ["0001_a.up.sql": ""], [78], "has no SQL statement"),
            ("no up part", ["0001_a.down.sql": "DROP TABLE a;"], [78], "down file without an up file"),
            ("duplicate identifiers", ["0001_a.up.sql": "CREATE TABLE a (x);", "0002_a.up.sql": "CREATE TABLE b (x);"], [78], "duplicate identifier"),
            ("bad name", ["first.up.sql": "CREATE TABLE a (x);"], [78], "does not follow"),
            // Invalid SQL fails when it runs: exit 6, the file as before the run.
            ("invalid SQL", ["0001_a.up.sql": "CREATE TABLE a (x);\nCREAT TABLE oops;"], [6], "syntax error"),
        ]
        for item in cases {
            let folder = directory.appendingPathComponent("migrations-\(item.name.replacingOccurrences(of: " ", with: "-"))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for (name, text) in item.files { try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8) }
            for command in ["status", "apply", "rollback"] where !(item.name == "invalid SQL" && command != "apply") {
                let before = try fileHashes()
                var arguments = ["--migrations", folder.path, "--key-env", "DB_KEY"]
                if command == "rollback" { arguments.append("--all") }
                let result = try tool([command, path("new.db")] + arguments, environment: environment)
                let context = "\(item.name), \(command): exit \(result.status): \(result.stdout)\(result.stderr)"
                XCTAssertTrue(item.codes.contains(result.status), context)
                XCTAssertTrue((result.stdout + result.stderr).contains(item.reason), context)
                let after = try fileHashes()
                for (file, hash) in before { XCTAssertEqual(after[file], hash, "\(file): \(context)") }
            }
        }
    }
}
