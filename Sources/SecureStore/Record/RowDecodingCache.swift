/// What a row that reads a live statement remembers from one decoded record
/// to the next, so that the records after the first skip the setup work.
///
/// A cursor hands the same ``Row`` to every record it decodes, and every
/// record asks for the same container and, almost always, the same keys in
/// the same order. Building a `KeyedDecodingContainer` costs an allocation
/// and three generic metadata lookups (measured: about 900 instructions);
/// finding a column by name costs a string scan. Both are done for the
/// first record and reused for the others.
final class RowDecodingCache {
    private let statement: Statement
    /// The `CodingKey` type the cached container was made for.
    private var keyType: ObjectIdentifier?
    /// The record type it was made for.
    private var recordType: ObjectIdentifier?
    /// A `ContainerBox<KeyedDecodingContainer<Key>>` for `keyType`.
    private var box: AnyObject?
    private var plan: ColumnPlan?

    init(statement: Statement) {
        self.statement = statement
    }

    /// The container for this record, made for the first record and reused.
    func container<Key: CodingKey>(keyedBy type: Key.Type, recordType: any FetchableRecord.Type) -> KeyedDecodingContainer<Key> {
        if keyType == ObjectIdentifier(Key.self), self.recordType == ObjectIdentifier(recordType), let box, let plan {
            plan.rewind()
            // Safe: `box` was made below for this same Key type.
            return unsafeDowncast(box, to: ContainerBox<KeyedDecodingContainer<Key>>.self).value()
        }
        return makeContainer(keyedBy: type, recordType: recordType)
    }

    // Kept apart so that the reuse path above does not pay for the
    // metadata of `KeyedDecodingContainer<Key>`, which this one needs.
    @inline(never)
    private func makeContainer<Key: CodingKey>(keyedBy type: Key.Type, recordType: any FetchableRecord.Type) -> KeyedDecodingContainer<Key> {
        let plan = ColumnPlan()
        let container = KeyedDecodingContainer(RowKeyedContainer<Key>(source: .statement(statement), plan: plan, recordType: recordType))
        self.keyType = ObjectIdentifier(Key.self)
        self.recordType = ObjectIdentifier(recordType)
        self.box = ContainerBox(container)
        self.plan = plan
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

    /// The record type that uses this plan, when rows share it.
    @exclusivity(unchecked) private var owner: ObjectIdentifier?

    /// True if records of `recordType` may use this plan: the first type
    /// to ask owns it. A record decoded from the whole row of another
    /// (`BookInfo.book`) must not rewind the plan its parent is using.
    func claim(for recordType: any FetchableRecord.Type) -> Bool {
        let type = ObjectIdentifier(recordType)
        if owner == nil { owner = type }
        return owner == type
    }

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
