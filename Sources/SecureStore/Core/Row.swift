import Foundation
internal import CSQLCipher

/// A database row: column names and values.
///
/// ```swift
/// for row in try Row.fetchAll(db, sql: "SELECT id, name FROM player") {
///     let id: Int64 = row["id"]
///     let name: String? = row["name"]   // nil for NULL
///     let first = row[0] as Int64
/// }
/// ```
///
/// Column names are matched ignoring case; the leftmost column wins.
///
/// Rows that a cursor hands out read from its live statement and are
/// reused: call ``copy()`` to keep one beyond the current step. Rows from
/// `fetchAll` and `fetchOne` are already copies.
///
/// Typed subscripts stop the program when a value cannot be converted (NULL
/// into a non-optional, text into an integer), as GRDB's do: that is a
/// programming error. Use ``decode(_:atIndex:)-26z8v`` or an optional type to get
/// an error or nil instead.
public final class Row {
    enum Storage {
        case statement(Statement)
        case values(names: [String], values: RowValues)
        /// A view of another row through a row adapter: its columns are
        /// positions in the base row, its scopes other views.
        case adapted(base: Row, adapter: LayoutedRowAdapter)
    }

    let storage: Storage

    /// The values of a `.values` row (nil and 0 for other rows), read
    /// without switching over ``storage``, whose copy retains every
    /// payload. Valid as long as the row: its storage keeps them. Variable
    /// only for the row that moves over a prefetch's rows (see
    /// ``PrefetchedRowBuffer``), and only between two records it decodes:
    /// no access overlaps another, so none is checked.
    @exclusivity(unchecked) private(set) var copiedValues: UnsafeMutablePointer<DatabaseValue>?
    let copiedCount: Int

    /// The rows of the to-many associations prefetched with this row
    /// (`including(all:)`), by association key.
    var prefetchedRowsStorage: PrefetchedRowsView {
        get { prefetchedRowsIfAny ?? PrefetchedRowsView() }
        set { prefetchedRowsIfAny = newValue.isEmpty ? nil : newValue }
    }
    /// Nil for the rows without prefetched rows, almost all of them: an
    /// empty view still costs three retains when a row is made and three
    /// releases when it goes.
    private var prefetchedRowsIfAny: PrefetchedRowsView?

    /// The handle of `.statement` rows, nil for copied rows: the inlinable
    /// subscripts read columns through it.
    @usableFromInline let statementHandle: SQLiteStatement?

    /// Reused by the records decoded from this row, one per step of a
    /// cursor (rows that read a statement), or one per copy of such a row:
    /// the copies of one statement's rows (the rows of one `fetchAll`, or
    /// prefetched rows) share one, made at the first copy. Rows are not
    /// `Sendable`: the copies stay on one thread. A constant: a record
    /// reads it without a retain while its row is alive.
    let decodingCache: RowDecodingCache?

    /// True for the copy of a fetched row.
    private var isCopyOfFetchedRow = false
    /// True for the row that moves over a prefetch's rows: its copies are
    /// rows of their own.
    private var isMoving = false

    /// The cache this statement row gives its copies, made at the first copy.
    private var cacheForCopies: RowDecodingCache?
    /// The column names of the copies, read from the statement once.
    private var namesForCopies: [String]?
    /// Where the next copies put their values.
    private var chunkForCopies: RowValueChunk?
    /// The rows of the last chunk made (the first one holds one row).
    private var rowsPerChunk = 0

    /// True when the row comes from the database (not from a dictionary):
    /// `Record` remembers such rows to tell its changes.
    var isFetched: Bool {
        switch storage {
        case .statement: return true
        case .adapted(let base, _): return base.isFetched
        case .values: return isCopyOfFetchedRow
        }
    }

    init(statement: Statement) {
        storage = .statement(statement)
        copiedValues = nil
        copiedCount = 0
        statementHandle = statement.sqliteStatement
        decodingCache = RowDecodingCache(statement: statement)
    }

    convenience init(names: [String], values: [DatabaseValue]) {
        self.init(names: names, values: RowValues(values))
    }

    convenience init(names: [String], values: RowValues) {
        self.init(names: names, values: values, decodingCache: nil)
    }

