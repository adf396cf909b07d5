import Foundation
import SecureStore
import TestSupport
import XCTest

/// Every command beside a running service: each kind of client (a
/// SecureStore pool and queue in this process, the `sqlcipher` shell in WAL
/// and rollback-journal mode, PyPI's `sqlcipher3`), idle, reading or
/// writing continuously, while the tool runs.
///
/// What each cell checks: the commands that replace the file (rekey,
/// restore, encrypt, upgrade) exit 75, name the client's process and
/// change nothing; the others exit 0; every write the client was told
/// succeeded is in the final file, which opens with exactly one of the
/// keys and passes its integrity check; after `apply`, a SecureStore
/// client sees the new table. Then the same with the tool killed
/// (SIGKILL) at a random moment.
///
/// Cells are small (ten rows, raw keys: no key derivation) and run three
/// at a time; a client is ready when it says so (a pipe), not after a
/// delay.
final class LiveServiceTests: MigrateToolTestCase {
    enum Operation: String, CaseIterable {
        case rekey, restore, encrypt, upgrade, apply, rollback, status, inspect, verify, backup, history, audit

        /// The commands that replace the database file.
        var replaces: Bool { [.rekey, .restore, .encrypt, .upgrade].contains(self) }

        /// What the database must hold first.
        var needsHistory: Bool { [.rollback, .status, .history, .audit].contains(self) }
    }

    /// What the file is: encrypted with the old raw key, plaintext, or in
    /// an older SQLCipher format (for upgrade).
    enum FileKind { case encrypted, plaintext, legacy }

    private static let oldKey = String(repeating: "ab", count: 32)
    private static let newKey = String(repeating: "cd", count: 32)
    private static var line: Int { CommandLineClient.sqlcipherMajorVersion }

    private var python: String? { CommandLineClient.pythonSQLCipher }

    func testRekeyBesideEveryClient() throws { try runMatrix(.rekey) }
    func testRestoreBesideEveryClient() throws { try runMatrix(.restore) }
    func testEncryptBesideEveryClient() throws { try runMatrix(.encrypt) }
    func testUpgradeBesideEveryClient() throws { try runMatrix(.upgrade) }
    func testApplyBesideEveryClient() throws { try runMatrix(.apply) }
    func testRollbackBesideEveryClient() throws { try runMatrix(.rollback) }
    func testStatusBesideEveryClient() throws { try runMatrix(.status) }
    func testInspectBesideEveryClient() throws { try runMatrix(.inspect) }
    func testVerifyBesideEveryClient() throws { try runMatrix(.verify) }
    func testBackupBesideEveryClient() throws { try runMatrix(.backup) }
    func testHistoryBesideEveryClient() throws { try runMatrix(.history) }
    func testAuditBesideEveryClient() throws { try runMatrix(.audit) }

    /// Each command killed at a random moment while each kind of client
    /// writes: the same invariants (the replacing commands never get past
    /// their refusal, so the file keeps its key).
    func testToolKilledAtARandomMomentBesideEveryClient() throws {
        var generator = SystemRandomNumberGenerator()
        let cells = Operation.allCases.flatMap { operation in
            LiveClient.Kind.allCases.map { (operation, $0, Double.random(in: 0...0.08, using: &generator)) }
        }
        let test = Unchecked(self)
        let failures = try runCells(cells.count) { index in
            let (operation, kind, delay) = cells[index]
            return try test.value.cell(operation, kind, .writing, killAfter: delay)
        }
        XCTAssertEqual(failures, [], failures.joined(separator: "\n"))
    }

