/// Encodes a record into a ``PersistenceContainer``.
///
/// Encoders are reused: an insert runs for every record, and a fresh
/// encoder costs two allocations plus the making of its keyed container
/// (an allocation and three generic metadata lookups, about 900
/// instructions). Each thread keeps an encoder, with the container of the
/// last record type it encoded.
///
/// An encoder is used by one thread at a time: it is kept by one thread
/// (`ThreadLocalCache`), and lent to one `persistenceContainer(of:)` call
/// at a time, or kept by one connection (``Binding``), and lent to one
/// insert that binds values as they are encoded at a time.
final class RecordEncoder: Encoder, ThreadLocalReusable {
    /// Where the containers write.
    final class Box {
        // Runtime exclusivity checks cost more than the work here (two per
        // encoded property, about 150 instructions); only this class
        // touches these, one call at a time, and no call reenters.
        @exclusivity(unchecked) private(set) var container = PersistenceContainer()
        /// How many columns this record has set, while they repeat the
        /// previous record's: the container still holds the previous
        /// record's columns, and the values from here on are its values.
        @exclusivity(unchecked) private var count = 0
        /// True while this record's columns repeat the previous record's.
        @exclusivity(unchecked) private var followsPrevious = true
        /// The type of the record being encoded, for its strategies.
        @exclusivity(unchecked) private(set) var recordType: any EncodableRecord.Type = NoRecord.self
        /// Its column strategy, nil for `.useDefaultKeys`.
        @exclusivity(unchecked) private var columnStrategy: DatabaseColumnEncodingStrategy?

        /// Starts a record. The container keeps the previous record's
        /// columns and values: a record that sets the same columns in the
        /// same order (every record of a type, usually) replaces the
        /// values in place, and leaves the columns untouched. The columns
        /// array stays the one the connection's cached INSERT compares
        /// with (equal at once, as the same storage), and no array is
        /// emptied and refilled per record.
        func start(_ recordType: any EncodableRecord.Type) {
            count = 0
            followsPrevious = true
            binding = nil
            recordsStarted &+= 1
            self.recordType = recordType
            let strategy = recordType.databaseColumnEncodingStrategy
            columnStrategy = strategy.isDefault ? nil : strategy
        }

        /// How many records this box started, for a probe: it never
        /// changes what a record being encoded uses.
        @exclusivity(unchecked) private(set) var recordsStarted: UInt = 0

        /// The column of a coding key.
        @inline(__always)
        func column(forKey key: some CodingKey) -> String {
            guard let columnStrategy else { return key.stringValue }
            return columnStrategy.column(forKey: key)
        }

        /// Sets the value of a property: dates, data and UUIDs with the
        /// record's strategies, nested values as single values or JSON.
        func set<T: Encodable>(encoding value: T, forKey key: some CodingKey) throws {
            let column = column(forKey: key)
            let dbValue: DatabaseValue
            if let convertible = value as? any DatabaseValueConvertible {
                dbValue = try recordType.databaseValue(of: convertible, column: column)
            } else {
                let recordType = self.recordType
                dbValue = try ColumnValueEncoder.encodedDatabaseValue(
                    of: value, codingPath: [key], userInfo: recordType.databaseEncodingUserInfo
                ) { recordType.databaseJSONEncoder(for: key.stringValue) }
            }
            set(dbValue, forColumn: column)
        }

        /// The record's container, without the previous record's columns
        /// that this one did not set. It shares its storage with this box
        /// until the next record, which then reuses or replaces it (values
        /// are copied on write, so a caller that keeps it sees no change).
        func finish() -> PersistenceContainer {
            if followsPrevious { container.removeColumns(from: count) }
            return container
        }

        /// The INSERT whose statement the values go to as they come, in
        /// the order of its columns, instead of the container
        /// (unretained: the caller holds it).
        @exclusivity(unchecked) private var binding: Unmanaged<CachedInsert>?
        /// False once a column was not the INSERT's next one, or a value
        /// could not be bound.
        @exclusivity(unchecked) private var bindingHolds = true

        /// The INSERT of the last bound record, held from its start until
        /// a record is bound to another: the caller reaches it unretained
        /// (``Database/lastInsert(of:conflictResolution:)``), and the
        /// record's own code, which runs while it is bound, could drop it
        /// from the connection's cache. Kept, not retained and released
        /// for each record (two atomic operations).
        @exclusivity(unchecked) private var heldInsert: CachedInsert?

