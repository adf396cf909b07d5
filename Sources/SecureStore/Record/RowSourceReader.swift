/// Where a ``RowKeyedContainer`` reads its values: a live statement (a
/// cursor's row) or a row (a copy, a scope, prefetched rows).
///
/// One reference, for two reasons. The standard library's container box
/// copies the container for every decoded property, and a class is one
/// retain. And the type is not generic: the container is generic over its
/// `CodingKey`, which the library never knows, so code inside it is never
/// specialized for the value types it reads; the methods here are, for each
/// concrete type a container asks for (measured on prefetched rows: reading
/// one value cost about 130 ns through the container's own generic code).
final class RowSourceReader {
    enum Source {
        case statement(Statement)
        case row(Row)
    }

    /// The row or statement being decoded.
    var source: Source {
        if let ownedSource { return ownedSource }
        // Only a reader that has borrowed a row has no source of its own.
        return .row(borrowedRow!)
    }
    private let ownedSource: Source?
    /// The row of a reader that ``RowDecodingCache`` moves from one copied
    /// row to the next. Not retained: the row retains the cache, which
    /// retains this reader. The row is alive while its record decodes, the
    /// only time the cache hands out this reader's container.
    private unowned(unsafe) var borrowedRow: Row?
    /// Where the keys were found by the previous records, when records of
    /// one type share it (a cursor's statement, the copies of its rows).
    let plan: ColumnPlan?
    /// The statement handle of `.statement` sources, kept apart so that
    /// reading a column does not retain the statement.
    let handle: SQLiteStatement?
    /// The values of a copied row, read without going through the row
    /// (nil for other rows; valid while the row is).
    private var values: UnsafeMutablePointer<DatabaseValue>?
    private var valueCount = 0
    /// The key decoded from the whole row, for sources without a plan.
    var decodedRootKey: String?
    /// The record type being decoded, for its strategies.
    let recordType: any FetchableRecord.Type
    /// The coding path of the container (kept here, so that the container
    /// is a single reference).
    let codingPath: [any CodingKey]
    /// The column of each key, when the record's column strategy is not
    /// `.useDefaultKeys`.
    let columnForKey: [String: String]?

    init(source: Source, plan: ColumnPlan?, recordType: any FetchableRecord.Type, codingPath: [any CodingKey] = []) {
        ownedSource = source
        self.codingPath = codingPath
        self.plan = plan
        self.recordType = recordType
        (values, valueCount) = Self.values(of: source)
        if case .statement(let statement) = source { handle = statement.sqliteStatement } else { handle = nil }
        columnForKey = Self.columnForKey(recordType: recordType, source: source)
    }

    private static func columnForKey(recordType: any FetchableRecord.Type, source: Source) -> [String: String]? {
        let strategy = recordType.databaseColumnDecodingStrategy
        if strategy.isDefault { return nil }
        var map: [String: String] = [:]
        for column in columnNames(of: source) where map[strategy.keyName(forColumn: column)] == nil {
            map[strategy.keyName(forColumn: column)] = column
        }
        return map
    }

    /// A reader of copied rows, moved from one to the next with ``borrow(_:)``.
    init(borrowing row: Row, plan: ColumnPlan, recordType: any FetchableRecord.Type) {
        ownedSource = nil
        codingPath = []
        borrowedRow = row
        self.plan = plan
        self.recordType = recordType
        handle = nil
        (values, valueCount) = Self.values(of: .row(row))
        columnForKey = Self.columnForKey(recordType: recordType, source: .row(row))
    }

    /// Reads `row` from now on.
    @inline(__always)
    func borrow(_ row: Row) {
        borrowedRow = row
        values = row.copiedValues
        valueCount = row.copiedCount
    }

    private static func values(of source: Source) -> (UnsafeMutablePointer<DatabaseValue>?, Int) {
        guard case .row(let row) = source else { return (nil, 0) }
        return (row.copiedValues, row.copiedCount)
    }

