import Foundation
@testable import MigrateToolKit
import PropertyBased
import SecureStore
import Testing

// Generated inputs for the two parsers that read files an operator writes:
// migration folders and key files. PropertyBased draws a seed per input
// (and reports the failing one); the input is built from that seed out of
// fragments that reach every branch (valid lines, near misses, quotes,
// comments, bytes that are not UTF-8) mixed with random bytes. Each
// property must hold without a crash or a hang, on SECURESTORE_FUZZ_COUNT
// inputs (2,000 by default, as in CI; RELIABILITY.md gives the command for
// 100,000).

private let count = Int(ProcessInfo.processInfo.environment["SECURESTORE_FUZZ_COUNT"] ?? "") ?? 2_000
private let seeds = Gen<UInt64>.value(in: 0...UInt64.max)

/// Text marking a secret: it must never show in an error message.
private let secretMark = "SECRET-VALUE"

/// SplitMix64: the same seed gives the same input.
private struct InputBuilder {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    mutating func pick(_ pieces: [String]) -> [UInt8] { Array(pieces[int(0...(pieces.count - 1))].utf8) }

    /// Random bytes, printable ASCII half of the time.
    mutating func noise() -> [UInt8] {
        let printable = next() % 2 == 0
        return (0..<int(0...24)).map { _ in printable ? UInt8(32 + next() % 95) : UInt8(truncatingIfNeeded: next()) }
    }

    /// A fragment most of the time, noise otherwise.
    mutating func piece(_ pieces: [String]) -> [UInt8] { int(0...9) < 8 ? pick(pieces) : noise() }
}

// MARK: Key files

private let keyFileLines = [
    "[current]", "[next]", "[ current ]", "[]", "[a b]", "[", "]", "[x", "# comment", "", "   ",
    "passphrase = \(secretMark)-1", "passphrase=\"  \(secretMark)-2  \"", "passphrase = \"\"", "passphrase =",
    "raw = " + String(repeating: "ab", count: 32), "raw = \(secretMark)", "raw = 12", "raw = x'" + String(repeating: "0", count: 64) + "'",
    "env = APP_KEY", "env =", "kdf_iter = 64000", "kdf_iter = -1", "kdf_iter = 99999999999999999999", "kdf_iter = 0x10",
    "page_size = 4096", "page_size = 1000", "page_size = 131072", "page_size = 256",
    "pasphrase = \(secretMark)-3", "\(secretMark) = value", "= \(secretMark)-4", "passphrase \(secretMark)-5",
    "passphrase = \(secretMark)-6 # not a comment", "\u{FEFF}[bom]", "[é]", "passphrase = caf\u{E9} \u{1F512}",
]

private func keyFile(_ seed: UInt64) -> [UInt8] {
    var builder = InputBuilder(state: seed)
    var bytes: [UInt8] = []
    for index in 0..<builder.int(0...12) {
        if index > 0 { bytes += builder.int(0...2) == 0 ? [13, 10] : [10] }
        bytes += builder.piece(keyFileLines)
    }
    return bytes
}