        /// Lets go of the last bound record's INSERT.
        func releaseHeldInsert() { heldInsert = nil }

        /// Starts a record whose values are bound to `insert`'s statement
        /// as they are encoded. The container is left as it is.
        func start(_ recordType: any EncodableRecord.Type, binding insert: Unmanaged<CachedInsert>) {
            if heldInsert.map({ Unmanaged.passUnretained($0).toOpaque() }) != insert.toOpaque() {
                heldInsert = insert.takeUnretainedValue()
            }
            start(recordType)
            insert._withUnsafeGuaranteedRef {
                $0.isBeingBound = true
                $0.statement.startBindingOneByOne()
            }
            binding = insert
            bindingHolds = true
        }

        /// Ends a bound record: true if its columns were exactly the
        /// INSERT's, in order, each value bound.
        func finishBinding() -> Bool {
            guard let insert = binding else { return false }
            binding = nil
            return bindingHolds && insert._withUnsafeGuaranteedRef { count == $0.columns.count }
        }

        /// Binds a value to the INSERT's next column, if `column` is it.
        @inline(__always)
        private func bind(forColumn column: String, in insert: CachedInsert, _ bind: (Statement, CInt) -> CInt) {
            let columns = insert.columns
            guard bindingHolds, count < columns.count, columns[count] == column else {
                bindingHolds = false
                return
            }
            count += 1
            if bind(insert.statement, CInt(count)) != 0 { bindingHolds = false }
        }

        /// Sets a column's value that binds as it is: to the INSERT, when
        /// binding, without making a ``DatabaseValue``.
        @inline(__always)
        func set<Value: DirectlyBoundValue>(_ value: Value, forColumn column: String) {
            guard let binding else { return set(value.databaseValue, forColumn: column) }
            binding._withUnsafeGuaranteedRef { bind(forColumn: column, in: $0) { value.bind(to: $0, at: $1) } }
        }

        /// Sets a column's value. A key that repeats the previous record's
        /// key at the same position, after keys that all did, cannot be
        /// a duplicate of this record's earlier keys: its value replaces
        /// the previous record's, without a search (a string comparison
        /// per earlier column).
        func set(_ value: consuming DatabaseValue, forColumn column: String) {
            if let binding {
                binding._withUnsafeGuaranteedRef { bind(forColumn: column, in: $0) { $0.bind(value, at: $1) } }
                return
            }
            if followsPrevious {
                if count < container.columns.count, container.columns[count] == column {
                    container.replaceValue(at: count, with: value)
                    count += 1
                    return
                }
                // Another column: the previous record's from here on go.
                container.removeColumns(from: count)
                followsPrevious = false
            }
            container.set(value, forColumn: column)
        }
    }

    let box = Box()
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { box.recordType.databaseEncodingUserInfo }

    /// The `CodingKey` type the cached container was made for.
    private var keyType: ObjectIdentifier?
    /// A `ContainerBox<KeyedEncodingContainer<Key>>` for `keyType`.
    private var cachedContainer: AnyObject?

    /// One encoder per thread: no lock per record (a shared pool cost two
    /// atomic operations per record and bounced between encoding threads).
    private static let cache = ThreadLocalCache<RecordEncoder>()
    /// True while a `persistenceContainer(of:)` call on this thread uses
    /// this encoder.
    var isLent = false

    /// What a plain insert was seen to run on this thread, since
    /// ``startInsertProbe()``: which default callbacks.
    struct InsertProbe: OptionSet {
        let rawValue: UInt8
        /// The default `didInsert` of ``PersistableRecord``.
        static let didInsert = InsertProbe(rawValue: 1 << 0)
        /// The default `didSave`.
        static let didSave = InsertProbe(rawValue: 1 << 1)
    }
    private var insertProbe: InsertProbe = []
    /// The box's count of records when the probe started.
    private var recordsBeforeProbe: UInt = 0

    /// Forgets what the last insert on this thread was seen to run.
    static func startInsertProbe() {
        cache.withExistingObject { encoder in
            encoder.insertProbe = []
            encoder.recordsBeforeProbe = encoder.box.recordsStarted
        }
    }