    /// The backup `apply` takes beside a running service holds every
    /// commit of the service, even those a reader keeps in the WAL (a
    /// checkpoint cannot fold frames past a reader's snapshot).
    func testApplysBackupHoldsEveryCommitOfARunningService() throws {
        let database = path("app.db")
        try create(database, .encrypted)
        chmod(directory.path, 0o700)
        let keys = try keyFile(in: directory.path)
        let dbPool = try DatabasePool(path: database, configuration: keying(.encrypted).key!.configuration())
        let snapshot = try dbPool.makeSnapshot()
        try dbPool.write { db in
            for id in 11...20 { try db.execute(sql: "INSERT INTO live (id) VALUES (?)", arguments: [id]) }
        }
        let applied = try tool(["apply", database, "--migrations", try migrationsFolder(in: directory.path),
                                "--key-file", keys, "--key-name", "old"])
        XCTAssertEqual(applied.status, 0, applied.stderr)
        XCTAssertEqual(try snapshot.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM live") }, 10)
        try dbPool.close()
        let backup = try XCTUnwrap(try names(in: directory.path).first { $0.hasSuffix(".backup") })
        XCTAssertEqual(try names(in: directory.path).filter { $0.hasPrefix(backup) }, [backup], "one file")
        var config = keying(.encrypted).key!.configuration(readonly: true)
        config.readonly = true
        let copy = try DatabaseQueue(path: path(backup), configuration: config)
        XCTAssertEqual(try copy.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM live") }, 20)
        try copy.close()
    }

    // MARK: Cells

    private func runMatrix(_ operation: Operation) throws {
        let cells = LiveClient.Kind.allCases.flatMap { kind in LiveClient.Activity.allCases.map { (kind, $0) } }
        let test = Unchecked(self)
        let failures = try runCells(cells.count) { index in
            try test.value.cell(operation, cells[index].0, cells[index].1)
        }
        XCTAssertEqual(failures, [], failures.joined(separator: "\n"))
    }

    /// Runs `count` cells, three at a time; returns their failures.
    private func runCells(_ count: Int, _ body: @escaping @Sendable (Int) throws -> [String]) throws -> [String] {
        let results = CellResults(count)
        let gate = DispatchSemaphore(value: 3)
        let group = DispatchGroup()
        for index in 0..<count {
            gate.wait()
            DispatchQueue.global().async(group: group) {
                defer { gate.signal() }
                results.set(index, Result { try body(index) })
            }
        }
        group.wait()
        return try results.all().flatMap { $0 }
    }

    /// One cell: a fresh database, a client, the tool; returns what failed.
    private func cell(_ operation: Operation, _ kind: LiveClient.Kind, _ activity: LiveClient.Activity,
                      killAfter delay: Double? = nil) throws -> [String] {
        let name = "\(operation.rawValue) beside \(kind.rawValue), \(activity.rawValue)\(delay.map { ", killed after \(Int($0 * 1000)) ms" } ?? "")"
        if kind == .python, python == nil { return [] }
        let folder = path("\(operation.rawValue)-\(kind)-\(activity)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        let database = folder + "/app.db"
        let keys = try keyFile(in: folder)
        let fileKind: FileKind = operation == .encrypt ? .plaintext : operation == .upgrade ? .legacy : .encrypted
        try create(database, fileKind)
        let old = ["--key-file", keys, "--key-name", fileKind == .legacy ? "legacy" : "old"]
        let migrations = try migrationsFolder(in: folder)
        if operation.needsHistory {
            let applied = try tool(["apply", database, "--migrations", migrations, "--no-backup"] + old)
            guard applied.status == 0 else { return ["\(name): setup apply: \(applied.stderr)"] }
        }
        if operation == .restore {
            let copied = try tool(["backup", database, "--output", folder + "/kept.db"] + old)
            guard copied.status == 0 else { return ["\(name): setup backup: \(copied.stderr)"] }
        }

        let client = try LiveClient.start(kind, activity, path: database, keying: keying(fileKind), python: python)
        let arguments = command(operation, database, folder: folder, keys: keys, old: old, migrations: migrations)
        var failures: [String] = []
        if let delay {
            _ = try CrashHarness.runAndKill(Self.productsDirectory.appendingPathComponent("migrate-tool"), arguments,
                                            environment: [:], after: delay)
        } else {
            let result = try tool(arguments)
            let expected: Int32 = operation.replaces ? 75 : 0
            if result.status != expected {
                failures.append("\(name): exit \(result.status), expected \(expected): \(result.stderr)")
            } else if operation.replaces {
                let holder = kind == .pool || kind == .queue ? getpid() : client.processIdentifier ?? -1
                if !result.stderr.contains("pid \(holder)") {
                    failures.append("\(name): the message does not name pid \(holder): \(result.stderr)")
                }
            }
            if operation == .apply, kind == .pool || kind == .queue, client.seesTable("brand") != true {
                failures.append("\(name): the SecureStore client does not see the table apply made")
            }
        }
        // The service goes on: one more write, then it stops.
        _ = client.writeOnce(999)
        let acknowledged = try client.stop()
        if activity == .writing && delay == nil && acknowledged.isEmpty {
            failures.append("\(name): the client wrote nothing")
        }
        failures += try checkFinal(database, fileKind, operation: operation, acknowledged: acknowledged).map { "\(name): \($0)" }
        return failures
    }

    /// The invariants of the final file: it opens with exactly one of the
    /// keys (the old one: a replacement was refused, or, after a killed
    /// rekey, perhaps the new one), passes its integrity check, and holds
    /// every acknowledged row.
    private func checkFinal(_ database: String, _ fileKind: FileKind, operation: Operation,
                            acknowledged: [Int]) throws -> [String] {
        var candidates = [keying(fileKind)]
        if operation == .rekey { candidates.append(LiveClient.Keying(key: CipherKey(rawKey: Self.data(Self.newKey)), pragmas: "")) }
        if operation == .encrypt { candidates.append(keying(.encrypted)) }
        var opened: [(Int, Set<Int>, [String])] = []
        for (index, candidate) in candidates.enumerated() {
            var config = candidate.key?.configuration(readonly: true) ?? Configuration()
            config.readonly = true
            guard let dbQueue = try? DatabaseQueue(path: database, configuration: config),
                  let read = try? dbQueue.read({ db in
                      (Set(try Int.fetchAll(db, sql: "SELECT id FROM live")), try String.fetchAll(db, sql: "PRAGMA integrity_check"))
                  })
            else { continue }
            try dbQueue.close()
            opened.append((index, read.0, read.1))
        }
        guard opened.count == 1, let (_, ids, integrity) = opened.first else {
            return ["the file opens with \(opened.count) of the \(candidates.count) keys"]
        }
        var failures: [String] = []
        if integrity != ["ok"] { failures.append("integrity: \(integrity)") }
        let missing = Set(acknowledged).subtracting(ids)
        if !missing.isEmpty { failures.append("\(missing.count) acknowledged write(s) missing, e.g. \(missing.sorted().prefix(5))") }
        return failures
    }

    // MARK: Setup

    private static func data(_ hex: String) -> Data {
        Data(stride(from: 0, to: hex.count, by: 2).map { UInt8(hex.dropFirst($0).prefix(2), radix: 16)! })
    }

    private func keyFile(in folder: String) throws -> String {
        let file = folder + "/keys"
        let legacy = Self.line >= 4 ? "raw = \(Self.oldKey)" : "passphrase = legacy passphrase"
        try """
            [old]
            raw = \(Self.oldKey)
            [new]
            raw = \(Self.newKey)
            [legacy]
            \(legacy)
            """.write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o600)
        return file
    }

    /// How every client keys a file of this kind.
    private func keying(_ kind: FileKind) -> LiveClient.Keying {
        // Python's sqlcipher3 is SQLCipher 4: a 3.4.1 file needs its
        // settings (the 3.4.1 shell ignores the pragma).
        let compatibility = Self.line >= 4 ? "" : " PRAGMA cipher_compatibility = 3;"
        switch kind {
        case .plaintext:
            return LiveClient.Keying(key: nil, pragmas: "")
        case .encrypted:
            return LiveClient.Keying(key: CipherKey(rawKey: Self.data(Self.oldKey)),
                                     pragmas: "PRAGMA key = \"x'\(Self.oldKey)'\";\(compatibility)")
        case .legacy where Self.line >= 4:
            return LiveClient.Keying(key: CipherKey(rawKey: Self.data(Self.oldKey), settings: CipherSettings(compatibility: 3)),
                                     pragmas: "PRAGMA key = \"x'\(Self.oldKey)'\"; PRAGMA cipher_compatibility = 3;")
        case .legacy:
            // SQLCipher 2's 4,000 iterations.
            return LiveClient.Keying(key: CipherKey(passphrase: "legacy passphrase", settings: CipherSettings(kdfIterations: 4000)),
                                     pragmas: "PRAGMA key = 'legacy passphrase'; PRAGMA cipher_compatibility = 2; PRAGMA kdf_iter = 4000;")
        }
    }

    /// A database of ten rows in `live`, made by the `sqlcipher` shell.
    private func create(_ database: String, _ kind: FileKind) throws {
        let made = try CommandLineClient.sqlcipher(database, preamble: keying(kind).pragmas, sql: """
            CREATE TABLE live (id INTEGER PRIMARY KEY, note TEXT);
            INSERT INTO live (id) VALUES (1), (2), (3), (4), (5), (6), (7), (8), (9), (10);
            """)
        guard made.status == 0 else { throw LiveClientError("cannot create \(database): \(made.stderr)") }
        chmod(database, 0o600)
    }

    /// A migration that adds a table and an index.
    private func migrationsFolder(in folder: String) throws -> String {
        let migrations = folder + "/migrations"
        try FileManager.default.createDirectory(atPath: migrations, withIntermediateDirectories: false)
        try "CREATE TABLE brand (id INTEGER PRIMARY KEY, name TEXT NOT NULL);\nCREATE INDEX brand_name ON brand (name);\n"
            .write(toFile: migrations + "/0001_Brand.up.sql", atomically: true, encoding: .utf8)
        try "DROP INDEX brand_name;\nDROP TABLE brand;\n"
            .write(toFile: migrations + "/0001_Brand.down.sql", atomically: true, encoding: .utf8)
        return migrations
    }

    private func command(_ operation: Operation, _ database: String, folder: String, keys: String, old: [String],
                         migrations: String) -> [String] {
        switch operation {
        case .rekey: return ["rekey", database, "--new-key-file", keys, "--new-key-name", "new"] + old
        case .restore: return ["restore", database, "--from", folder + "/kept.db"] + old
        case .encrypt: return ["encrypt", database, "--key-file", keys, "--key-name", "old"]
        case .upgrade: return ["upgrade", database] + old
        case .apply: return ["apply", database, "--migrations", migrations] + old
        case .rollback: return ["rollback", database, "--steps", "1", "--migrations", migrations] + old
        case .status: return ["status", database, "--migrations", migrations] + old
        case .inspect: return ["inspect", database] + old
        case .verify: return ["verify", database] + old
        case .backup: return ["backup", database, "--output", folder + "/copy.db"] + old
        case .history: return ["history", database] + old
        case .audit: return ["audit", database] + old
        }
    }
}

/// A test case handed to the threads that run its cells, which only call
/// its functions that are safe from any thread (files in their own
/// folders, processes).
private struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// The cells' results, filled from several threads.
private final class CellResults: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result<[String], any Error>?]

    init(_ count: Int) { results = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ result: Result<[String], any Error>) { lock.withLock { results[index] = result } }

    func all() throws -> [[String]] { try lock.withLock { try results.map { try $0!.get() } } }
}
