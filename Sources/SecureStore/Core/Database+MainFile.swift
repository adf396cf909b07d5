import Foundation
internal import CSQLCipher

// The bytes of the database file, read through SQLite's own file layer.
//
// SQLite's locks are POSIX locks, and closing any descriptor of a file
// drops every lock the process holds on it. SQLite's file layer keeps the
// descriptors of a file that its connections lock open until the locks go;
// a descriptor of our own, once closed, would take the locks of every
// connection that has the file open, and another process could then take
// itself for the WAL's last user, checkpoint it and delete it. So what
// reads a database file that may be open goes through SQLite.
extension Database {
    /// True for a path that SQLite opens as a file of its own: not
    /// `:memory:`, a temporary database (an empty path), or a URI.
    static func isFileBacked(_ path: String) -> Bool {
        !path.isEmpty && path != ":memory:" && !path.hasPrefix("file:")
    }

    /// Throws `SQLITE_READONLY_DBMOVED` when the connection's file was
    /// renamed, replaced or deleted since it opened (SQLite's
    /// `SQLITE_FCNTL_HAS_MOVED`: one `stat` of the path). Called before a
    /// statement that starts a transaction: SQLite itself notices it only
    /// before writing a rollback journal, and a WAL connection would write
    /// on into the old file's WAL, each commit reported a success.
    func checkFileNotMoved(_ statement: Statement) throws {
        var moved: CInt = 0
        guard sqlite3_file_control(sqliteConnection, "main", SQLITE_FCNTL_HAS_MOVED, &moved) == SQLITE_OK,
              moved != 0 else { return }
        throw DatabaseError(resultCode: .SQLITE_READONLY_DBMOVED, message: """
            the database file \(path) was replaced, moved or deleted after this connection opened it (a restore, a \
            rekey, or another program): close the database and open it again
            """, sql: statement.sql)
    }

    /// The first `count` bytes of the database file (nil for a file that
    /// holds fewer, or none).
    func fileHeader(count: Int, schema: String = "main") -> Data? {
        withMainFile(schema: schema) { file, methods in
            var header = Data(count: count)
            let code = header.withUnsafeMutableBytes { methods.xRead(file, $0.baseAddress, Int32(count), 0) }
            return code == SQLITE_OK ? header : nil
        } ?? nil
    }

    /// The salt SQLCipher keeps in the first 16 bytes of an encrypted file
    /// (nil for a new file, or one that starts with SQLite's magic string).
    var fileSalt: Data? { fileSalt(schema: "main") }

    /// The salt of the file of `schema`, `main` or an attached database
    /// (see ``fileSalt``).
    func fileSalt(schema: String) -> Data? {
        guard let salt = fileHeader(count: 16, schema: schema), salt != Database.magicHeader.prefix(16) else { return nil }
        return salt
    }

    /// True if the file is an unencrypted SQLite database (see
    /// ``hasPlaintextHeader(path:)``).
    var fileHasPlaintextHeader: Bool {
        fileHeader(count: 21).map(Database.isPlaintextHeader) ?? false
    }

