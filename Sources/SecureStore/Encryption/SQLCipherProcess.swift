import Foundation
internal import CSQLCipher

/// What SecureStore does once per process with the SQLCipher library, before
/// its first connection: it turns SQLite's memory statistics off, reads the
/// library's version and, on SQLCipher 4, turns off the log SQLCipher
/// writes to standard error by default.
///
/// SQLite's memory statistics (`SQLITE_CONFIG_MEMSTATUS`, on by default)
/// take a process-wide mutex at each allocation and free SQLite makes: an
/// inserted row paid about 8 atomic operations and 400 instructions for
/// them. Without them, `sqlite3_memory_used()` reads 0 and SQLite's heap
/// limits (`PRAGMA soft_heap_limit`, `hard_heap_limit`) are not enforced.
/// The setting can only change before SQLite initializes: when something
/// else in the process used SQLite first, it stays as it was.
///
/// SQLCipher 4 logs warnings and errors to the process's standard error
/// on Linux, from its first keyed connection on: a wrong key, or the
/// format detection of a SQLCipher 3 file, would print lines that the
/// thrown error already explains. Apps that want SQLCipher's log turn it
/// on with ``Database/enableCipherLogging(logLevel:target:)``. The log
/// settings are SQLCipher's process-wide state: they are changed here
/// once, and SQLCipher keeps them from then on.
enum SQLCipherProcess {
    struct Facts {
        var version: String
        var majorVersion: Int
    }

    /// Raw C calls: this runs while the line is being found, before any
    /// `Database` may open.
    static func start() -> Facts {
        // Before SQLite initializes (the open below), or not at all.
        _ = securestore_disable_memory_statistics()
        var handle: OpaquePointer?
        guard sqlite3_open_v2(":memory:", &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK,
              let handle else {
            sqlite3_close_v2(handle)
            return Facts(version: "unknown", majorVersion: 3)
        }
        defer { sqlite3_close_v2(handle) }
        let version = firstValue(handle, "PRAGMA cipher_version") ?? "unknown"
        let major = Int(version.prefix { $0.isNumber }) ?? 3
        if major >= 4 {
            // SQLCipher sets its default log (WARN, standard error) when its
            // first codec attaches; keying this scratch connection attaches
            // one, so that the level set afterwards is the one that stays.
            let key = Array("x'\(String(repeating: "0", count: 64))'".utf8)
            _ = sqlite3_key(handle, key, CInt(key.count))
            _ = firstValue(handle, "PRAGMA cipher_log_level = NONE")
        }
        return Facts(version: version, majorVersion: major)
    }

    /// True when SQLite counts the memory it uses: false once ``start()``
    /// ran first in the process, while any connection is open.
    static var keepsMemoryStatistics: Bool { sqlite3_memory_used() > 0 }

    private static func firstValue(_ handle: OpaquePointer, _ sql: String) -> String? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else { return nil }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else { return nil }
        return String(cString: text)
    }
}