    /// A copied row of a fetch whose rows share `cache`: a prefetch's row,
    /// or a copy of a statement's row.
    convenience init(names: [String], values: RowValues, cache: RowDecodingCache) {
        self.init(names: names, values: values, decodingCache: cache)
        isCopyOfFetchedRow = true
    }

    private init(names: [String], values: RowValues, decodingCache: RowDecodingCache?) {
        storage = .values(names: names, values: values)
        copiedValues = values.start
        copiedCount = values.count
        statementHandle = nil
        self.decodingCache = decodingCache
    }

    /// A row that reads the prefetched row at `values` until it is moved
    /// to another with ``move(to:)``.
    convenience init(movingOver names: [String], values: RowValues, cache: RowDecodingCache) {
        self.init(names: names, values: values, cache: cache)
        isMoving = true
    }

    /// Reads the values at `start`, in the chunk of the row's storage, from
    /// now on (a moving row only). Only ``copiedValues`` moves: the values of
    /// a `.values` row are read there, and the storage keeps the chunk alive.
    @inline(__always)
    func move(to start: UnsafeMutablePointer<DatabaseValue>) {
        assert(isMoving)
        copiedValues = start
    }

    init(base: Row, adapter: LayoutedRowAdapter) {
        storage = .adapted(base: base, adapter: adapter)
        copiedValues = nil
        copiedCount = 0
        statementHandle = nil
        decodingCache = nil
    }

    /// An empty row.
    public convenience init() {
        self.init(names: [], values: [])
    }

    /// A row from a dictionary. Column order follows the dictionary's.
    public convenience init(_ dictionary: [String: (any DatabaseValueConvertible)?]) {
        self.init(names: Array(dictionary.keys), values: dictionary.values.map { DatabaseValue(value: $0) })
    }

    /// A copy that no longer depends on a statement.
    public func copy() -> Row {
        let copy: Row
        switch storage {
        case .values(let names, let values):
            guard isMoving, let copiedValues else { return self }
            copy = Row(names: names, values: RowValues(chunk: values.chunk, start: copiedValues, count: copiedCount), cache: decodingCache!)
        case .statement(let statement):
            let count = statement.columnCount
            let handle = statement.sqliteStatement
            let read = { (start: UnsafeMutablePointer<DatabaseValue>) in
                for index in 0..<count {
                    (start + index).initialize(to: DatabaseValue(sqliteStatement: handle, index: CInt(index)))
                }
            }
            let chunk: RowValueChunk
            let start: UnsafeMutablePointer<DatabaseValue>
            if let current = chunkForCopies, let room = current.append(count, read) {
                (chunk, start) = (current, room)
            } else {
                // The next chunk holds twice as many rows, up to 256.
                rowsPerChunk = Swift.max(1, Swift.min(rowsPerChunk * 2, 256))
                chunk = RowValueChunk.make(capacity: Swift.max(count * rowsPerChunk, 1))
                start = chunk.append(count, read)!
                chunkForCopies = chunk
            }
            if namesForCopies == nil { namesForCopies = statement.columnNames }
            if cacheForCopies == nil { cacheForCopies = RowDecodingCache(forCopiesOf: statement) }
            copy = Row(names: namesForCopies!, values: RowValues(chunk: chunk, start: start, count: count), cache: cacheForCopies!)
        case let .adapted(base, adapter):
            copy = Row(base: base.copy(), adapter: adapter)
        }
        if let prefetchedRowsIfAny { copy.prefetchedRowsIfAny = prefetchedRowsIfAny }
        return copy
    }

    /// The number of columns.
    public var count: Int {
        switch storage {
        case .statement(let statement): return statement.columnCount
        case .values(let names, _): return names.count
        case .adapted(_, let adapter): return adapter.mapping.columns.count
        }
    }

    /// The column names, left to right.
    public var columnNames: [String] {
        switch storage {
        case .statement(let statement): return statement.columnNames
        case .values(let names, _): return names
        case .adapted(_, let adapter): return adapter.mapping.columns.map(\.name)
        }
    }

    /// The values, left to right.
    public var databaseValues: [DatabaseValue] {
        (0..<count).map(databaseValue(atIndex:))
    }

    /// True if the row has a column with this name (ignoring case).
    public func hasColumn(_ columnName: String) -> Bool {
        index(forColumn: columnName) != nil
    }

    /// True if the value at `index` is NULL.
    public func hasNull(atIndex index: Int) -> Bool {
        databaseValue(atIndex: index).isNull
    }

