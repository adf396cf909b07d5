/// The dumps of ``Database``, in a read of a queue or a pool.
///
/// ```swift
/// try dbQueue.dumpTables(["player", "team"])
/// ```
extension DatabaseReader {
    /// Prints the rows of every statement of `sql` (see ``Database/dumpSQL(_:format:to:)``).
    public func dumpSQL(_ sql: SQL, format: some DumpFormat = .debug(), to stream: (any TextOutputStream)? = nil) throws {
        try unsafeReentrantRead { db in try db.dumpSQL(sql, format: format, to: stream) }
    }

    /// Prints a request's rows and prefetched associations (see
    /// ``Database/dumpRequest(_:format:to:)``).
    public func dumpRequest(_ request: some FetchRequest, format: some DumpFormat = .debug(),
                            to stream: (any TextOutputStream)? = nil) throws {
        try unsafeReentrantRead { db in try db.dumpRequest(request, format: format, to: stream) }
    }

    /// Prints the rows of tables and views (see
    /// ``Database/dumpTables(_:format:tableHeader:stableOrder:to:)``).
    public func dumpTables(_ tables: [String], format: some DumpFormat = .debug(),
                           tableHeader: DumpTableHeaderOptions = .automatic, stableOrder: Bool = false,
                           to stream: (any TextOutputStream)? = nil) throws {
        try unsafeReentrantRead { db in
            try db.dumpTables(tables, format: format, tableHeader: tableHeader, stableOrder: stableOrder, to: stream)
        }
    }

    /// Prints the schema and every table's rows (see ``Database/dumpContent(format:to:)``).
    public func dumpContent(format: some DumpFormat = .debug(), to stream: (any TextOutputStream)? = nil) throws {
        try unsafeReentrantRead { db in try db.dumpContent(format: format, to: stream) }
    }

    /// Prints the schema (see ``Database/dumpSchema(to:)``).
    public func dumpSchema(to stream: (any TextOutputStream)? = nil) throws {
        try unsafeReentrantRead { db in try db.dumpSchema(to: stream) }
    }
}
