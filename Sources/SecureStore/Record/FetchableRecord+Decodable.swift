import Foundation

extension FetchableRecord where Self: Decodable {
    /// Decodes each property from the column of the same name (or as
    /// ``databaseColumnDecodingStrategy`` says), a scope, or prefetched rows.
    ///
    /// Inlinable: where the records are fetched, the decoder is made in
    /// place and the record's `init(from:)` is called directly. The row
    /// is consumed into the decoder: borrowed, the inlined initializer
    /// retained it once more for each record (measured on prefetched
    /// records, BENCHMARKS.md).
    @inlinable
    public init(row: consuming Row) throws {
        try self.init(from: RowDecoder(row: consume row, recordType: Self.self))
    }
}

/// Decodes `Decodable` records from rows.
///
/// ```swift
/// let player = try FetchableRecordDecoder().decode(Player.self, from: row)
/// ```
public final class FetchableRecordDecoder {
    /// A decoder.
    public init() {}

    /// Decodes a record from a row, as `init(row:)` of `Decodable` records
    /// does.
    public func decode<T: FetchableRecord & Decodable>(_ type: T.Type, from row: Row) throws -> T {
        try T(from: RowDecoder(row: row, recordType: T.self))
    }
}

/// Decodes a record from a row: keys are column names, scopes and keys of
/// prefetched rows.
@usableFromInline
struct RowDecoder: Decoder {
    @usableFromInline let row: Row
    /// The record type whose strategies apply (the outermost record, for
    /// nested values that are not records themselves), kept as a plain
    /// metatype: one word instead of two, so that the decoder fits in the
    /// inline buffer of `any Decoder` and decoding a record allocates no box.
    @usableFromInline let recordMetatype: Any.Type
    /// No initial value: `init` sets it, and an initial value would be
    /// made and released again for each decoded record (a call to the
    /// property's initializer and a `swift_release` per record).
    @usableFromInline let codingPath: [any CodingKey]
    @usableFromInline var userInfo: [CodingUserInfoKey: Any] { recordType.databaseDecodingUserInfo }

    /// The record type. A runtime cast: the paths that decode each record
    /// use ``recordMetatype`` only.
    var recordType: any FetchableRecord.Type {
        // Safe: set from a FetchableRecord type in `init`.
        recordMetatype as! any FetchableRecord.Type
    }

    @inlinable
    init(row: Row, recordType: any FetchableRecord.Type, codingPath: [any CodingKey] = []) {
        self.row = row
        self.recordMetatype = recordType
        self.codingPath = codingPath
    }

    @usableFromInline
    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        // A cursor's row reads its statement and decodes one record per
        // step, and the copies of its rows one record each: reuse the
        // container and the column plan of the first record.
        // Unretained (a retain and a release per record otherwise): this
        // decoder holds the row, and the row its cache, a constant.
        if codingPath.isEmpty, let cache = row.decodingCache.map(Unmanaged.passUnretained) {
            return cache._withUnsafeGuaranteedRef {
                $0.container(keyedBy: Key.self, recordTypeID: ObjectIdentifier(recordMetatype), recordType: recordType, row: row)
            }
        }
        let reader = RowSourceReader(source: .row(row), plan: nil, recordType: recordType, codingPath: codingPath)
        return KeyedDecodingContainer(OwningRowKeyedContainer<Key>(reader: reader))
    }

    /// Only prefetched rows decode as an unkeyed container, and they are
    /// reached through their key: this is a missing key.
    @usableFromInline
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let keys = row.prefetchedRows.keys.sorted()
        let context = DecodingError.Context(
            codingPath: codingPath.dropLast(),
            debugDescription: keys.isEmpty ? "No available prefetched rows" : "Available keys for prefetched rows: \(keys)")
        guard let key = codingPath.last else {
            throw DecodingError.typeMismatch([Any].self, context)
        }
        throw DecodingError.keyNotFound(key, context)
    }

    /// A single value decodes from the column of the coding key. At the
    /// top level (a record wrapping another, or the elements of prefetched
    /// values), scalars decode from the first column and other values from
    /// the whole row.
    @usableFromInline
    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        if let key = codingPath.last {
            guard let index = row.index(forColumn: key.stringValue) else {
                throw RowDecodingError.columnNotFound(key.stringValue, type: Any.self)
            }
            return ColumnValueDecoder.SingleColumnDecoder(dbValue: row.databaseValue(atIndex: index), column: row.columnNames[index])
        }
        return WholeRowContainer(decoder: self)
    }

    /// The single value container of a whole row.
    private struct WholeRowContainer: SingleValueDecodingContainer {
        let decoder: RowDecoder
        var codingPath: [any CodingKey] { [] }

        private var firstColumn: ColumnValueDecoder.SingleColumnDecoder {
            get throws {
                guard decoder.row.count > 0 else {
                    throw DecodingError.valueNotFound(Any.self, .init(codingPath: [], debugDescription: "a row without columns has no single value"))
                }
                return ColumnValueDecoder.SingleColumnDecoder(dbValue: decoder.row.databaseValue(atIndex: 0), column: decoder.row.columnNames[0])
            }
        }

        func decodeNil() -> Bool { (try? firstColumn.decodeNil()) ?? true }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            if T.self is any DatabaseValueConvertible.Type { return try firstColumn.decode(T.self) }
            if let record = T.self as? any FetchableRecord.Type { return try decodeRecord(record, as: T.self, from: decoder.row) }
            return try T(from: RowDecoder(row: decoder.row, recordType: decoder.recordType))
        }
    }
}

