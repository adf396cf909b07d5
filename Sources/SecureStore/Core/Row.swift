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
/// programming error. Use ``decode(_:atIndex:)`` or an optional type to get
/// an error or nil instead.
public final class Row {
    enum Storage {
        case statement(Statement)
        case values(names: [String], values: [DatabaseValue])
    }

    let storage: Storage

    /// The handle of `.statement` rows, nil for copied rows: the inlinable
    /// subscripts read columns through it.
    @usableFromInline let statementHandle: SQLiteStatement?

    /// Reused by the records a cursor decodes from this row, one per step
    /// (rows that read a statement only).
    let decodingCache: RowDecodingCache?

    init(statement: Statement) {
        storage = .statement(statement)
        statementHandle = statement.sqliteStatement
        decodingCache = RowDecodingCache(statement: statement)
    }

    init(names: [String], values: [DatabaseValue]) {
        storage = .values(names: names, values: values)
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
        switch storage {
        case .values: return self
        case .statement(let statement):
            let count = CInt(statement.columnCount)
            let values = (0..<count).map { DatabaseValue(sqliteStatement: statement.sqliteStatement, index: $0) }
            return Row(names: statement.columnNames, values: values)
        }
    }

    /// The number of columns.
    public var count: Int {
        switch storage {
        case .statement(let statement): return statement.columnCount
        case .values(let names, _): return names.count
        }
    }

    /// The column names, left to right.
    public var columnNames: [String] {
        switch storage {
        case .statement(let statement): return statement.columnNames
        case .values(let names, _): return names
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
    public var containsNonNullValue: Bool {
        (0..<count).contains { !hasNull(atIndex: $0) }
    }

    @usableFromInline
    func index(forColumn name: String) -> Int? {
        switch storage {
        case .statement(let statement):
            return statement.index(ofColumn: name)
        case .values(let names, _):
            return names.firstIndex { $0.isEqualIgnoringCase(name) }
        }
    }

    func databaseValue(atIndex index: Int) -> DatabaseValue {
        switch storage {
        case .statement(let statement):
            return DatabaseValue(sqliteStatement: statement.sqliteStatement, index: CInt(index))
        case .values(_, let values):
            return values[index]
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
        if case .statement(let statement) = storage {
            return try Value.fastDecode(from: statement, index: CInt(index))
        }
        return try Value.decode(from: databaseValue(atIndex: index), column: columnNames[index], sql: nil)
    }

    /// The value of the named column. A missing column is an error, except
    /// for optional types, which get nil.
    public func decode<Value: DatabaseValueConvertible>(
        _ type: Value.Type = Value.self, forColumn columnName: String
    ) throws -> Value {
        guard let index = index(forColumn: columnName) else {
            if let missing = Value.fromMissingColumn() { return missing }
            throw RowDecodingError.columnNotFound(columnName, type: Value.self)
        }
        return try decode(Value.self, atIndex: index)
    }

    /// The value of the named column, through the fast column path.
    public func decode<Value: DatabaseValueConvertible & StatementColumnConvertible>(
        _ type: Value.Type = Value.self, forColumn columnName: String
    ) throws -> Value {
        guard let index = index(forColumn: columnName) else {
            if let missing = Value.fromMissingColumn() { return missing }
            throw RowDecodingError.columnNotFound(columnName, type: Value.self)
        }
        return try decode(Value.self, atIndex: index)
    }

    // MARK: Subscripts

    /// The value at `index` as Int64, Double, String or Data; nil for NULL.
    public subscript(_ index: Int) -> (any DatabaseValueConvertible)? {
        Row.storedValue(databaseValue(atIndex: index))
    }

    /// The value of the named column as Int64, Double, String or Data; nil
    /// for NULL or a missing column.
    public subscript(_ columnName: String) -> (any DatabaseValueConvertible)? {
        index(forColumn: columnName).flatMap { self[$0] }
    }

    public subscript<Value: DatabaseValueConvertible>(_ index: Int) -> Value {
        Row.valueOrTrap { try decode(Value.self, atIndex: index) }
    }

    // The fast-path subscripts are inlinable so that they are specialized
    // in the caller's module: unspecialized, the runtime looks up generic
    // metadata for every column of every row.
    @inlinable
    public subscript<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ index: Int) -> Value {
        if let handle = statementHandle, let column = CInt(exactly: index),
           Row.readsNullAsNil(Value.self) || !Row.isNull(handle, column),
           let value = Value(sqliteStatement: handle, index: column) {
            return value
        }
        return valueOrTrap(Value.self, atIndex: index)
    }

    public subscript<Value: DatabaseValueConvertible>(_ columnName: String) -> Value {
        Row.valueOrTrap { try decode(Value.self, forColumn: columnName) }
    }

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
    public func dataNoCopy(atIndex index: Int) -> Data? {
        self[index] as Data?
    }

    /// Non-throwing subscripts mirror GRDB: a failed conversion is a
    /// programming error (NULL read as non-optional, wrong type) and stops
    /// the program with a message that names the column. `decode` throws
    /// instead.
    private static func valueOrTrap<Value>(_ decode: () throws -> Value) -> Value {
        do {
            return try decode()
        } catch {
            preconditionFailure("\(error)")
        }
    }

    static func storedValue(_ dbValue: DatabaseValue) -> (any DatabaseValueConvertible)? {
        switch dbValue.storage {
        case .null: return nil
        case .int64(let value): return value
        case .double(let value): return value
        case .string(let value): return value
        case .blob(let value): return value
        }
    }
}

// MARK: - Collection of (column name, value)

/// A position in a ``Row``.
public struct RowIndex: Comparable, Strideable, Hashable, Sendable {
    let index: Int
    init(_ index: Int) { self.index = index }
    public static func < (lhs: RowIndex, rhs: RowIndex) -> Bool { lhs.index < rhs.index }
    public func distance(to other: RowIndex) -> Int { other.index - index }
    public func advanced(by n: Int) -> RowIndex { RowIndex(index + n) }
}

extension Row: RandomAccessCollection {
    public var startIndex: RowIndex { RowIndex(0) }
    public var endIndex: RowIndex { RowIndex(count) }

    public subscript(position: RowIndex) -> (String, DatabaseValue) {
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
    /// Rows are equal when they have the same columns, in the same order,
    /// with equal values.
    public static func == (lhs: Row, rhs: Row) -> Bool {
        lhs === rhs || (lhs.columnNames == rhs.columnNames && lhs.databaseValues == rhs.databaseValues)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(columnNames)
        hasher.combine(databaseValues)
    }
}

extension Row: CustomStringConvertible {
    /// `[id:1 name:"Arthur"]`. Shows the values: keep secrets out of logs.
    public var description: String {
        "[" + map { "\($0):\($1)" }.joined(separator: " ") + "]"
    }
}