    private static func columnNames(of source: Source) -> [String] {
        switch source {
        case .statement(let statement): return statement.columnNames
        case .row(let row): return row.columnNames
        }
    }

    var columnNames: [String] { Self.columnNames(of: source) }

    /// The SQL of a statement source, for error messages.
    var sql: String? {
        if case .statement(let statement) = source { return statement.sql }
        return nil
    }

    /// The row, for the decoders of whole rows and superclasses.
    var row: Row {
        switch source {
        case .statement(let statement): return Row(statement: statement)
        case .row(let row): return row
        }
    }

    // MARK: Columns

    /// The index of the column of a key: through the plan when there is
    /// one, by name otherwise.
    @inline(__always)
    func columnIndex(_ keyName: String) -> Int? {
        guard let plan else { return lookUp(keyName) }
        return index(answering: plan.recall(keyName), plan: plan)
    }

    /// The index of the column of a key, as ``columnIndex(_:)``, with the
    /// key's name asked for only when the plan does not know the key.
    @inline(__always)
    func columnIndex<Key: CodingKey>(forKey key: Key) -> Int? {
        guard let plan else { return lookUp(key.stringValue) }
        return index(answering: plan.recall(key), plan: plan)
    }

    /// The column the plan answered, or the one looked up by name and
    /// learned when the plan did not know.
    @inline(__always)
    private func index(answering answer: ColumnPlan.Answer, plan: ColumnPlan) -> Int? {
        switch answer {
        case .column(let index): return index
        case .missing: return nil
        case .unknown(let name, let bits): return plan.learn(name, bits: bits, index: lookUp(name))
        }
    }

    private func lookUp(_ keyName: String) -> Int? {
        guard let name = columnName(keyName) else { return nil }
        switch source {
        case .statement(let statement): return statement.index(ofColumn: name)
        case .row(let row): return row.index(forColumn: name)
        }
    }

    /// The column of a key: the key itself, or as the record's column
    /// strategy says.
    @inline(__always)
    func columnName(_ keyName: String) -> String? {
        guard let columnForKey else { return keyName }
        return columnForKey[keyName]
    }

    func databaseValue(atIndex index: Int) -> DatabaseValue {
        if let values, index >= 0, index < valueCount { return values[index] }
        switch source {
        case .statement(let statement):
            return DatabaseValue(sqliteStatement: statement.sqliteStatement, index: CInt(index))
        case .row(let row):
            return row.databaseValue(atIndex: index)
        }
    }

    // MARK: Values

    /// Reads a standard library value. Their column initializers return nil
    /// for NULL (the protocol lets other types assume they never see NULL),
    /// so no NULL check comes first; a nil sends us to the error path.
    @inline(__always)
    func decode<T: DatabaseValueConvertible & StatementColumnConvertible>(_ type: T.Type, atIndex index: Int) throws -> T {
        if let handle, let value = T(sqliteStatement: handle, index: CInt(index)) {
            return value
        }
        if let values, index >= 0, index < valueCount, let value = T.fromDatabaseValue(values[index]) {
            return value
        }
        return try decodeFailed(T.self, atIndex: index)
    }

    /// The slow path of `decode`: other rows, and errors.
    private func decodeFailed<T: DatabaseValueConvertible & StatementColumnConvertible>(_ type: T.Type, atIndex index: Int) throws -> T {
        switch source {
        case .statement(let statement): return try T.decode(from: statement, index: CInt(index))
        case .row(let row): return try row.decode(T.self, atIndex: index)
        }
    }

    /// Like `decode`, with nil for NULL; `key` names the column in errors.
    @inline(__always)
    func decodeIfPresent<T: DatabaseValueConvertible & StatementColumnConvertible>(
        _ type: T.Type, atIndex index: Int, forKey key: some CodingKey
    ) throws -> T? {
        if let handle, let value = T(sqliteStatement: handle, index: CInt(index)) {
            return value
        }
        let dbValue = databaseValue(atIndex: index)
        if dbValue.isNull { return nil }
        return try T.decode(from: dbValue, column: key.stringValue, sql: sql)
    }
}
