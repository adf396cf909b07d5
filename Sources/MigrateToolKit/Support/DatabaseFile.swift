import Foundation
import SecureStore

/// Checks on a database path before SQLCipher touches it, so that a wrong
/// path is reported plainly and no file is created by mistake.
enum DatabaseFile {
    enum Access {
        case read
        case write
    }

    static func check(_ path: String, for access: Access) throws {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == EACCES {
                throw ToolError(.ioError, "\(path): permission denied")
            }
            throw ToolError(.noSuchFile, "\(path): no such file (use `create` to make a new encrypted database)")
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw ToolError(.noSuchFile, "\(path) is a directory, not a database file")
        default: throw ToolError(.noSuchFile, "\(path) is not a regular file")
        }
        guard info.st_size > 0 else {
            throw ToolError(.notADatabase, "\(path) is empty (0 bytes): not a database; use `create` to make one")
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw ToolError(.ioError, "\(path): permission denied (cannot read it)")
        }
        // Mode bits, not access(2): root passes access() on read-only files.
        if access == .write && (info.st_mode & 0o222 == 0 || !FileManager.default.isWritableFile(atPath: path)) {
            throw ToolError(.ioError, "\(path) is read-only: this command changes the database (chmod u+w \(path))")
        }
    }

    static func size(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }

    /// Throws when the file ends inside a page: a file cut short. SQLite
    /// itself reports a file shorter than its header says only when a
    /// missing page is read, and it rounds a partial last page up, so a
    /// command that reads the schema only would not notice.
    private static func checkWholePages(_ path: String, _ dbQueue: DatabaseQueue) throws {
        let pageSize = try dbQueue.read { db in try Int.fetchOne(db, sql: "PRAGMA page_size") } ?? 0
        let fileSize = size(path)
        guard pageSize > 0, fileSize % Int64(pageSize) != 0 else { return }
        try? dbQueue.close()
        throw ToolError(.notADatabase, """
            \(path): the file is truncated or damaged: \(fileSize) bytes is not a whole number of \(pageSize)-byte pages \
            (restore it from a backup; `verify` tells more)
            """)
    }

    /// Opens the database, verifying the key. Read-only opens never create
    /// or change the file. `takesFileLock: false` is for the connections of
    /// a replacement, which holds the file's write lock.
    static func open(_ path: String, key: DatabaseKey?, readonly: Bool, busyTimeout: Double,
                     takesFileLock: Bool = true) throws -> DatabaseQueue {
        var config = key?.configuration(readonly: readonly) ?? {
            var plain = Configuration()
            plain.readonly = readonly
            return plain
        }()
        config.busyMode = .timeout(busyTimeout)
        config.takesFileLock = takesFileLock
        do {
            let dbQueue = try DatabaseQueue(path: path, configuration: config)
            try checkWholePages(path, dbQueue)
            return dbQueue
        } catch let error as ToolError {
            throw error
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            var message = error.message ?? "file is not a database"
            if let key { message += " [\(key.origin)]" }
            throw ToolError(.notADatabase, message)
        } catch {
            throw ErrorMapping.toolError(error, file: path)
        }
    }
}
