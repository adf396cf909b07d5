#if canImport(CSQLCipher)
import CSQLCipher
#elseif canImport(SQLCipher)
import SQLCipher
#else
import GRDBSQLite
#endif
import Foundation

// The floor: the same work through SQLite's C API (SQLCipher's here, the
// system SQLite's or SQLCipher's in grdb-comparison, which links this file), written as a
// careful C programmer would: prepared once, strings bound in place, no
// copies beyond what the API needs.

struct RawError: Error, CustomStringConvertible {
    var description: String
}

final class RawConnection {
    let handle: OpaquePointer

    /// Opens, keys (when `key` is given: a passphrase, or `x'..'` text) and
    /// reads sqlite_master, as every real open must to check the key.
    init(path: String, key: String?) throws {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK, let handle else {
            throw RawError(description: "cannot open \(path)")
        }
        self.handle = handle
        if let key {
            #if canImport(CSQLCipher) || canImport(SQLCipher)
            guard sqlite3_key(handle, key, Int32(key.utf8.count)) == SQLITE_OK else { throw RawError(description: "sqlite3_key") }
            #else
            throw RawError(description: "no encryption in the system SQLite (key \(key.count) bytes)")
            #endif
        }
        guard try scalar("SELECT count(*) FROM sqlite_master") >= 0 else { throw RawError(description: "unreachable") }
    }

    deinit { sqlite3_close_v2(handle) }

    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &message) == SQLITE_OK else {
            defer { sqlite3_free(message) }
            throw RawError(description: "\(sql): \(message.map { String(cString: $0) } ?? "?")")
        }
    }

    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw RawError(description: "prepare \(sql): \(String(cString: sqlite3_errmsg(handle)))")
        }
        return statement
    }

    func scalar(_ sql: String) throws -> Int64 {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw RawError(description: "no row: \(sql)") }
        return sqlite3_column_int64(statement, 0)
    }

    func insert(_ items: [Item]) throws {
        try execute("BEGIN")
        let statement = try prepare("INSERT INTO item (id, a, b, c) VALUES (?, ?, ?, ?)")
        defer { sqlite3_finalize(statement) }
        for item in items {
            sqlite3_bind_int64(statement, 1, item.id)
            sqlite3_bind_int64(statement, 2, item.a)
            sqlite3_bind_double(statement, 4, item.c)
            var b = item.b
            let code = b.withUTF8 { text in
                // SQLITE_STATIC: the text lives until the step below.
                _ = text.withMemoryRebound(to: CChar.self) {
                    sqlite3_bind_text(statement, 3, $0.baseAddress, Int32($0.count), nil)
                }
                return sqlite3_step(statement)
            }
            guard code == SQLITE_DONE else { throw RawError(description: "insert: \(code)") }
            sqlite3_reset(statement)
        }
        try execute("COMMIT")
    }

    func fetchAll() throws -> [Item] {
        let statement = try prepare("SELECT id, a, b, c FROM item")
        defer { sqlite3_finalize(statement) }
        var items: [Item] = []
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else { throw RawError(description: "fetch: \(code)") }
            let text = UnsafeRawBufferPointer(start: sqlite3_column_text(statement, 2),
                                              count: Int(sqlite3_column_bytes(statement, 2)))
            items.append(Item(id: sqlite3_column_int64(statement, 0),
                              a: sqlite3_column_int64(statement, 1),
                              b: String(decoding: text, as: UTF8.self),
                              c: sqlite3_column_double(statement, 3)))
        }
        return items
    }

    #if canImport(CSQLCipher)
    /// In-place re-encryption, as SQLCipher's own API does it.
    func rekey(_ key: String) throws {
        guard sqlite3_rekey(handle, key, Int32(key.utf8.count)) == SQLITE_OK else {
            throw RawError(description: "sqlite3_rekey: \(String(cString: sqlite3_errmsg(handle)))")
        }
    }
    #endif
}
