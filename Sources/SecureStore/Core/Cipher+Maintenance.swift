import Foundation

extension Cipher {
    /// Upgrades a SQLCipher 1.x or 2.x file to the SQLCipher 3 format in
    /// place (`PRAGMA cipher_migrate`), then checks that it opens with the
    /// key and SQLCipher 3's default settings. Make a backup first.
    ///
    /// cipher_migrate reports failure in its result row, not as an error:
    /// the row is read, and a wrong key (or a file that is neither 1.x nor
    /// 2.x) throws `SQLITE_NOTADB` and leaves the file as it was.
    public static func upgrade(at path: String, key: CipherKey) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "\(path): no such file")
        }
        if Database.hasPlaintextHeader(path: path) {
            throw DatabaseError(resultCode: .SQLITE_NOTADB,
                                message: "\(path) is not encrypted (a plaintext SQLite file): there is nothing to upgrade; use `encrypt`")
        }
        // cipher_migrate rewrites the file it is given. It works on a copy
        // beside the file, renamed over it once verified: a crash at any
        // moment leaves either the old file or the upgraded one, and the
        // next run removes the copy.
        removeStaleTemporaryFiles(for: path)
        let temporary = temporaryPath(for: path)
        var succeeded = false
        defer {
            if !succeeded {
                removeFileAndJournal(temporary)
                removeFileAndJournal(temporary + "-migrated")
            }
        }
        try FileManager.default.copyItem(atPath: path, toPath: temporary)
        // No custom settings: cipher_migrate tries the old formats itself,
        // and writes SQLCipher 3's defaults.
        let plainKey = CipherKey(material: key.material)
        let db = try Database(path: temporary, configuration: plainKey.configuration(), checksKey: false)
        let outcome = try String.fetchOne(db, sql: "PRAGMA cipher_migrate")
        try db.close()
        guard outcome == "0" else {
            throw DatabaseError(
                resultCode: .SQLITE_NOTADB,
                message: "\(path) was not upgraded: the key is wrong, or the file is not a database in a format SQLCipher 3 reads (1.x, 2.x or 3.x; SQLCipher 4 files cannot be read by SQLCipher 3). The file is unchanged")
        }
        let check = try Database(path: temporary, configuration: plainKey.configuration(readonly: true))
        try check.close()
        try fsync(path: temporary)
        try renameAtomically(temporary, to: path)
        succeeded = true
    }

    /// The result of ``verify(at:key:)``.
    public struct VerifyReport: Sendable, Hashable {
        /// `["ok"]`, or SQLite's integrity_check messages (at most 100).
        public var integrity: [String]
        /// The first damaged page named by the integrity check.
        public var damagedPage: Int?
        /// Tables whose rows could not all be read (HMAC or format errors).
        public var damagedTables: [String]
        /// Row counts of the tables that read fully.
        public var rowCounts: [String: Int]

        public var isOK: Bool { integrity == ["ok"] && damagedTables.isEmpty }
    }

    /// Checks a file: the key opens it (or `SQLITE_NOTADB` is thrown), the
    /// integrity check passes, and every row of every table reads, so that a
    /// page whose HMAC fails shows up with the page and table it hit.
    public static func verify(at path: String, key: CipherKey?) throws -> VerifyReport {
        let config = key?.configuration(readonly: true) ?? {
            var config = Configuration()
            config.readonly = true
            return config
        }()
        let db = try Database(path: path, configuration: config)
        let integrity = integrityCheck(db)
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
        return VerifyReport(integrity: integrity, damagedPage: firstPageNumber(in: integrity),
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