    /// True if at least one value is not NULL.
    /// True when a column, or a column of a scope, is not NULL.
    public var containsNonNullValue: Bool {
        (0..<count).contains { !hasNull(atIndex: $0) } || scopes.contains { $0.row.containsNonNullValue }
    }

    @usableFromInline
    func index(forColumn name: String) -> Int? {
        switch storage {
        case .statement(let statement):
            return statement.index(ofColumn: name)
        case .values(let names, _):
            return names.firstIndex { $0.isEqualIgnoringCase(name) }
        case .adapted(_, let adapter):
            return adapter.mapping.position(ofColumn: name)
        }
    }

    func databaseValue(atIndex index: Int) -> DatabaseValue {
        if let copiedValues, index >= 0, index < copiedCount { return copiedValues[index] }
        switch storage {
        case .statement(let statement):
            return DatabaseValue(sqliteStatement: statement.sqliteStatement, index: CInt(index))
        case .values(_, let values):
            return values[index]
        case let .adapted(base, adapter):
            return base.databaseValue(atIndex: adapter.mapping.columns[index].index)
        }
    }

    private func checkedIndex(_ index: Int) throws -> Int {
        guard index >= 0, index < count else { throw RowDecodingError.indexOutOfRange(index, count: count) }
        return index
    }

    // MARK: Decoding that throws

    /// The value at `index`, or an error naming the column and the type.
    public func decode<Value: DatabaseValueConvertible>(
        _ type: Value.Type = Value.self, atIndex index: Int
    ) throws -> Value {
        let index = try checkedIndex(index)
        if case .statement(let statement) = storage {
            return try Value.decode(from: statement, index: CInt(index))
        }
        return try Value.decode(from: databaseValue(atIndex: index), column: columnNames[index], sql: nil)
    }

    /// The value at `index`, through the fast column path.
    public func decode<Value: DatabaseValueConvertible & StatementColumnConvertible>(
        _ type: Value.Type = Value.self, atIndex index: Int
    ) throws -> Value {
        let index = try checkedIndex(index)
        switch storage {
        case .statement(let statement):
            return try Value.fastDecode(from: statement, index: CInt(index))
        case let .adapted(base, adapter):
            // A view of a statement's row reads the statement too.
            return try base.decode(Value.self, atIndex: adapter.mapping.columns[index].index)
        case .values:
            return try Value.decode(from: databaseValue(atIndex: index), column: columnNames[index], sql: nil)
        }
    }

    /// The value of the named column. A missing column is an error, except
    /// for optional types, which get nil.
    public func decode<Value: DatabaseValueConvertible>(
        _ type: Value.Type = Value.self, forColumn columnName: String
    ) throws -> Value {
        try columnIndex(columnName, Value.self).map { try decode(Value.self, atIndex: $0) } ?? Value.missingColumnValue()
    }

    /// The value of the named column, through the fast column path.
    public func decode<Value: DatabaseValueConvertible & StatementColumnConvertible>(
        _ type: Value.Type = Value.self, forColumn columnName: String
    ) throws -> Value {
        try columnIndex(columnName, Value.self).map { try decode(Value.self, atIndex: $0) } ?? Value.missingColumnValue()
    }

    /// The index of a column; nil for a missing column that `Value` reads
    /// as a value (nil for optionals), an error otherwise.
    private func columnIndex<Value: DatabaseValueConvertible>(_ columnName: String, _ type: Value.Type) throws -> Int? {
        if let index = index(forColumn: columnName) { return index }
        if Value.fromMissingColumn() != nil { return nil }
        throw RowDecodingError.columnNotFound(columnName, type: Value.self)
    }

    // MARK: Subscripts

    /// The value at `index` as Int64, Double, String or Data; nil for NULL.
    public subscript(_ index: Int) -> (any DatabaseValueConvertible)? {
        databaseValue(atIndex: index).storage.value
    }

    /// The value of the named column as Int64, Double, String or Data; nil
    /// for NULL or a missing column.
    public subscript(_ columnName: String) -> (any DatabaseValueConvertible)? {
        index(forColumn: columnName).flatMap { self[$0] }
    }

    /// The value at `index`, converted; stops the program when it cannot be
    /// (NULL into a non-optional type): use ``decode(_:atIndex:)-26z8v`` for an error.
    public subscript<Value: DatabaseValueConvertible>(_ index: Int) -> Value {
        Row.valueOrTrap { try decode(Value.self, atIndex: index) }
    }

