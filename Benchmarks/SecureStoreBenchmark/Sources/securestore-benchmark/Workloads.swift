import Foundation
import SecureStore

extension Item: FetchableRecord, PersistableRecord {}

let passphrase = "benchmark passphrase"
let newPassphrase = "another benchmark passphrase"
/// A raw 256-bit key (test value, not a secret).
let rawKeyHex = String(repeating: "2b7e151628aed2a6abf7158809cf4f3c", count: 2)

/// Encrypted (passphrase) or plaintext.
struct Mode {
    var name: String
    var key: String?

    static let encrypted = Mode(name: "encrypted", key: passphrase)
    static let plaintext = Mode(name: "plaintext", key: nil)

    var configuration: Configuration {
        var config = Configuration()
        if let key {
            config.prepareDatabase { db in try db.usePassphrase(key) }
        }
        return config
    }
}

/// Builds every case of the run. Files are made under `scratch`.
struct Workloads {
    let scratch: URL
    let items: [Item]

    func path(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    /// A file holding `items`, made with raw C (untimed).
    func populatedFile(_ name: String, mode: Mode) throws -> String {
        let file = path(name)
        removeDatabase(file)
        let raw = try RawConnection(path: file, key: mode.key)
        try raw.execute(createTable)
        try raw.insert(items)
        return file
    }

    // MARK: W1 insert

    func insertCases(mode: Mode) -> [Case] {
        let file = path("w1-\(mode.name).db")
        let items = self.items
        func emptyFile() throws {
            removeDatabase(file)
            try RawConnection(path: file, key: mode.key).execute(createTable)
        }
        func check(_ count: Int64) throws {
            guard count == items.count else { throw RawError(description: "W1 inserted \(count) rows") }
        }
        let raw = Case(workload: "W1 insert", mode: mode.name, variant: "raw C", floor: "raw C") {
            try emptyFile()
            let connection = try RawConnection(path: file, key: mode.key)
            let time = try seconds { try connection.insert(items) }
            try check(connection.scalar("SELECT count(*) FROM item"))
            return time
        }
        let statement = Case(workload: "W1 insert", mode: mode.name, variant: "statement", floor: "raw C") {
            try emptyFile()
            let dbQueue = try DatabaseQueue(path: file, configuration: mode.configuration)
            let time = try seconds {
                try dbQueue.write { db in
                    let statement = try db.makeStatement(sql: "INSERT INTO item (id, a, b, c) VALUES (?, ?, ?, ?)")
                    for item in items {
                        try statement.execute(arguments: [item.id, item.a, item.b, item.c])
                    }
                }
            }
            try check(Int64(dbQueue.read { try Item.fetchCount($0) }))
            return time
        }
        let codable = Case(workload: "W1 insert", mode: mode.name, variant: "Codable record", floor: "raw C") {
            try emptyFile()
            let dbQueue = try DatabaseQueue(path: file, configuration: mode.configuration)
            let time = try seconds {
                try dbQueue.write { db in
                    for item in items { try item.insert(db) }
                }
            }
            try check(Int64(dbQueue.read { try Item.fetchCount($0) }))
            return time
        }
        return [raw, statement, codable]
    }

    // MARK: W2 fetch

    func fetchCases(mode: Mode) throws -> [Case] {
        let file = try populatedFile("w2-\(mode.name).db", mode: mode)
        let expected = items
        func check(_ fetched: [Item]) throws {
            guard fetched == expected else { throw RawError(description: "W2 fetched \(fetched.count) different rows") }
        }
        let raw = Case(workload: "W2 fetch", mode: mode.name, variant: "raw C", floor: "raw C") {
            let connection = try RawConnection(path: file, key: mode.key)
            var fetched: [Item] = []
            let time = try seconds { fetched = try connection.fetchAll() }
            try check(fetched)
            return time
        }
        let row = Case(workload: "W2 fetch", mode: mode.name, variant: "Row", floor: "raw C") {
            let dbQueue = try DatabaseQueue(path: file, configuration: mode.configuration)
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
        }
        let decodable = Case(workload: "W2 fetch", mode: mode.name, variant: "Decodable record", floor: "raw C") {
            let dbQueue = try DatabaseQueue(path: file, configuration: mode.configuration)
            var fetched: [Item] = []
            let time = try seconds { fetched = try dbQueue.read { try Item.fetchAll($0) } }
            try check(fetched)
            return time
        }
        return [raw, row, decodable]
    }

    // MARK: W3 open + key + first query

    func openCases(mode: Mode) throws -> [Case] {
        let file = try populatedFile("w3-\(mode.name).db", mode: mode)
        // The first query reads one row through the primary key.
        let query = "SELECT a FROM item WHERE id = 1"
        var cases: [Case] = []
        if let key = mode.key {
            cases.append(Case(workload: "W3 open", mode: mode.name, variant: "raw C passphrase", floor: "raw C raw key") {
                try seconds { _ = try RawConnection(path: file, key: key).scalar(query) }
            })
            cases.append(Case(workload: "W3 open", mode: mode.name, variant: "passphrase", floor: "raw C raw key") {
                try seconds {
                    let dbQueue = try DatabaseQueue(path: file, configuration: mode.configuration)
                    _ = try dbQueue.read { try Int.fetchOne($0, sql: query) }
                }
            })
            let rawKeyText = "x'\(rawKeyHex)'"
            let rawKeyFile = try populatedFile("w3-rawkey.db", mode: Mode(name: "raw key", key: rawKeyText))
            cases.append(Case(workload: "W3 open", mode: mode.name, variant: "raw C raw key", floor: "raw C raw key") {
                try seconds { _ = try RawConnection(path: rawKeyFile, key: rawKeyText).scalar(query) }
            })
            cases.append(Case(workload: "W3 open", mode: mode.name, variant: "raw key", floor: "raw C raw key") {
                var config = Configuration()
                config.prepareDatabase { db in try db.useRawKey(Data(hex: rawKeyHex)) }
                return try seconds {
                    let dbQueue = try DatabaseQueue(path: rawKeyFile, configuration: config)
                    _ = try dbQueue.read { try Int.fetchOne($0, sql: query) }
                }
            })
        } else {
            cases.append(Case(workload: "W3 open", mode: mode.name, variant: "raw C", floor: "raw C") {
                try seconds { _ = try RawConnection(path: file, key: nil).scalar(query) }
            })
            cases.append(Case(workload: "W3 open", mode: mode.name, variant: "queue", floor: "raw C") {
                try seconds {
                    let dbQueue = try DatabaseQueue(path: file, configuration: mode.configuration)
                    _ = try dbQueue.read { try Int.fetchOne($0, sql: query) }
                }
            })
        }
        // A pool's reader: the writer (opened untimed) paid the key
        // derivation; the reader opens with the derived key.
        let poolFile = path("w3-pool-\(mode.name).db")
        try copyDatabase(file, to: poolFile)
        cases.append(Case(workload: "W3 open", mode: mode.name, variant: "pool reader N",
                          floor: mode.key == nil ? "raw C" : "raw C raw key") {
            let dbPool = try DatabasePool(path: poolFile, configuration: mode.configuration)
            defer { try? dbPool.close() }
            return try seconds { _ = try dbPool.read { try Int.fetchOne($0, sql: query) } }
        })
        return cases
    }

    // MARK: W4 rekey, encrypt

    func rekeyCases() throws -> [Case] {
        let encrypted = try populatedFile("w4-encrypted.db", mode: .encrypted)
        let plaintext = try populatedFile("w4-plaintext.db", mode: .plaintext)
        let work = path("w4-work.db")
        let output = path("w4-output.db")
        func verify(_ file: String, key: String) throws {
            guard try RawConnection(path: file, key: key).scalar("SELECT count(*) FROM item") == items.count else {
                throw RawError(description: "W4: \(file) lost rows")
            }
        }
        return [
            Case(workload: "W4 rekey", mode: "encrypted", variant: "raw C sqlite3_rekey", floor: "raw C sqlite3_rekey") {
                try copyDatabase(encrypted, to: work)
                let time = try seconds { try RawConnection(path: work, key: passphrase).rekey(newPassphrase) }
                try verify(work, key: newPassphrase)
                return time
            },
            Case(workload: "W4 rekey", mode: "encrypted", variant: "changePassphrase", floor: "raw C sqlite3_rekey") {
                try copyDatabase(encrypted, to: work)
                let time = try seconds {
                    let dbQueue = try DatabaseQueue(path: work, configuration: Mode.encrypted.configuration)
                    try dbQueue.writeWithoutTransaction { try $0.changePassphrase(newPassphrase) }
                    try dbQueue.close()
                }
                try verify(work, key: newPassphrase)
                return time
            },
            Case(workload: "W4 rekey", mode: "encrypted", variant: "Cipher.rekey (crash-safe)", floor: "raw C sqlite3_rekey") {
                try copyDatabase(encrypted, to: work)
                let time = try seconds {
                    try Cipher.rekey(at: work, from: CipherKey(passphrase: passphrase), to: CipherKey(passphrase: newPassphrase))
                }
                try verify(work, key: newPassphrase)
                return time
            },
            Case(workload: "W4 encrypt", mode: "encrypted", variant: "raw C sqlcipher_export", floor: "raw C sqlcipher_export") {
                removeDatabase(output)
                let time = try seconds {
                    let connection = try RawConnection(path: plaintext, key: nil)
                    try connection.execute("ATTACH DATABASE '\(output)' AS encrypted KEY '\(passphrase)'")
                    try connection.execute("SELECT sqlcipher_export('encrypted')")
                    try connection.execute("DETACH DATABASE encrypted")
                }
                try verify(output, key: passphrase)
                return time
            },
            Case(workload: "W4 encrypt", mode: "encrypted", variant: "Cipher.encrypt (crash-safe)", floor: "raw C sqlcipher_export") {
                removeDatabase(output)
                let time = try seconds {
                    try Cipher.encrypt(plaintextAt: plaintext, to: output, key: CipherKey(passphrase: passphrase))
                }
                try verify(output, key: passphrase)
                return time
            },
        ]
    }
}

extension Data {
    init(hex: String) {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        self.init(bytes)
    }
}
