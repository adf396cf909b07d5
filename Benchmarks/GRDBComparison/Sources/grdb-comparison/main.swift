import Foundation
import GRDB
#if canImport(SQLCipher)
import SQLCipher
#else
import GRDBSQLite
#endif

// grdb-comparison [--rows N] [--authors N] [--transactions N] [--rounds R] [--only TEXT]...
//
// W1 (insert), W2 (fetch), W5 (associations) and W6 (observed commits) of
// BENCHMARKS.md with GRDB 7.10.0, beside the raw-C floor on the same SQLite:
// the system SQLite, plaintext, or (built with GRDB_SQLCIPHER_PACKAGE, see
// Package.swift) SQLCipher, encrypted with the passphrase securestore-benchmark
// uses, and plaintext.
// Lines starting with "RESULT\t" are for scripts/bench.sh.

extension Item: FetchableRecord, PersistableRecord {}

var rows = 100_000
var authors = 10_000
var transactions = 10_000
var rounds = 7
var only: [String] = []
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--rows": rows = Int(arguments.next() ?? "") ?? rows
    case "--authors": authors = Int(arguments.next() ?? "") ?? authors
    case "--transactions": transactions = Int(arguments.next() ?? "") ?? transactions
    case "--rounds": rounds = Int(arguments.next() ?? "") ?? rounds
    case "--only": only.append(arguments.next() ?? "")   // as securestore-benchmark: part of "workload|mode|variant"
    default:
        FileHandle.standardError.write(Data("usage: grdb-comparison [--rows N] [--authors N] [--transactions N] [--rounds R] [--only TEXT]...\n".utf8))
        exit(64)
    }
}

let scratch = try makeScratchDirectory()
defer { try? FileManager.default.removeItem(at: scratch) }
let items = makeItems(count: rows)

#if canImport(SQLCipher)
/// securestore-benchmark's passphrase, so that both libraries pay the same key derivation.
let modes: [(name: String, key: String?)] = [("encrypted", "benchmark passphrase"), ("plaintext", nil)]
let library = "GRDB on SQLCipher \(try DatabaseQueue().read { try String.fetchOne($0, sql: "PRAGMA cipher_version") } ?? "?")"
/// The first field of RESULT lines.
let resultName = "grdb-sqlcipher"
#else
let modes: [(name: String, key: String?)] = [("plaintext", nil)]
let library = "GRDB"
let resultName = "grdb"
#endif

var cases: [Case] = []
for (mode, key) in modes {
    cases += insertCases(items: items, file: scratch.appendingPathComponent("w1-\(mode).db").path, mode: mode, key: key)
    let fetchFile = scratch.appendingPathComponent("w2-\(mode).db").path
    try makeItemFile(fetchFile, items: items, key: key)
    cases += fetchCases(items: items, file: fetchFile, mode: mode, key: key)
    cases += try associationCases(library: makeLibrary(authors: authors),
                                  file: scratch.appendingPathComponent("w5-\(mode).db").path, mode: mode, key: key)
    cases += observationCases(count: transactions, file: scratch.appendingPathComponent("w6-\(mode).db").path,
                              mode: mode, key: key)
}

if !only.isEmpty {
    cases = cases.filter { item in only.contains { key(item).localizedCaseInsensitiveContains($0) } }
}
// A case GRDB cannot run on this SQLite is reported and left out of the
// later rounds, not fatal to the run: on SQLite 3.15.2, whose statements
// take 999 arguments at most, GRDB's W5 query `... WHERE authorId IN (?,
// ?, ...)` with 10,000 ids fails with "too many SQL variables", for one.
var failures: [String: String] = [:]
cases = cases.map { item in
    Case(workload: item.workload, mode: item.mode, variant: item.variant, floor: item.floor) {
        guard failures[key(item)] == nil else { return .nan }
        do {
            return try item.run()
        } catch {
            failures[key(item)] = String(String(describing: error).prefix(120)).replacingOccurrences(of: "\n", with: " ")
            return .nan
        }
    }
}

FileHandle.standardError.write(Data("\(library) on SQLite \(String(cString: sqlite3_libversion())): \(cases.count) cases, \(rows) rows, \(rounds) rounds\n".utf8))
let samples = try runInterleaved(cases, rounds: rounds) { FileHandle.standardError.write(Data("\($0)\n".utf8)) }
for item in cases {
    if let failure = failures[key(item)] {
        FileHandle.standardError.write(Data("\(key(item)) FAILED: \(failure)\n".utf8))
        print("FAILED\t\(resultName)\t\(item.workload)\t\(item.mode)\t\(item.variant)\t\(failure)")
        continue
    }
    let value = median(samples[key(item)] ?? [])
    let floorValue = median(samples["\(item.workload)|\(item.mode)|\(item.floor)"] ?? [])
    print("RESULT\t\(resultName)\t\(item.workload)\t\(item.mode)\t\(item.variant)\t\(value * 1000)\t\(floorValue * 1000)")
}
