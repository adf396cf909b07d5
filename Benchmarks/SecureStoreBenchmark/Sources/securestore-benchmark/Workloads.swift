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

    var configuration: Configuration { makeConfiguration(key: key) }
}

/// Builds every case of the run. Files are made under `scratch`.
struct Workloads {
    let scratch: URL
    let items: [Item]

    func path(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    /// A file holding `items`, made with raw C (untimed).
    func populatedFile(_ name: String, mode: Mode) throws -> String {
        let file = path(name)
        try makeItemFile(file, items: items, key: mode.key)
        return file
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
            cases.append(queueOpenCase(file, mode: mode, variant: "passphrase", floor: "raw C raw key", query: query))
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
            cases.append(queueOpenCase(file, mode: mode, variant: "queue", floor: "raw C", query: query))
        }
        cases.append(try poolReaderCase(file, mode: mode, variant: "pool reader N", query: query))
        // A file with the iteration count SecureStore gives new files
        // (1,300,000 on SQLCipher 3.4.x): its open with no settings (which
        // tries the library's defaults and older formats first), and a
        // pool's reader, which derives nothing.
        if let key = mode.key, CipherSettings.newFileDefaults.kdfIterations != CipherSettings.libraryDefaults.kdfIterations {
            let strongFile = path("w3-new-file-kdf.db")
            try copyDatabase(file, to: strongFile)
            try Cipher.rekey(at: strongFile, from: CipherKey(passphrase: key), to: CipherKey(passphrase: key))
            cases.append(queueOpenCase(strongFile, mode: mode, variant: "passphrase, new-file KDF", floor: "raw C raw key", query: query))
            cases.append(try poolReaderCase(strongFile, mode: mode, variant: "pool reader N, new-file KDF", query: query))
        }
        return cases
    }

    /// A queue's open of `file` and its first query.
    private func queueOpenCase(_ file: String, mode: Mode, variant: String, floor: String, query: String) -> Case {
        Case(workload: "W3 open", mode: mode.name, variant: variant, floor: floor) {
            try seconds {
                let dbQueue = try DatabaseQueue(path: file, configuration: mode.configuration)
                _ = try dbQueue.read { try Int.fetchOne($0, sql: query) }
            }
        }
    }

    /// A pool's reader, on a copy of `file`: the writer (opened untimed)
    /// paid the key derivation; the reader opens with the derived key.
    private func poolReaderCase(_ file: String, mode: Mode, variant: String, query: String) throws -> Case {
        let poolFile = path("w3-pool-\(variant.filter(\.isLetter))-\(mode.name).db")
        try copyDatabase(file, to: poolFile)
        return Case(workload: "W3 open", mode: mode.name, variant: variant, floor: mode.key == nil ? "raw C" : "raw C raw key") {
            let dbPool = try DatabasePool(path: poolFile, configuration: mode.configuration)
            defer { try? dbPool.close() }
            return try seconds { _ = try dbPool.read { try Int.fetchOne($0, sql: query) } }
        }
    }

    // MARK: W4 rekey, encrypt

    /// The iteration count raw C gives new files (the library's default),
    /// for the crash-safe operations' new files: like with like, where
    /// SecureStore alone would give them 1,300,000 on SQLCipher 3.4.1.
    private var floorKDF: CipherSettings { CipherSettings(kdfIterations: CipherSettings.libraryDefaults.kdfIterations) }

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
                    try Cipher.rekey(at: work, from: CipherKey(passphrase: passphrase), to: CipherKey(passphrase: newPassphrase, settings: floorKDF))
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
                    try Cipher.encrypt(plaintextAt: plaintext, to: output, key: CipherKey(passphrase: passphrase, settings: floorKDF))
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
