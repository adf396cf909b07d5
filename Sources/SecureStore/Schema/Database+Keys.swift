// What the query interface asks of a table's keys.
extension Database {
    /// The column that identifies a row fastest (see
    /// ``PrimaryKeyInfo``). Throws for a WITHOUT ROWID table with a
    /// primary key of several columns.
    func fastPrimaryKeyColumn(_ table: String) throws -> String {
        guard let column = try primaryKey(table).fastPrimaryKeyColumn else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE,
                                message: "table \(table) has no rowid and a primary key of several columns: give its key columns")
        }
        return column
    }

    /// The primary key column of `filter(key:)` and `fetchOne(_:key:)`.
    func filteringPrimaryKeyColumn(_ table: String) throws -> String {
        let primaryKey = try self.primaryKey(table)
        guard primaryKey.columns.count == 1 else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE,
                                message: "table \(table) has a primary key of \(primaryKey.columns.count) columns: filter with a dictionary key instead")
        }
        return primaryKey.columns[0]
    }

    /// True if `column` is the rowid of `table`, under any of its names.
    func columnIsRowID(_ column: String, of table: String) throws -> Bool {
        let primaryKey = try self.primaryKey(table)
        return primaryKey.rowIDColumn?.isEqualIgnoringCase(column) == true
            || (primaryKey.tableHasRowID && column.isEqualIgnoringCase("rowid"))
    }

    /// The columns whose values tell whether a joined row exists: the rowid
    /// (by its own name if it has one), or the primary key.
    /// The primary key of a table or view; nil for a view that has none
    /// (no schema source gives it one).
    func primaryKeyUnlessKeylessView(_ table: String) throws -> PrimaryKeyInfo? {
        do {
            return try primaryKey(table)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR {
            if try viewExists(table) { return nil }
            throw error
        }
    }

    func existenceCheckColumns(in table: String) throws -> [String] {
        // A view without a primary key: a joined row exists when any of
        // its columns is not NULL.
        guard let primaryKey = try primaryKeyUnlessKeylessView(table) else {
            return try columns(in: table).map(\.name)
        }
        if let rowIDColumn = primaryKey.rowIDColumn { return [rowIDColumn] }
        return primaryKey.tableHasRowID ? ["rowid"] : primaryKey.columns
    }

    /// The columns of a unique key (primary key or unique index) made of
    /// some of `columns`, or nil when there is none.
    func columnsForUniqueKey(_ columns: some Collection<String>, in table: String) throws -> [String]? {
        let wanted = Set(columns.map { $0.lowercased() })
        guard !wanted.isEmpty else { return nil }
        // A view without a primary key has no unique key (and no index).
        guard let primaryKey = try primaryKeyUnlessKeylessView(table) else { return nil }
        if primaryKey.tableHasRowID && wanted == ["rowid"] { return ["rowid"] }
        if Set(primaryKey.columns.map { $0.lowercased() }).isSubset(of: wanted) { return primaryKey.columns }
        return try indexes(on: table).first { index in
            index.isUnique && Set(index.columns.map { $0.lowercased() }).isSubset(of: wanted)
        }?.columns
    }

    /// True if `columns` contain a unique key of `table`.
    ///
    /// ```swift
    /// try db.table("player", hasUniqueKey: ["email"])
    /// ```
    public func table(_ table: String, hasUniqueKey columns: some Collection<String>) throws -> Bool {
        try columnsForUniqueKey(columns, in: table) != nil
    }
}