    /// Copies the database file, byte for byte, into a new private file
    /// (0600, `O_EXCL`), then fsyncs it: a backup of an encrypted file
    /// stays encrypted, with its key and settings. The caller keeps
    /// writers out (a write transaction) and folds a WAL into the file
    /// first. The connection's locks stay as they are.
    package func copyMainFile(to target: String) throws {
        let copied: Void? = try withMainFile { file, methods in
            var size: sqlite3_int64 = 0
            let sizeCode = methods.xFileSize(file, &size)
            guard sizeCode == SQLITE_OK else {
                throw DatabaseError(resultCode: ResultCode(rawValue: sizeCode), message: "cannot read the size of \(path)")
            }
            try PrivateFile.write(to: target) { offset in
                let count = Int(min(Int64(1 << 20), Int64(size) - offset))
                guard count > 0 else { return Data() }
                var chunk = Data(count: count)
                let code = chunk.withUnsafeMutableBytes { methods.xRead(file, $0.baseAddress, Int32(count), offset) }
                guard code == SQLITE_OK else {
                    throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "cannot read \(path)")
                }
                return chunk
            }
        }
        guard copied != nil else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "\(description) has no database file to copy")
        }
    }

    /// After an open that failed, once its connection is closed: removes
    /// the `-wal` and `-shm` files that the key check created (see
    /// `verifyReadableDetectingFormat`). SQLite deletes them itself only at
    /// the close of a connection that holds the write lock, which a
    /// read-only connection cannot take; and it takes an empty `-wal` for
    /// no WAL, so no later connection deletes them either.
    ///
    /// They are removed as SQLite removes a WAL: under an exclusive lock on
    /// the database, taken through SQLite's own file layer (which knows the
    /// other connections of this process), and only while the `-wal` holds
    /// nothing. A connection that uses the file in WAL mode holds a shared
    /// lock all along: while one does, in any process, nothing is removed.
    func removeFilesOfFailedProbes() {
        defer { filesOfFailedProbes = [] }
        let walIsEmpty = { (PrivateFile.size(of: self.path + "-wal") ?? 0) == 0 }
        guard filesOfFailedProbes.contains(where: { PrivateFile.size(of: $0) != nil }), walIsEmpty() else { return }
        Database.withFile(path, flags: SQLITE_OPEN_READWRITE) { file, methods in
            guard methods.xLock(file, SQLITE_LOCK_SHARED) == SQLITE_OK else { return }
            defer { _ = methods.xUnlock(file, SQLITE_LOCK_NONE) }
            guard methods.xLock(file, SQLITE_LOCK_EXCLUSIVE) == SQLITE_OK, walIsEmpty() else { return }
            for probeFile in filesOfFailedProbes { unlink(probeFile) }
        }
    }

    /// True if the file is an unencrypted SQLite database: it starts with
    /// "SQLite format 3\0" and reserves no room per page for SQLCipher's
    /// IV and HMAC.
    ///
    /// An encrypted file usually starts with its random salt. One made with
    /// `cipher_plaintext_header_size` (iOS app groups) starts with the magic
    /// too, but its header's reserved-bytes field (byte 20) holds the 16 to
    /// 80 bytes SQLCipher keeps at the end of every page: this returns false
    /// for it. The file is read through SQLite, so connections of this
    /// process that have it open keep their locks.
    public static func hasPlaintextHeader(path: String) -> Bool {
        withFile(path, flags: SQLITE_OPEN_READONLY) { file, methods in
            var header = Data(count: 21)
            let code = header.withUnsafeMutableBytes { methods.xRead(file, $0.baseAddress, 21, 0) }
            return code == SQLITE_OK && isPlaintextHeader(header)
        } ?? false
    }

    private static let magicHeader = Data("SQLite format 3\0".utf8)

    private static func isPlaintextHeader(_ header: Data) -> Bool {
        header.count == 21 && header.prefix(16) == magicHeader && header[header.startIndex + 20] < 16
    }

    /// Runs `body` with the database file of `schema` (this connection's
    /// own file unless it names an attached one), as SQLite's file layer
    /// holds it (nil when there is none: an in-memory or temporary
    /// database not written yet).
    private func withMainFile<T>(
        schema: String = "main", _ body: (UnsafeMutablePointer<sqlite3_file>, sqlite3_io_methods) throws -> T
    ) rethrows -> T? {
        var file: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(sqliteConnection, schema, SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK,
              let file, let methods = file.pointee.pMethods?.pointee
        else { return nil }
        return try body(file, methods)
    }

    /// Runs `body` with the database file at `path`, opened by SQLite's file
    /// layer through a connection without a key that reads nothing (nil
    /// when SQLite cannot open it).
    private static func withFile<T>(
        _ path: String, flags: Int32, _ body: (UnsafeMutablePointer<sqlite3_file>, sqlite3_io_methods) -> T
    ) -> T? {
        guard !path.isEmpty, path != ":memory:" else { return nil }
        // The process-wide settings are made before SQLite first opens.
        _ = SQLCipherLibrary.line
        var handle: OpaquePointer?
        defer { sqlite3_close_v2(handle) }
        var file: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_open_v2(path, &handle, flags | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
              sqlite3_file_control(handle, "main", SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK,
              let file, let methods = file.pointee.pMethods?.pointee
        else { return nil }
        return body(file, methods)
    }
}
