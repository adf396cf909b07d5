/// Erasing and compacting through a writer, as GRDB's `DatabaseWriter` does.
///
/// ```swift
/// try dbQueue.erase()     // an empty database, still encrypted with its key
/// try dbQueue.vacuum()
/// ```
extension DatabaseWriter {
    /// Drops every table, index, view and trigger, once no read runs. The
    /// file keeps its key and cipher settings.
    @_disfavoredOverload
    public func erase() throws {
        try barrierWriteWithoutTransaction { db in try db.eraseAllObjects() }
    }

    /// Rebuilds the file, returning free pages to the file system (`VACUUM`).
    @_disfavoredOverload
    public func vacuum() throws {
        try writeWithoutTransaction { db in try db.vacuum() }
    }

    /// A compacted copy in a new file (`VACUUM INTO`): needs SQLite 3.27,
    /// so it throws an error naming the missing feature here (see
    /// ``Database/vacuum(into:)``).
    @_disfavoredOverload
    public func vacuum(into filePath: String) throws {
        try writeWithoutTransaction { db in try db.vacuum(into: filePath) }
    }

    /// Async version of `erase()`.
    public func erase() async throws {
        try await barrierWriteWithoutTransaction { db in try db.eraseAllObjects() }
    }

    /// Async version of `vacuum()`.
    public func vacuum() async throws {
        try await writeWithoutTransaction { db in try db.vacuum() }
    }

    /// Async version of `vacuum(into:)`.
    public func vacuum(into filePath: String) async throws {
        try await writeWithoutTransaction { db in try db.vacuum(into: filePath) }
    }
}