    // The fast-path subscripts are inlinable so that they are specialized
    // in the caller's module: unspecialized, the runtime looks up generic
    // metadata for every column of every row.
    /// The value at `index`, read straight from a live statement when it can be.
    @inlinable
    public subscript<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ index: Int) -> Value {
        if let handle = statementHandle, let column = CInt(exactly: index),
           Row.readsNullAsNil(Value.self) || !Row.isNull(handle, column),
           let value = Value(sqliteStatement: handle, index: column) {
            return value
        }
        return valueOrTrap(Value.self, atIndex: index)
    }

    /// The value of the named column, converted; stops the program when it
    /// cannot be: use ``decode(_:forColumn:)-8j973`` for an error.
    public subscript<Value: DatabaseValueConvertible>(_ columnName: String) -> Value {
        Row.valueOrTrap { try decode(Value.self, forColumn: columnName) }
    }

    /// The value of the named column, read straight from a live statement when it can be.
    @inlinable
    public subscript<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ columnName: String) -> Value {
        if let handle = statementHandle, let index = index(forColumn: columnName),
           let column = CInt(exactly: index),
           Row.readsNullAsNil(Value.self) || !Row.isNull(handle, column),
           let value = Value(sqliteStatement: handle, index: column) {
            return value
        }
        return valueOrTrap(Value.self, forColumn: columnName)
    }

    /// True for NULL, and for a column index out of range (SQLite reads
    /// those as NULL): either way the caller takes the slow path, which
    /// reports errors.
    @usableFromInline
    static func isNull(_ handle: SQLiteStatement, _ column: CInt) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    /// True for this module's column types: their initializers check the
    /// column type themselves and return nil for NULL, so the subscripts
    /// skip the NULL check that other types need (the protocol promises
    /// them non-NULL columns). Specialized, this folds to a constant.
    @inlinable
    static func readsNullAsNil<Value>(_ type: Value.Type) -> Bool {
        Value.self == Int64.self || Value.self == Int.self || Value.self == Double.self
            || Value.self == String.self || Value.self == Bool.self || Value.self == Int32.self
            || Value.self == Data.self
    }

    @usableFromInline
    func valueOrTrap<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ type: Value.Type, atIndex index: Int) -> Value {
        Row.valueOrTrap { try decode(Value.self, atIndex: index) }
    }

    @usableFromInline
    func valueOrTrap<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ type: Value.Type, forColumn columnName: String) -> Value {
        Row.valueOrTrap { try decode(Value.self, forColumn: columnName) }
    }

    /// The stored value of a column, without conversion.
    public func databaseValue(forColumn columnName: String) -> DatabaseValue? {
        index(forColumn: columnName).map(databaseValue(atIndex:))
    }

    /// The bytes of a BLOB column, or nil for NULL.
    @available(*, deprecated, message: "Use withUnsafeData(atIndex:_:) instead.")
    public func dataNoCopy(atIndex index: Int) -> Data? {
        self[index] as Data?
    }

    /// Calls `body` with the bytes at `index` (nil for NULL); a value that
    /// is not a BLOB or TEXT is an error. Read without a copy when the row
    /// reads a live statement: do not keep the data beyond the call.
    public func withUnsafeData<T>(atIndex index: Int, _ body: (Data?) throws -> T) throws -> T {
        let index = try checkedIndex(index)
        if case .statement(let statement) = storage {
            let handle = statement.sqliteStatement
            if DatabaseValue(sqliteStatement: handle, index: CInt(index)).isNull { return try body(nil) }
            return try Data.withBytesNoCopy(columnOf: handle, at: CInt(index), body)
        }
        let dbValue = databaseValue(atIndex: index)
        if dbValue.isNull { return try body(nil) }
        return try body(Data.decode(from: dbValue, column: columnNames[index], sql: nil))
    }

    /// Calls `body` with the bytes of a column (nil for NULL or a missing
    /// column).
    public func withUnsafeData<T>(named columnName: String, _ body: (Data?) throws -> T) throws -> T {
        guard let index = index(forColumn: columnName) else { return try body(nil) }
        return try withUnsafeData(atIndex: index, body)
    }

    /// Calls `body` with the bytes of a column (nil for NULL or a missing
    /// column).
    public func withUnsafeData<T>(at column: some ColumnExpression, _ body: (Data?) throws -> T) throws -> T {
        try withUnsafeData(named: column.name, body)
    }

    /// Non-throwing subscripts mirror GRDB: a failed conversion is a
    /// programming error (NULL read as non-optional, wrong type) and stops
    /// the program with a message that names the column. `decode` throws
    /// instead.
    static func valueOrTrap<Value>(_ decode: () throws -> Value) -> Value {
        do {
            return try decode()
        } catch {
            preconditionFailure("\(error)")
        }
    }
}

