/// The values of copied rows, side by side in one allocation.
///
/// The copies of a statement's rows (`fetchAll`, prefetched rows) would
/// otherwise each own an array: one more allocation per row, a runtime
/// lookup of the array's storage type, and a generic per-value destruction
/// when it goes. A chunk holds the values of many rows, and each row keeps
/// its chunk alive. Chunks grow with the fetch (1, 2, 4 ... 256 rows), so a
/// single copied row does not keep the room of many.
final class RowValueChunk: ManagedBuffer<RowValueChunk.Header, DatabaseValue> {
    struct Header {
        /// The values initialized so far.
        var count: Int
        let capacity: Int
    }

    /// An empty chunk with room for `capacity` values.
    static func make(capacity: Int) -> RowValueChunk {
        let buffer = create(minimumCapacity: capacity) { _ in Header(count: 0, capacity: capacity) }
        return unsafeDowncast(buffer, to: RowValueChunk.self)
    }

    /// A chunk that holds `values`.
    static func make(values: [DatabaseValue]) -> (RowValueChunk, UnsafeMutablePointer<DatabaseValue>) {
        let chunk = make(capacity: values.count)
        let start = chunk.append(values.count) { start in
            for (index, value) in values.enumerated() { (start + index).initialize(to: value) }
        }!
        return (chunk, start)
    }

    /// A chunk with room for `capacity` values, to which this one's values
    /// move; this one is left empty.
    func moved(toCapacity capacity: Int) -> RowValueChunk {
        let count = header.count
        precondition(capacity >= count)
        let chunk = RowValueChunk.make(capacity: capacity)
        withUnsafeMutablePointers { header, elements in
            _ = chunk.append(count) { $0.moveInitialize(from: elements, count: count) }
            header.pointee.count = 0
        }
        return chunk
    }

    /// Initializes `count` more values with `initialize` and returns where
    /// they start; nil when the chunk has no room for them.
    @inline(__always)
    func append(_ count: Int, _ initialize: (UnsafeMutablePointer<DatabaseValue>) -> Void) -> UnsafeMutablePointer<DatabaseValue>? {
        withUnsafeMutablePointers { header, elements in
            let used = header.pointee.count
            guard used + count <= header.pointee.capacity else { return nil }
            let start = elements + used
            initialize(start)
            header.pointee.count = used + count
            return start
        }
    }

    deinit {
        withUnsafeMutablePointers { header, elements in
            // One value at a time: the destruction of a run of values goes
            // through the runtime's generic path.
            for index in 0..<header.pointee.count { (elements + index).deinitialize(count: 1) }
        }
    }
}

/// The values of one row in a ``RowValueChunk``.
struct RowValues {
    /// Keeps `start` valid.
    let chunk: RowValueChunk
    let start: UnsafeMutablePointer<DatabaseValue>
    let count: Int

    init(chunk: RowValueChunk, start: UnsafeMutablePointer<DatabaseValue>, count: Int) {
        self.chunk = chunk
        self.start = start
        self.count = count
    }

    /// Values of a row of their own.
    init(_ values: [DatabaseValue]) {
        let (chunk, start) = RowValueChunk.make(values: values)
        self.init(chunk: chunk, start: start, count: values.count)
    }

    subscript(index: Int) -> DatabaseValue {
        precondition(index >= 0 && index < count, "Row index out of range")
        return start[index]
    }
}
