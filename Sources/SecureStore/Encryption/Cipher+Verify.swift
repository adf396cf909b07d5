import Foundation

extension Cipher {
    /// The result of ``verify(at:key:)``.
    public struct VerifyReport: Sendable, Hashable {
        /// `["ok"]`, or SQLite's integrity_check messages (at most 100).
        public var integrity: [String]
        /// The pages whose HMAC fails, as SQLCipher 4's `PRAGMA
        /// cipher_integrity_check` reports them (every page is checked
        /// without decrypting into the schema): empty when all are intact;
        /// nil on SQLCipher 3, which has no such check.
        public var cipherIntegrity: [String]?
        /// The first damaged page named by the integrity check.
        public var damagedPage: Int?
        /// Tables whose rows could not all be read (HMAC or format errors).
        public var damagedTables: [String]
        /// Row counts of the tables that read fully.
        public var rowCounts: [String: Int]

        /// True when the integrity checks passed and every table read.
        public var isOK: Bool { integrity == ["ok"] && (cipherIntegrity ?? []).isEmpty && damagedTables.isEmpty }
    }

    /// Checks a file: the key opens it (or `SQLITE_NOTADB` is thrown), the
    /// integrity check passes, every page's HMAC checks out (SQLCipher 4),
    /// and every row of every table reads, so that a page whose HMAC fails
    /// shows up with the page and table it hit.
    public static func verify(at path: String, key: CipherKey?) throws -> VerifyReport {
        let config = readonlyConfiguration(key)
        let db = try Database(path: path, configuration: config)
        let integrity = integrityCheck(db)
        let cipherIntegrity = db.isKeyed ? try SQLCipherLibrary.line.cipherIntegrityCheck(db) : nil
        let tables = try String.fetchAll(db, sql: """
            SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name
            """)
        try db.close()

        var damaged: [String] = []
        var counts: [String: Int] = [:]
        for table in tables {
            // A fresh connection per table: after an HMAC failure SQLCipher
            // keeps failing every read of the connection that saw it.
            do {
                let scan = try Database(path: path, configuration: config)
                defer { try? scan.close() }
                let rows = try Row.fetchCursor(scan, sql: "SELECT * FROM \(table.quotedDatabaseIdentifier)")
                var count = 0
                while let row = try rows.next() {
                    _ = row.databaseValues
                    count += 1
                }
                counts[table] = count
            } catch {
                damaged.append(table)
            }
        }
        return VerifyReport(integrity: integrity, cipherIntegrity: cipherIntegrity,
                            damagedPage: firstPageNumber(in: cipherIntegrity ?? []) ?? firstPageNumber(in: integrity),
                            damagedTables: damaged, rowCounts: counts)
    }

    /// The N of the first "Page N" or "page N" in integrity_check messages.
    static func firstPageNumber(in messages: [String]) -> Int? {
        for message in messages where message != "ok" {
            let words = message.split(whereSeparator: { $0 == " " || $0 == ":" })
            for (index, word) in words.enumerated() where word.lowercased() == "page" && index + 1 < words.count {
                if let number = Int(words[index + 1]) { return number }
            }
        }
        return nil
    }
}
