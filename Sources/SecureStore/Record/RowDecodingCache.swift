/// What a row that reads a live statement remembers from one decoded record
/// to the next, so that the records after the first skip the setup work.
///
/// A cursor hands the same ``Row`` to every record it decodes, and every
/// record asks for the same container and, almost always, the same keys in
/// the same order. Building a `KeyedDecodingContainer` costs an allocation
/// and three generic metadata lookups (measured: about 900 instructions);
/// finding a column by name costs a string scan. Both are done for the
/// first record and reused for the others.
///
/// The copies of one statement's rows share a cache too: their records
/// reuse one container whose reader moves from copy to copy.
///
/// Each record type has its own container and plan: a record decoded from
/// the whole row of another (`BookInfo.book`) must not take the container
/// its parent is using.
final class RowDecodingCache {
    /// A container made for one record type and one `CodingKey` type.
    private final class Entry {
        let keyType: ObjectIdentifier
        let recordType: ObjectIdentifier
        /// A `ContainerBox<KeyedDecodingContainer<Key>>` for `keyType`.
        let box: AnyObject
        /// The reader of the container, which does not retain it.
        let reader: RowSourceReader
        /// The plan of the reader.
        let plan: ColumnPlan

        init(keyType: ObjectIdentifier, recordType: ObjectIdentifier, box: AnyObject, reader: RowSourceReader, plan: ColumnPlan) {
            self.keyType = keyType
            self.recordType = recordType
            self.box = box
            self.reader = reader
            self.plan = plan
        }
    }

    private let statement: Statement
    /// True for the cache of copied rows.
    private let isForCopies: Bool
    /// The entry of the last record type, checked first. Unretained
    /// (``entries`` holds it), so that reading it for each record costs no
    /// retain; no access to it overlaps another, so none is checked.
    @exclusivity(unchecked) private var last: Unmanaged<Entry>?
    private var entries: [Entry] = []

    /// The cache of the rows that read `statement`.
    init(statement: Statement) {
        self.statement = statement
        isForCopies = false
    }

    /// The cache shared by the copies of the rows of `statement`.
    init(forCopiesOf statement: Statement) {
        self.statement = statement
        isForCopies = true
    }

    /// The container for this record, made for the first record of its
    /// type and reused.
    func container<Key: CodingKey>(
        keyedBy type: Key.Type, recordTypeID: ObjectIdentifier,
        recordType: @autoclosure () -> any FetchableRecord.Type, row: Row
    ) -> KeyedDecodingContainer<Key> {
        let keyType = ObjectIdentifier(Key.self)
        if let last, last._withUnsafeGuaranteedRef({ $0.keyType == keyType && $0.recordType == recordTypeID }) {
            return last._withUnsafeGuaranteedRef { reuse($0, keyedBy: Key.self, row: row) }
        }
        if let entry = entries.first(where: { $0.keyType == keyType && $0.recordType == recordTypeID }) {
            last = .passUnretained(entry)
            return reuse(entry, keyedBy: Key.self, row: row)
        }
        return makeContainer(keyedBy: type, recordType: recordType(), row: row)
    }

    @inline(__always)
    private func reuse<Key: CodingKey>(_ entry: Entry, keyedBy type: Key.Type, row: Row) -> KeyedDecodingContainer<Key> {
        entry.plan.rewind()
        if isForCopies { entry.reader.borrow(row) }
        // Safe: the box of this entry was made below for this same Key type.
        return unsafeDowncast(entry.box, to: ContainerBox<KeyedDecodingContainer<Key>>.self).value()
    }

    // Kept apart so that the reuse path above does not pay for the
    // metadata of `KeyedDecodingContainer<Key>`, which this one needs.
    @inline(never)
    private func makeContainer<Key: CodingKey>(keyedBy type: Key.Type, recordType: any FetchableRecord.Type, row: Row) -> KeyedDecodingContainer<Key> {
        let plan = ColumnPlan()
        let reader = isForCopies
            ? RowSourceReader(borrowing: row, plan: plan, recordType: recordType)
            : RowSourceReader(source: .statement(statement), plan: plan, recordType: recordType)
        let container = KeyedDecodingContainer(RowKeyedContainer<Key>(unretainedReader: reader))
        let entry = Entry(keyType: ObjectIdentifier(Key.self), recordType: ObjectIdentifier(recordType),
                          box: ContainerBox(container), reader: reader, plan: plan)
        entries.append(entry)
        last = .passUnretained(entry)
        return container
    }
}

/// The column of each key, in the order a record asks for its keys.
///
/// Each answer is checked against the key's name, so a record that asks
/// for other keys (or in another order) on some rows still gets the right
/// columns: the plan is corrected where it differs.
final class ColumnPlan {
    // Runtime exclusivity checks cost more than the lookup they guard
    // (about 150 instructions per decoded property). No access here can
    // overlap another: every method is short and calls nothing that
    // could come back into this plan while it runs (`lookup` reads the
    // statement only).
    @exclusivity(unchecked) private var names: [String] = []
    /// The column index, or -1 when the row has no such column.
    @exclusivity(unchecked) private var indexes: [Int] = []
    @exclusivity(unchecked) private var position = 0
    /// The key of this record decoded from the whole row (see
    /// `RowKeyedContainer.decodeFromWholeRow`).
    @exclusivity(unchecked) var decodedRootKey: String?

    /// Starts a new record.
    func rewind() {
        position = 0
        decodedRootKey = nil
    }

    enum Answer {
        case column(Int)
        /// The row has no column of this name.
        case missing
        /// Not seen at this position: look it up, then ``learn(_:index:)``.
        case unknown
    }

    /// What the previous records found for the key asked for at this
    /// position, when it was the same key.
    @inline(__always)
    func recall(_ name: String) -> Answer {
        let current = position
        position = current + 1
        guard current < names.count, names[current] == name else { return .unknown }
        let index = indexes[current]
        return index >= 0 ? .column(index) : .missing
    }

    /// Remembers the answer for the key just asked for: this position now
    /// holds this key.
    func learn(_ name: String, index: Int?) -> Int? {
        let current = position - 1
        if current < names.count {
            names[current] = name
            indexes[current] = index ?? -1
        } else if current == names.count {
            names.append(name)
            indexes.append(index ?? -1)
        }
        return index
    }
}
