import Foundation
import GRDB
import GRDBSQLite

// grdb-comparison [--rows N] [--authors N] [--transactions N] [--rounds R]
//
// W1 (insert), W2 (fetch), W5 (associations) and W6 (observed commits) of BENCHMARKS.md with GRDB 7.10.0 on the
// system SQLite, plaintext only, beside the raw-C floor on that SQLite.
// Lines starting with "RESULT\t" are for scripts/bench.sh.

extension Item: FetchableRecord, PersistableRecord {}

var rows = 100_000
var authors = 10_000
var transactions = 10_000
var rounds = 7
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--rows": rows = Int(arguments.next() ?? "") ?? rows
    case "--authors": authors = Int(arguments.next() ?? "") ?? authors
    case "--transactions": transactions = Int(arguments.next() ?? "") ?? transactions
    case "--rounds": rounds = Int(arguments.next() ?? "") ?? rounds
    case "--only": _ = arguments.next()   // securestore-benchmark's filter; GRDB runs every case
    default:
        FileHandle.standardError.write(Data("usage: grdb-comparison [--rows N] [--authors N] [--transactions N] [--rounds R]\n".utf8))
        exit(64)
    }
}

let scratch = try makeScratchDirectory()
defer { try? FileManager.default.removeItem(at: scratch) }
let items = makeItems(count: rows)
let insertFile = scratch.appendingPathComponent("w1.db").path
let fetchFile = scratch.appendingPathComponent("w2.db").path
removeDatabase(fetchFile)
do {
    let raw = try RawConnection(path: fetchFile, key: nil)
    try raw.execute(createTable)
    try raw.insert(items)
}

func emptyFile() throws {
    removeDatabase(insertFile)
    try RawConnection(path: insertFile, key: nil).execute(createTable)
}
func check(_ count: Int) throws {
    guard count == items.count else { throw RawError(description: "W1 inserted \(count) rows") }
}
func check(_ fetched: [Item]) throws {
    guard fetched == items else { throw RawError(description: "W2 fetched different rows") }
}

let cases = try [
    Case(workload: "W1 insert", mode: "plaintext", variant: "raw C", floor: "raw C") {
        try emptyFile()
        let connection = try RawConnection(path: insertFile, key: nil)
        let time = try seconds { try connection.insert(items) }
        try check(Int(connection.scalar("SELECT count(*) FROM item")))
        return time
    },
    Case(workload: "W1 insert", mode: "plaintext", variant: "statement", floor: "raw C") {
        try emptyFile()
        let dbQueue = try DatabaseQueue(path: insertFile)
        let time = try seconds {
            try dbQueue.write { db in
                let statement = try db.makeStatement(sql: "INSERT INTO item (id, a, b, c) VALUES (?, ?, ?, ?)")
                for item in items {
                    try statement.execute(arguments: [item.id, item.a, item.b, item.c])
                }
            }
        }
        try check(dbQueue.read { try Item.fetchCount($0) })
        return time
    },
    Case(workload: "W1 insert", mode: "plaintext", variant: "Codable record", floor: "raw C") {
        try emptyFile()
        let dbQueue = try DatabaseQueue(path: insertFile)
        let time = try seconds {
            try dbQueue.write { db in
                for item in items { try item.insert(db) }
            }
        }
        try check(dbQueue.read { try Item.fetchCount($0) })
        return time
    },
    Case(workload: "W2 fetch", mode: "plaintext", variant: "raw C", floor: "raw C") {
        let connection = try RawConnection(path: fetchFile, key: nil)
        var fetched: [Item] = []
        let time = try seconds { fetched = try connection.fetchAll() }
        try check(fetched)
        return time
    },
    Case(workload: "W2 fetch", mode: "plaintext", variant: "Row", floor: "raw C") {
        let dbQueue = try DatabaseQueue(path: fetchFile)
        var fetched: [Item] = []
        let time = try seconds {
            fetched = try dbQueue.read { db in
                var result: [Item] = []
                let rows = try Row.fetchCursor(db, sql: "SELECT id, a, b, c FROM item")
                while let row = try rows.next() {
                    result.append(Item(id: row[0], a: row[1], b: row[2], c: row[3]))
                }
                return result
            }
        }
        try check(fetched)
        return time
    },
    Case(workload: "W2 fetch", mode: "plaintext", variant: "Decodable record", floor: "raw C") {
        let dbQueue = try DatabaseQueue(path: fetchFile)
        var fetched: [Item] = []
        let time = try seconds { fetched = try dbQueue.read { try Item.fetchAll($0) } }
        try check(fetched)
        return time
    },
] + associationCases(library: makeLibrary(authors: authors), file: scratch.appendingPathComponent("w5.db").path,
                     mode: "plaintext", key: nil)
  + observationCases(count: transactions, file: scratch.appendingPathComponent("w6.db").path, mode: "plaintext", key: nil)

FileHandle.standardError.write(Data("GRDB on SQLite \(String(cString: sqlite3_libversion())): \(cases.count) cases, \(rows) rows, \(rounds) rounds\n".utf8))
let samples = try runInterleaved(cases, rounds: rounds) { FileHandle.standardError.write(Data("\($0)\n".utf8)) }
for item in cases {
    let value = median(samples[key(item)] ?? [])
    let floorValue = median(samples["\(item.workload)|\(item.mode)|\(item.floor)"] ?? [])
    print("RESULT\tgrdb\t\(item.workload)\t\(item.mode)\t\(item.variant)\t\(value * 1000)\t\(floorValue * 1000)")
}