/// Decodes an array of records from prefetched rows.
struct PrefetchedRowsDecoder: Decoder {
    let rows: [Row]
    let recordType: any FetchableRecord.Type
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { recordType.databaseDecodingUserInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw DecodingError.typeMismatch(type, .init(codingPath: codingPath, debugDescription: "prefetched rows decode as an array or a set"))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { Container(rows: rows, recordType: recordType, codingPath: codingPath) }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(Any.self, .init(codingPath: codingPath, debugDescription: "prefetched rows decode as an array or a set"))
    }

    private struct Container: UnkeyedDecodingContainer {
        let rows: [Row]
        let recordType: any FetchableRecord.Type
        let codingPath: [any CodingKey]
        var currentIndex = 0
        var count: Int? { rows.count }
        var isAtEnd: Bool { currentIndex >= rows.count }

        init(rows: [Row], recordType: any FetchableRecord.Type, codingPath: [any CodingKey]) {
            self.rows = rows
            self.recordType = recordType
            self.codingPath = codingPath
        }

        mutating func decodeNil() throws -> Bool { false }

        /// The elements' type as a record type, looked up for the first
        /// element only (a conformance check costs a runtime lookup).
        private var elementType: (type: ObjectIdentifier, record: (any FetchableRecord.Type)?)?

        private mutating func recordElementType<T>(_ type: T.Type) -> (any FetchableRecord.Type)? {
            if let elementType, elementType.type == ObjectIdentifier(T.self) { return elementType.record }
            let record = T.self as? any FetchableRecord.Type
            elementType = (ObjectIdentifier(T.self), record)
            return record
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(T.self, .init(codingPath: codingPath, debugDescription: "no more prefetched rows"))
            }
            let row = rows[currentIndex]
            currentIndex += 1
            if let record = recordElementType(T.self) {
                return try decodeRecord(record, as: T.self, from: row)
            }
            return try T(from: RowDecoder(row: row, recordType: recordType, codingPath: codingPath))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(type, .init(codingPath: codingPath, debugDescription: "no more prefetched rows"))
            }
            defer { currentIndex += 1 }
            return try RowDecoder(row: rows[currentIndex], recordType: recordType, codingPath: codingPath).container(keyedBy: NestedKey.self)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            throw DecodingError.typeMismatch([Any].self, .init(codingPath: codingPath, debugDescription: "a prefetched row decodes as a keyed container"))
        }

        mutating func superDecoder() throws -> any Decoder {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "no more prefetched rows"))
            }
            defer { currentIndex += 1 }
            return RowDecoder(row: rows[currentIndex], recordType: recordType, codingPath: codingPath)
        }
    }
}

/// `T(row:)` for `record`, which is `T` itself, without the runtime cast
/// of `record.init(row:) as? T` (a lookup per call, and `Optional<T>`'s
/// metadata in code that is not specialized).
func decodeRecord<T>(_ record: any FetchableRecord.Type, as type: T.Type, from row: Row) throws -> T {
    func make<R: FetchableRecord>(_: R.Type) throws -> T {
        precondition(R.self == T.self)
        return reinterpret(try R(row: row), as: T.self)
    }
    return try make(record)
}

/// `T(prefetchedRows:)` for `collection`, which is `T` itself, without a
/// runtime cast.
func decodeCollection<T>(_ collection: any PrefetchedRecordCollection.Type, as type: T.Type, from rows: PrefetchedRows) throws -> T {
    func make<C: PrefetchedRecordCollection>(_: C.Type) throws -> T {
        precondition(C.self == T.self)
        return reinterpret(try C(prefetchedRows: rows), as: T.self)
    }
    return try make(collection)
}

/// A value whose type the caller has checked to be `T`.
private func reinterpret<Value, T>(_ value: Value, as type: T.Type) -> T {
    withUnsafePointer(to: value) { UnsafeRawPointer($0).assumingMemoryBound(to: T.self).pointee }
}

/// Arrays and sets of records, decoded from prefetched rows one record per
/// row, as ``PrefetchedRowsDecoder`` would, without an unkeyed container
/// and its per-element dispatch.
protocol PrefetchedRecordCollection {
    init(prefetchedRows rows: PrefetchedRows) throws
}

extension Array: PrefetchedRecordCollection where Element: FetchableRecord {
    init(prefetchedRows rows: PrefetchedRows) throws {
        // Not specialized (the element type is only known at run time):
        // initializing memory costs no lookup of the array's metadata per
        // record, as `append` would. Never with no rows: that would write
        // into the empty array's storage, one global shared by all threads.
        guard rows.count > 0 else {
            self = []
            return
        }
        self = try Array(unsafeUninitializedCapacity: rows.count) { buffer, initializedCount in
            try rows.forEach { row in
                (buffer.baseAddress! + initializedCount).initialize(to: try Element(row: row))
                initializedCount += 1
            }
        }
    }
}

extension Set: PrefetchedRecordCollection where Element: FetchableRecord {
    init(prefetchedRows rows: PrefetchedRows) throws {
        var records = Set(minimumCapacity: rows.count)
        try rows.forEach { records.insert(try Element(row: $0)) }
        self = records
    }
}