@Suite(.timeLimit(.minutes(10)))
struct KeyFileFuzzTests {
    @Test func keyFileParserNeverCrashesAndNeverShowsValues() async {
        await propertyCheck(count: count, input: seeds) { seed in
            let bytes = keyFile(seed)
            do {
                let file = try KeyFile.parse(bytes, path: "fuzz.keys")
                // A parsed file has at least one key, each with one source.
                #expect(!file.keyNames.isEmpty)
                for entry in file.entries {
                    let sources = [entry.passphrase != nil, entry.rawKey != nil, entry.environmentVariable != nil]
                    #expect(sources.filter { $0 }.count == 1)
                    if let raw = entry.rawKey { #expect(raw.count == 32) }
                    if let size = entry.settings.pageSize { #expect(size >= 512 && size <= 65536 && size & (size - 1) == 0) }
                    if let iterations = entry.settings.kdfIterations { #expect(iterations > 0) }
                }
                #expect(Set(file.keyNames).count == file.keyNames.count, "names are unique")
            } catch let error as ToolError {
                #expect(error.code == .configuration)
                #expect(error.message.hasPrefix("key file fuzz.keys"))
                #expect(!error.message.contains(secretMark), "a value shows in: \(error.message)")
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
    }

    @Test func keyTextNeverCrashes() async {
        await propertyCheck(count: count, input: seeds) { seed in
            var builder = InputBuilder(state: seed)
            let bytes = builder.piece(keyFileLines)
            do {
                let key = try DatabaseKey.fromText(SecretBytes(bytes), origin: "fuzz")
                #expect("\(key)".contains(secretMark) == false)
            } catch let error as ToolError {
                #expect(!error.message.contains(secretMark))
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
    }
}

// MARK: Migration folders

private let fileNames = [
    "0001_a.up.sql", "0001_a.down.sql", "0002_b.up.sql", "0002_b.down.sql", "0002_a.up.sql", "0003_c.down.sql",
    "1_x.up.sql", "01_x.up.sql", "_x.up.sql", "0001_.up.sql", "0001_a b.up.sql", "0001a.up.sql", "x_1.up.sql",
    "0004_Zalora-v4.up.sql", "0004_Zalora-v4.down.sql", "99999999999999999999999_big.up.sql", "0005_é.up.sql",
    "0006_tab\t.up.sql", "notes.txt", ".0007_hidden.up.sql", "0008_c.UP.sql", "-1_neg.up.sql", "0009_a.up.sql.sql",
]

private let sqlPieces = [
    "CREATE TABLE t (a);", "DROP TABLE t;", ";", ";;", " ", "\n", "\r\n", "\t", "-- comment", "-- comment\n",
    "/* block */", "/* unterminated", "*/", "/", "-", "--", "'quoted ; text'", "'unterminated", "\"ident\"",
    "SELECT 1", "BEGIN;", "COMMIT;", "é", "\u{1F512}",
]

private func sqlText(_ builder: inout InputBuilder) -> Data {
    Data((0..<builder.int(0...10)).flatMap { _ in builder.piece(sqlPieces) })
}

private func migrationFolder(_ seed: UInt64) -> [String: Data] {
    var builder = InputBuilder(state: seed)
    var files: [String: Data] = [:]
    for _ in 0..<builder.int(0...6) {
        let name = builder.int(0...9) < 8 ? String(decoding: builder.pick(fileNames), as: UTF8.self)
            : String(decoding: builder.noise(), as: UTF8.self) + ".up.sql"
        files[name] = sqlText(&builder)
    }
    return files
}

@Suite(.timeLimit(.minutes(10)))
struct MigrationFileFuzzTests {
    @Test func folderParserNeverCrashes() async {
        await propertyCheck(count: count, input: seeds) { seed in
            let files = migrationFolder(seed)
            do {
                let parsed = try SQLMigrationFile.parse(files: files, directory: URL(fileURLWithPath: "/fuzz"))
                // Numbers and identifiers are unique, in order; every up
                // file holds a statement; a down file matches its up file.
                #expect(parsed.map(\.number) == parsed.map(\.number).sorted())
                #expect(Set(parsed.map(\.number)).count == parsed.count)
                #expect(Set(parsed.map(\.identifier)).count == parsed.count)
                for migration in parsed {
                    #expect(SQLMigrationFile.containsStatement(migration.upSQL))
                    if let down = migration.downURL {
                        #expect(down.lastPathComponent.hasSuffix("_\(migration.identifier).down.sql"))
                    }
                }
            } catch let error as MigrationError {
                guard case .malformedFile = error else {
                    Issue.record("unexpected migration error \(error)")
                    return
                }
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
    }

    @Test func statementScannerNeverCrashes() async {
        await propertyCheck(count: count, input: seeds) { seed in
            var builder = InputBuilder(state: seed)
            let sql = String(decoding: sqlText(&builder), as: UTF8.self)
            let offset = builder.int(-5...300)
            let line = SQLMigrationFile.line(in: sql, atOffset: offset)
            #expect(line >= 1)
            #expect(line <= sql.utf8.filter { $0 == 10 }.count + 1)
            _ = SQLMigrationFile.containsStatement(sql)
        }
    }
}
