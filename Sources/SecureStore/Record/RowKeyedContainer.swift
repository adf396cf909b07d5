import Foundation

/// The keyed container of ``RowDecoder``: each key names a column, a scope
/// (a joined association) or prefetched rows (a to-many association), in
/// this order, as in GRDB.
///
/// A row that reads a live statement (a cursor's row) is read straight from
/// the statement, and its columns are found through a ``ColumnPlan``; a
/// copied row is read from its values.
struct RowKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    typealias Source = RowSourceReader.Source

    /// Unretained, so that the container is plain data: the standard
    /// library's box copies and destroys the container for every decoded
    /// value, which costs nothing for plain data and a call to the runtime
    /// for each copy and each destruction otherwise (measured: 135
    /// instructions per record of four properties). The reader lives as
    /// long as the ``RowDecodingCache`` that made the container, which the
    /// row being decoded holds, or as long as the ``OwningRowKeyedContainer``
    /// that wraps this one.
    private let unmanagedReader: Unmanaged<RowSourceReader>
    /// The reader, retained: for the paths that do not read each value.
    private var reader: RowSourceReader { unmanagedReader.takeUnretainedValue() }
    private var source: Source { reader.source }
    var codingPath: [any CodingKey] { reader.codingPath }

    /// A container over a reader that outlives it: one that a
    /// ``RowDecodingCache`` holds and reuses, or that an
    /// ``OwningRowKeyedContainer`` holds.
    init(unretainedReader reader: RowSourceReader) {
        unmanagedReader = .passUnretained(reader)
    }

    /// Runs `body` with the reader, not retained.
    @inline(__always)
    private func withReader<Result>(_ body: (RowSourceReader) throws -> Result) rethrows -> Result {
        try unmanagedReader._withUnsafeGuaranteedRef(body)
    }

    var allKeys: [Key] {
        var names: [String]
        if let columnForKey = reader.columnForKey {
            names = Array(columnForKey.keys)
        } else {
            names = reader.columnNames
        }
        if case .row(let row) = source {
            names += row.scopesTree.names
            names += row.prefetchedRows.keys
        }
        return Set(names).compactMap(Key.init(stringValue:))
    }

    func contains(_ key: Key) -> Bool {
        columnIndex(key.stringValue) != nil || associated(key.stringValue) != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if let index = withReader({ $0.columnIndex(forKey: key) }) { return databaseValue(atIndex: index).isNull }
        switch associated(key.stringValue) {
        case .scope(let scoped): return !scoped.containsNonNullValue
        case .prefetched: return false
        case nil: return true
        }
    }

    // MARK: Associations

    private enum Associated {
        case scope(Row)
        case prefetched(PrefetchedRows)
    }

    /// The scope or the prefetched rows of a key. Only copied rows have
    /// them: a statement's row has columns only.
    private func associated(_ name: String) -> Associated? {
        guard case .row(let row) = source else { return nil }
        if let scoped = row.scopesTree[name] { return .scope(scoped) }
        if let rows = row.prefetchedRows.rows(forKey: name) { return .prefetched(rows) }
        return nil
    }

    /// Decodes a value from a scope or from prefetched rows. Not optional:
    /// `Optional<T>` would cost a metadata lookup in this unspecialized code.
    private func decodeAssociated<T: Decodable>(_ type: T.Type, _ associated: Associated, key: Key) throws -> T {
        switch associated {
        case .scope(let scoped):
            if let record = T.self as? any FetchableRecord.Type {
                return try decodeRecord(record, as: T.self, from: scoped)
            }
            return try T(from: RowDecoder(row: scoped, recordType: reader.recordType, codingPath: codingPath + [key]))
        case .prefetched(let rows):
            if let collection = T.self as? any PrefetchedRecordCollection.Type {
                return try decodeCollection(collection, as: T.self, from: rows)
            }
            return try T(from: PrefetchedRowsDecoder(rows: rows.array, recordType: reader.recordType, codingPath: codingPath))
        }
    }

    // MARK: Columns

    @inline(__always)
    private func columnIndex(_ name: String) -> Int? { withReader { $0.columnIndex(name) } }

    private func columnName(_ keyName: String) -> String? { reader.columnName(keyName) }

    private func databaseValue(atIndex index: Int) -> DatabaseValue { reader.databaseValue(atIndex: index) }

    /// The key's name is only asked for when the plan does not know the key
    /// (``ColumnPlan``), or for an error.
    @inline(__always)
    private func decodeStandard<T: DatabaseValueConvertible & StatementColumnConvertible>(
        _ type: T.Type, forKey key: Key
    ) throws -> T {
        try withReader { reader in
            guard let index = reader.columnIndex(forKey: key) else {
                throw RowDecodingError.columnNotFound(key.stringValue, type: T.self)
            }
            return try reader.decode(T.self, atIndex: index)
        }
    }

    /// Like `decodeStandard`, with nil for NULL and for a missing column.
    @inline(__always)
    private func decodeStandardIfPresent<T: DatabaseValueConvertible & StatementColumnConvertible>(
        _ type: T.Type, forKey key: Key
    ) throws -> T? {
        try withReader { reader in
            guard let index = reader.columnIndex(forKey: key) else { return nil }
            return try reader.decodeIfPresent(T.self, atIndex: index, forKey: key)
        }
    }

    private var sql: String? { reader.sql }

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
        if let index = columnIndex(name) {
            let recordType = reader.recordType
            let column = columnName(name) ?? name
            return try ColumnValueDecoder.decode(T.self, from: databaseValue(atIndex: index), column: column) {
                recordType.databaseJSONDecoder(for: column)
            }
        }
        if let associated = associated(name) { return try decodeAssociated(T.self, associated, key: key) }
        return try decodeFromWholeRow(T.self, key: key)
    }

    /// A key that names no column, scope or prefetched rows decodes from
    /// the whole row, once per record, as in GRDB: `BookInfo { var book:
    /// Book; var author: Author }` fetched from `Book.including(required:
    /// Book.author)` finds `book` in the row's own columns.
    private func decodeFromWholeRow<T: Decodable>(_ type: T.Type, key: Key) throws -> T {
        let name = key.stringValue
        let previous: String?
        if let plan = reader.plan {
            previous = plan.decodedRootKey
            plan.decodedRootKey = previous ?? name
        } else {
            previous = reader.decodedRootKey
            reader.decodedRootKey = previous ?? name
        }
        if let previous {
            throw DecodingError.keyNotFound(key, .init(
                codingPath: [], debugDescription: "No such key: \([previous, name].sorted().joined(separator: " or "))"))
        }
        if let record = T.self as? any FetchableRecord.Type {
            return try decodeRecord(record, as: T.self, from: row)
        }
        return try T(from: RowDecoder(row: row, recordType: reader.recordType, codingPath: codingPath + [key]))
    }

    /// A missing column decodes as `fromMissingColumn()` (nil for
    /// optionals), or throws.
    private func decodeConvertible(_ type: any DatabaseValueConvertible.Type, column name: String) throws -> Any {
        func decode<T: DatabaseValueConvertible>(_: T.Type) throws -> Any {
            guard let index = columnIndex(name) else {
                if let missing = T.fromMissingColumn() { return missing }
                throw RowDecodingError.columnNotFound(name, type: T.self)
            }
            if T.self == Date.self || T.self == Data.self, let value = try decodeWithStrategy(T.self, atIndex: index, key: name) {
                return value
            }
            switch source {
            case .statement(let statement): return try T.decode(from: statement, index: CInt(index))
            case .row(let row): return try row.decode(T.self, atIndex: index)
            }
        }
        return try decode(type)
    }

    /// A scope decodes as a keyed container; a JSON column does not (decode
    /// a Codable type from it instead).
    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        if case .scope(let scoped) = associated(key.stringValue) {
            return try RowDecoder(row: scoped, recordType: reader.recordType, codingPath: codingPath + [key]).container(keyedBy: NestedKey.self)
        }
        throw DecodingError.typeMismatch(type, .init(codingPath: [key], debugDescription: "not a scope: nested containers of columns are stored as JSON, decode a Codable type"))
    }

    /// Prefetched rows decode as an unkeyed container of rows.
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        if case .prefetched(let rows) = associated(key.stringValue) {
            return try PrefetchedRowsDecoder(rows: rows.array, recordType: reader.recordType, codingPath: codingPath).unkeyedContainer()
        }
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: [key], debugDescription: "not prefetched rows: nested containers of columns are stored as JSON, decode a Codable type"))
    }

    /// Dates and data with the record's strategy for their column; nil
    /// when the strategy is the default one, which the caller applies.
    private func decodeWithStrategy<T: DatabaseValueConvertible>(_ type: T.Type, atIndex index: Int, key: String) throws -> T? {
        let column = columnName(key) ?? key
        let recordType = reader.recordType
        let dbValue: DatabaseValue
        let decoded: Any?
        if T.self == Date.self {
            let strategy = recordType.databaseDateDecodingStrategy(for: column)
            if case .deferredToDate = strategy { return nil }
            dbValue = databaseValue(atIndex: index)
            decoded = strategy.decode(dbValue)
        } else {
            let strategy = recordType.databaseDataDecodingStrategy(for: column)
            if case .deferredToData = strategy { return nil }
            dbValue = databaseValue(atIndex: index)
            decoded = strategy.decode(dbValue)
        }
        guard let value = decoded as? T else {
            throw RowDecodingError.valueMismatch(T.self, dbValue: dbValue, column: column, sql: sql)
        }
        return value
    }

    func superDecoder() throws -> any Decoder { RowDecoder(row: row, recordType: reader.recordType, codingPath: codingPath) }
    func superDecoder(forKey key: Key) throws -> any Decoder { RowDecoder(row: row, recordType: reader.recordType, codingPath: codingPath) }

    /// A row for the decoders of superclasses.
    private var row: Row { reader.row }
}
