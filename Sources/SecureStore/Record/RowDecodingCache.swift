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
        let plan = ColumnPlan(keyType: Key.self)
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
