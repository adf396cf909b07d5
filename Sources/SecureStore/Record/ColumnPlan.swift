/// The column of each key, in the order a record asks for its keys.
///
/// Each answer is checked against the key, so a record that asks for
/// other keys (or in another order) on some rows still gets the right
/// columns: the plan is corrected where it differs.
///
/// A key is recognized by its bits when its type allows it (``keyWidth``):
/// a `CodingKey` enum, as the compiler synthesizes them, is one byte with
/// no references, and two such keys with the same bits are the same key.
/// The key's `stringValue`, a call through its conformance that makes a
/// string, is then only asked for the first time a position is seen.
///
/// ```swift
/// plan.rewind()                            // a new record
/// // then for each key it asks for, in its order:
/// switch plan.recall(key) {
/// case .column(let index): ...             // read the column
/// case .missing: ...                       // the row has no such column
/// case .unknown(let name, let bits):       // look the name up, then
///     plan.learn(name, bits: bits, index: index)
/// }
/// ```
final class ColumnPlan {
    // Runtime exclusivity checks cost more than the lookup they guard
    // (about 150 instructions per decoded property). No access here can
    // overlap another: every method is short and calls nothing that
    // could come back into this plan while it runs (`lookup` reads the
    // statement only).
    @exclusivity(unchecked) private var names: [String] = []
    /// What is known of each position: the bits of its key and its column.
    private struct Slot {
        /// The bits of the key seen at this position (``bits(of:)``), or
        /// ``unknownBits``.
        var bits: UInt64
        /// The column index, or -1 when the row has no such column.
        var index: Int
    }
    /// One slot per position, `count` of them (as many as `names`), in raw
    /// storage: the fast path of `recall(_:)` for a key reads one slot after
    /// one check of `count`, where two arrays cost a load of each array
    /// and a bounds check of each.
    @exclusivity(unchecked) private var slots: UnsafeMutablePointer<Slot>
    @exclusivity(unchecked) private var capacity = 8
    @exclusivity(unchecked) private var count = 0
    @exclusivity(unchecked) private var position = 0
    /// The key of this record decoded from the whole row (see
    /// `RowKeyedContainer.decodeFromWholeRow`).
    @exclusivity(unchecked) var decodedRootKey: String?

    /// The size of the plan's keys when two of them with the same bytes are
    /// the same key: a type of at most seven bytes without references. -1
    /// for other key types, which are recognized by their names only.
    private let keyWidth: Int

    /// No key has these bits (``bits(of:)`` sets the top bit).
    static let unknownBits: UInt64 = 0

    /// A plan for the keys of `keyType`.
    init<Key: CodingKey>(keyType: Key.Type) {
        keyWidth = _isPOD(Key.self) && MemoryLayout<Key>.size < MemoryLayout<UInt64>.size ? MemoryLayout<Key>.size : -1
        slots = .allocate(capacity: capacity)
    }

    deinit {
        // Slots are plain data: nothing to deinitialize.
        slots.deallocate()
    }

    /// Starts a new record.
    func rewind() {
        position = 0
        // Checked first: assigning nil would release the old value even
        // when there is none, a call for every record.
        if decodedRootKey != nil { decodedRootKey = nil }
    }

    enum Answer {
        case column(Int)
        /// The row has no column of this name.
        case missing
        /// Not seen at this position: look the name up, then
        /// ``learn(_:bits:index:)`` with the name and bits given here.
        case unknown(name: String, bits: UInt64)
    }

    /// The bytes of `key` with the top bit set, or ``unknownBits`` for a
    /// key type whose bits do not tell its keys apart. Padding bytes, if
    /// any, can only make two equal keys look different: their names are
    /// then compared.
    @inline(__always)
    func bits<Key: CodingKey>(of key: Key) -> UInt64 {
        let mark: UInt64 = 1 << 63
        switch keyWidth {
        case 1:
            // The synthesized keys: a byte read in place (copying it
            // through raw memory is a call to `memcpy`).
            return UInt64(unsafeBitCast(key, to: UInt8.self)) | mark
        case 0:
            return mark
        case 2...:
            // At most seven bytes: the top one stays clear for the mark.
            var bits: UInt64 = 0
            withUnsafeMutableBytes(of: &bits) { $0.storeBytes(of: key, as: Key.self) }
            return bits | mark
        default:
            return Self.unknownBits
        }
    }

    /// What the previous records found for the key asked for at this
    /// position, when it was the same key. The key's name is asked for
    /// only when its bits do not answer.
    @inline(__always)
    func recall<Key: CodingKey>(_ key: Key) -> Answer {
        let current = position
        position = current &+ 1
        let bits = bits(of: key)
        if bits != Self.unknownBits, current < count, slots[current].bits == bits {
            return answer(at: current)
        }
        let name = key.stringValue
        guard current < count, names[current] == name else { return .unknown(name: name, bits: bits) }
        slots[current].bits = bits
        return answer(at: current)
    }

    /// What the previous records found for the key of this name asked for
    /// at this position, when it was the same key.
    @inline(__always)
    func recall(_ name: String) -> Answer {
        let current = position
        position = current &+ 1
        guard current < count, names[current] == name else { return .unknown(name: name, bits: Self.unknownBits) }
        return answer(at: current)
    }

    /// The answer of a position below `count`.
    @inline(__always)
    private func answer(at position: Int) -> Answer {
        let index = slots[position].index
        return index >= 0 ? .column(index) : .missing
    }

    /// Remembers the answer for the key just asked for: this position now
    /// holds this key.
    func learn(_ name: String, bits: UInt64, index: Int?) -> Int? {
        let current = position - 1
        let slot = Slot(bits: bits, index: index ?? -1)
        if current < count {
            names[current] = name
            slots[current] = slot
        } else if current == count {
            if count == capacity { slots = slots.doubled(count: count, capacity: &capacity) }
            names.append(name)
            (slots + count).initialize(to: slot)
            count += 1
        }
        return index
    }
}