    /// Notes that a default callback ran, for a probe.
    static func noteDefaultCallback(_ callback: InsertProbe) {
        cache.withExistingObject { $0.insertProbe.insert(callback) }
    }

    /// True if, since ``startInsertProbe()``, the default `didInsert` and
    /// `didSave` ran, and this thread's encoder encoded a record, the last
    /// of `type` (its `encode(to: inout PersistenceContainer)` is the
    /// `Encodable` one, which runs this encoder).
    static func insertProbeFound(_ type: Any.Type) -> Bool {
        var found = false
        cache.withExistingObject { encoder in
            found = encoder.insertProbe.contains([.didInsert, .didSave])
                && encoder.box.recordsStarted != encoder.recordsBeforeProbe
                && ObjectIdentifier(encoder.box.recordType) == ObjectIdentifier(type)
        }
        return found
    }

    /// The columns and values of `record`.
    static func persistenceContainer<Record: EncodableRecord & Encodable>(of record: Record) throws -> PersistenceContainer {
        try encode(record, start: { $0.start(Record.self) }, finish: { $0.finish() })
    }

    /// Binds `record`'s values to `insert`'s statement as they are
    /// encoded, then, if its columns were the INSERT's, in the same order,
    /// runs `execute` with the statement and returns true. False leaves
    /// the statement to be bound again.
    ///
    /// Uses `binding` (a connection's ``Database/bindingEncoder``), or a
    /// new encoder when a record being bound with it inserts another. The
    /// encoder's box holds `insert` from the start of the encoding.
    static func bind<Record: EncodableRecord & Encodable>(
        _ record: Record, to insert: Unmanaged<CachedInsert>, with binding: Binding,
        then execute: (Statement) throws -> Void
    ) throws -> Bool {
        let encoder = binding.encoder
        guard !encoder.isLent else { return try bind(record, to: insert, with: Binding(), then: execute) }
        encoder.isLent = true
        // The box holds `insert` from its start on.
        defer {
            insert._withUnsafeGuaranteedRef { $0.isBeingBound = false }
            encoder.isLent = false
        }
        let bound = try encode(record, with: encoder, as: binding.existential,
                               start: { $0.start(Record.self, binding: insert) }, finish: { $0.finishBinding() })
        guard bound else { return false }
        // Still lent, so that nothing inserted from `execute` (a SQL
        // function's code) starts this box with another INSERT.
        try insert._withUnsafeGuaranteedRef { try execute($0.statement) }
        return true
    }

    /// An encoder kept with its `Encoder` existential, made once: passed
    /// to a record's `encode(to:)` from here, the encoder is not retained
    /// and released around each record, as the existential made for each
    /// call is (two atomic operations per record).
    struct Binding {
        let encoder: RecordEncoder
        let existential: any Encoder

        init() {
            let encoder = RecordEncoder()
            self.encoder = encoder
            existential = encoder
        }

        /// Lets go of the INSERT of the last record bound (its statement),
        /// before the connection closes.
        func releaseInsert() { encoder.box.releaseHeldInsert() }
    }

    /// Encodes `record` with this thread's encoder, between `start` and
    /// `finish` of its box (`finish` runs after an error too).
    @inline(__always)
    private static func encode<Record: Encodable, Result>(
        _ record: Record, start: (Box) -> Void, finish: (Box) -> Result
    ) throws -> Result {
        try cache.withObject { try encode(record, with: $0, as: $0, start: start, finish: finish) }
    }

    /// Encodes `record` with `encoder`, which `existential` is.
    @inline(__always)
    private static func encode<Record: Encodable, Result>(
        _ record: Record, with encoder: RecordEncoder, as existential: any Encoder,
        start: (Box) -> Void, finish: (Box) -> Result
    ) throws -> Result {
        // The box is reached unretained: the encoder holds it (a `let`).
        // Reached as `encoder.box`, it was retained and released around
        // each of the two calls (four atomic operations per record).
        let box = Unmanaged.passUnretained(encoder.box)
        box._withUnsafeGuaranteedRef(start)
        do {
            try record.encode(to: existential)
        } catch {
            _ = box._withUnsafeGuaranteedRef(finish)
            throw error
        }
        return box._withUnsafeGuaranteedRef(finish)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if keyType == ObjectIdentifier(Key.self), let cachedContainer {
            // Safe: made below for this same Key type.
            return unsafeDowncast(cachedContainer, to: ContainerBox<KeyedEncodingContainer<Key>>.self).value()
        }
        return makeContainer(keyedBy: type)
    }

