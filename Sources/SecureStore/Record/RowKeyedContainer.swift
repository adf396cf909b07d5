/// The keyed container of ``RowDecoder``: each key names a column.
///
/// A row that reads a live statement (a cursor's row) is read straight from
/// the statement, and its columns are found through a ``ColumnPlan``; a
/// copied row is read from its values.
struct RowKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    enum Source {
        case statement(Statement)
        case row(Row)
    }

    /// Where the values come from. One reference: the standard library's
    /// container box copies this struct for every decoded property.
    private final class Reader {
        let source: Source
        /// Only for `.statement` sources, whose container is reused by
        /// ``RowDecodingCache``.
        let plan: ColumnPlan?
        /// The statement handle of `.statement` sources, kept apart so that
        /// reading a column does not retain the statement.
        let handle: SQLiteStatement?

        init(source: Source, plan: ColumnPlan?) {
            self.source = source
            self.plan = plan
            if case .statement(let statement) = source { handle = statement.sqliteStatement } else { handle = nil }
        }
    }

    private let reader: Reader
    private var source: Source { reader.source }

    init(source: Source, plan: ColumnPlan?) {
        reader = Reader(source: source, plan: plan)
    }

    var codingPath: [any CodingKey] { [] }

    var allKeys: [Key] {
        switch source {
        case .statement(let statement): return statement.columnNames.compactMap(Key.init(stringValue:))
        case .row(let row): return row.columnNames.compactMap(Key.init(stringValue:))
        }
    }

    func contains(_ key: Key) -> Bool { columnIndex(key.stringValue) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let index = columnIndex(key.stringValue) else { return true }
        return databaseValue(atIndex: index).isNull
    }

    // MARK: Columns

    @inline(__always)
    private func columnIndex(_ name: String) -> Int? {
        guard let plan = reader.plan else { return lookUp(name) }
        switch plan.recall(name) {
        case .column(let index): return index
        case .missing: return nil
        case .unknown: return plan.learn(name, index: lookUp(name))
        }
    }

    private func lookUp(_ name: String) -> Int? {
        switch source {
        case .statement(let statement): return statement.index(ofColumn: name)
        case .row(let row): return row.index(forColumn: name)
        }
    }

    private func databaseValue(atIndex index: Int) -> DatabaseValue {
        switch source {
        case .statement(let statement):
            return DatabaseValue(sqliteStatement: statement.sqliteStatement, index: CInt(index))
        case .row(let row):
            return row.databaseValue(atIndex: index)
        }
    }

    /// Reads a standard library value. Their column initializers return nil
    /// for NULL (the protocol lets other types assume they never see NULL),
    /// so no NULL check comes first; a nil sends us to the error path.
    @inline(__always)
    private func decodeStandard<T: DatabaseValueConvertible & StatementColumnConvertible>(
        _ type: T.Type, forKey key: Key
    ) throws -> T {
        let name = key.stringValue
        guard let index = columnIndex(name) else {
            throw RowDecodingError.columnNotFound(name, type: T.self)
        }
        if let handle = reader.handle, let value = T(sqliteStatement: handle, index: CInt(index)) {
            return value
        }
        return try decodeFailed(T.self, atIndex: index)
    }

    /// The slow path of `decodeStandard`: copied rows, and errors.
    private func decodeFailed<T: DatabaseValueConvertible & StatementColumnConvertible>(
        _ type: T.Type, atIndex index: Int
    ) throws -> T {
        switch source {
        case .statement(let statement): return try T.decode(from: statement, index: CInt(index))
        case .row(let row): return try row.decode(T.self, atIndex: index)
        }
    }

    /// Like `decodeStandard`, with nil for NULL and for a missing column.
    @inline(__always)
    private func decodeStandardIfPresent<T: DatabaseValueConvertible & StatementColumnConvertible>(
        _ type: T.Type, forKey key: Key
    ) throws -> T? {
        let name = key.stringValue
        guard let index = columnIndex(name) else { return nil }
        if let handle = reader.handle, let value = T(sqliteStatement: handle, index: CInt(index)) {
            return value
        }
        let dbValue = databaseValue(atIndex: index)
        if dbValue.isNull { return nil }
        return try T.decode(from: dbValue, column: name, sql: sql)
    }

    private var sql: String? {
        if case .statement(let statement) = source { return statement.sql }
        return nil
    }

    // MARK: Standard library types

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decodeStandard(type, forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decodeStandard(type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decodeStandard(type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decodeStandard(type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decodeStandard(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decodeStandard(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decodeStandard(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decodeStandard(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decodeStandard(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decodeStandard(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decodeStandard(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decodeStandard(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decodeStandard(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decodeStandard(type, forKey: key) }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try decodeStandardIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try decodeStandardIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try decodeStandardIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try decodeStandardIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try decodeStandardIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try decodeStandardIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try decodeStandardIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try decodeStandardIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try decodeStandardIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try decodeStandardIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try decodeStandardIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try decodeStandardIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try decodeStandardIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try decodeStandardIfPresent(type, forKey: key) }

    // MARK: Other types

    /// Database value types (Data, Date, UUID, your own) decode from the
    /// column; other Decodable values as single values or from JSON text.
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let name = key.stringValue
        if let convertible = T.self as? any DatabaseValueConvertible.Type {
            guard let value = try decodeConvertible(convertible, column: name) as? T else {
                throw RowDecodingError.columnNotFound(name, type: T.self)
            }
            return value
        }
        guard let index = columnIndex(name) else {
            throw RowDecodingError.columnNotFound(name, type: T.self)
        }
        return try ColumnValueDecoder.decode(T.self, from: databaseValue(atIndex: index), column: name)
    }

    /// A missing column decodes as `fromMissingColumn()` (nil for
    /// optionals), or throws.
    private func decodeConvertible(_ type: any DatabaseValueConvertible.Type, column name: String) throws -> Any {
        func decode<T: DatabaseValueConvertible>(_: T.Type) throws -> Any {
            guard let index = columnIndex(name) else {
                if let missing = T.fromMissingColumn() { return missing }
                throw RowDecodingError.columnNotFound(name, type: T.self)
            }
            switch source {
            case .statement(let statement): return try T.decode(from: statement, index: CInt(index))
            case .row(let row): return try row.decode(T.self, atIndex: index)
            }
        }
        return try decode(type)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw DecodingError.typeMismatch(type, .init(codingPath: [key], debugDescription: "nested containers are stored as JSON: decode a Codable type"))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: [key], debugDescription: "nested containers are stored as JSON: decode a Codable type"))
    }

    func superDecoder() throws -> any Decoder { RowDecoder(row: row) }
    func superDecoder(forKey key: Key) throws -> any Decoder { RowDecoder(row: row) }

    /// A row for the decoders of superclasses.
    private var row: Row {
        switch source {
        case .statement(let statement): return Row(statement: statement)
        case .row(let row): return row
        }
    }
}