// MARK: - Collection of (column name, value)

extension Row {
    /// A position in a ``Row``.
    public struct Index: Comparable, Strideable, Hashable, Sendable {
        let index: Int
        init(_ index: Int) { self.index = index }
        /// Left to right.
        public static func < (lhs: Index, rhs: Index) -> Bool { lhs.index < rhs.index }
        /// The number of columns between two positions.
        public func distance(to other: Index) -> Int { other.index - index }
        /// The position `n` columns away.
        public func advanced(by n: Int) -> Index { Index(index + n) }
    }
}

/// The former name of ``Row/Index``.
@available(*, deprecated, renamed: "Row.Index")
public typealias RowIndex = Row.Index

extension Row: RandomAccessCollection {
    /// The first column.
    public var startIndex: Index { Index(0) }
    /// After the last column.
    public var endIndex: Index { Index(count) }

    /// The column name and value at a position.
    public subscript(position: Index) -> (String, DatabaseValue) {
        (columnNames[position.index], databaseValue(atIndex: position.index))
    }
}

extension Row: ExpressibleByDictionaryLiteral {
    /// `let row: Row = ["id": 1, "name": "Arthur"]`, columns in that order.
    public convenience init(dictionaryLiteral elements: (String, (any DatabaseValueConvertible)?)...) {
        self.init(names: elements.map(\.0), values: elements.map { DatabaseValue(value: $0.1) })
    }
}

extension Row: Equatable, Hashable {
    /// Rows are equal when they have the same columns, in the same order
    /// (names compared case-sensitively), with equal values, and the same
    /// scopes and prefetched rows.
    public static func == (lhs: Row, rhs: Row) -> Bool {
        if lhs === rhs { return true }
        guard lhs.columnNames == rhs.columnNames, lhs.databaseValues == rhs.databaseValues else { return false }
        let names = Set(lhs.scopes.names)
        guard names == Set(rhs.scopes.names) else { return false }
        for name in names where lhs.scopes[name] != rhs.scopes[name] { return false }
        return lhs.prefetchedRows == rhs.prefetchedRows
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(columnNames)
        hasher.combine(databaseValues)
    }
}

extension Row: CustomStringConvertible, CustomDebugStringConvertible {
    /// `[id:1 name:"Arthur"]`. Shows the values: keep secrets out of logs.
    public var description: String {
        "[" + map { "\($0):\($1)" }.joined(separator: " ") + "]"
    }

    /// The row, with its unadapted row, scopes and prefetched rows:
    ///
    /// ```
    /// ▿ [id:1 title:"Moby-Dick" authorId:2]
    ///   unadapted: [id:1 title:"Moby-Dick" authorId:2 id:2 name:"Melville"]
    ///   - author: [id:2 name:"Melville"]
    /// ```
    public var debugDescription: String { debugDescription(level: 0) }

    private func debugDescription(level: Int) -> String {
        let unadapted = self.unadapted
        if level == 0 && self == unadapted && prefetchedRows.isEmpty { return description }
        let indent = String(repeating: "  ", count: level + 1)
        var text = description
        if level == 0 {
            text = "▿ " + text
            if self != unadapted { text += "\n" + indent + "unadapted: " + unadapted.description }
        }
        for (name, scoped) in scopes.sorted(by: { $0.name < $1.name }) {
            text += "\n" + indent + "- " + name + ": " + scoped.debugDescription(level: level + 1)
        }
        for key in prefetchedRows.keys.sorted() {
            guard let rows = prefetchedRows[key] else { continue }
            text += "\n" + indent + "+ " + key + ": " + (rows.count <= 1 ? "\(rows.count) row" : "\(rows.count) rows")
        }
        return text
    }
}