    // Apart, so that the reuse path above does not pay for the metadata of
    // `KeyedEncodingContainer<Key>`.
    @inline(never)
    private func makeContainer<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let container = KeyedEncodingContainer(RecordKeyedContainer<Key>(box: box))
        keyType = ObjectIdentifier(Key.self)
        cachedContainer = ContainerBox(container)
        return container
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        preconditionFailure("a record encodes into a keyed container (one key per column)")
    }

    /// A record that encodes itself as a single value (a wrapper around
    /// another record) writes that value's columns.
    func singleValueContainer() -> any SingleValueEncodingContainer { WholeRecordContainer(encoder: self) }

    private struct WholeRecordContainer: SingleValueEncodingContainer {
        let encoder: RecordEncoder
        var codingPath: [any CodingKey] { [] }

        func encodeNil() throws { unsupported() }

        func encode<T: Encodable>(_ value: T) throws {
            if T.self is any DatabaseValueConvertible.Type { unsupported() }
            if let record = value as? any EncodableRecord {
                var container = PersistenceContainer()
                try record.encode(to: &container)
                for (column, value) in container.pairs { encoder.box.set(value, forColumn: column) }
            } else {
                try value.encode(to: encoder)
            }
        }

        private func unsupported() -> Never {
            preconditionFailure("Can't encode a single value in a database row: encode a record, or a keyed container")
        }
    }
}

struct RecordKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: RecordEncoder.Box
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws {
        box.set(.null, forColumn: box.column(forKey: key))
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try box.set(encoding: value, forKey: key)
    }

    // The common types skip the dynamic cast of the generic method, and
    // bind as they are when the values go straight to an INSERT.
    mutating func encode(_ value: Bool, forKey key: Key) throws { box.set(value, forColumn: box.column(forKey: key)) }
    mutating func encode(_ value: String, forKey key: Key) throws { box.set(value, forColumn: box.column(forKey: key)) }
    mutating func encode(_ value: Double, forKey key: Key) throws { box.set(value, forColumn: box.column(forKey: key)) }
    mutating func encode(_ value: Float, forKey key: Key) throws { box.set(value, forColumn: box.column(forKey: key)) }
    mutating func encode(_ value: Int, forKey key: Key) throws { box.set(value, forColumn: box.column(forKey: key)) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { box.set(value, forColumn: box.column(forKey: key)) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { box.set(value, forColumn: box.column(forKey: key)) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { box.set(value, forColumn: box.column(forKey: key)) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { box.set(value, forColumn: box.column(forKey: key)) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { box.set(value, forColumn: box.column(forKey: key)) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { box.set(value, forColumn: box.column(forKey: key)) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { box.set(value, forColumn: box.column(forKey: key)) }

    // Optional properties are written as NULL rather than skipped, so that
    // an update clears them.
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try encodeOptional(value, key) }

    private mutating func encodeOptional<T: DirectlyBoundValue>(_ value: T?, _ key: Key) throws {
        if let value { box.set(value, forColumn: box.column(forKey: key)) } else { try encodeNil(forKey: key) }
    }

    private mutating func encodeOptional<T: DatabaseValueConvertible>(_ value: T?, _ key: Key) throws {
        box.set(value?.databaseValue ?? .null, forColumn: box.column(forKey: key))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        preconditionFailure("nested containers are stored as JSON: encode a Codable value for \(box.column(forKey: key))")
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        preconditionFailure("nested containers are stored as JSON: encode a Codable value for \(box.column(forKey: key))")
    }

    mutating func superEncoder() -> any Encoder { preconditionFailure("superEncoder is not supported by records") }
    mutating func superEncoder(forKey key: Key) -> any Encoder { preconditionFailure("superEncoder is not supported by records") }
}

/// The record type of an encoder's box before its first record.
private struct NoRecord: EncodableRecord {
    func encode(to container: inout PersistenceContainer) throws {}
}
