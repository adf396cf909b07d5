/// The rows of one prefetched association for all the parents at once:
/// their values side by side in one chunk, in the order of the fetch, and
/// the rows of each parent as a range of ``order``.
///
/// `including(all:)` may fetch many rows: ten books for each of 10,000
/// authors. As rows of their own, each would be an object to allocate,
/// group, decode and free, scattered in memory. Here the records decode
/// from one row that moves over the values (``PrefetchedRows/forEach(_:)``),
/// and a ``Row`` of its own is made only when one is asked for
/// (`row.prefetchedRows[key]`). The values never change once fetched.
final class PrefetchedRowBuffer {
    /// The column names of every row.
    let names: [String]
    let columnCount: Int
    /// The number of rows fetched.
    let rowCount: Int
    /// Holds the values; the first row's start at ``start``.
    private let chunk: RowValueChunk
    let start: UnsafeMutablePointer<DatabaseValue>
    /// Shared by the records decoded from these rows, as by the copies of a
    /// statement's rows.
    let decodingCache: RowDecodingCache
    /// The positions of the rows grouped by parent, set by ``group(_:)``.
    private(set) var order: [Int32] = []

    /// Steps `statement` to its end and keeps the values of every row.
    init(fetching statement: Statement) throws {
        names = statement.columnNames
        columnCount = names.count
        decodingCache = RowDecodingCache(forCopiesOf: statement)
        let stepper = try StatementStepper(statement: statement, arguments: nil)
        let handle = statement.sqliteStatement
        let count = columnCount
        var chunk = RowValueChunk.make(capacity: Swift.max(count * 16, 1))
        var rows = 0
        while try stepper.step() {
            let read = { (start: UnsafeMutablePointer<DatabaseValue>) in
                for index in 0..<count {
                    (start + index).initialize(to: DatabaseValue(sqliteStatement: handle, index: CInt(index)))
                }
            }
            if chunk.append(count, read) == nil {
                // Twice the room, the values moved (not copied) over.
                chunk = chunk.moved(toCapacity: chunk.header.capacity * 2)
                _ = chunk.append(count, read)
            }
            rows += 1
        }
        precondition(rows <= Int(Int32.max), "too many prefetched rows")
        rowCount = rows
        self.chunk = chunk
        start = chunk.withUnsafeMutablePointerToElements { $0 }
    }

    /// The values of the row at `position` in the fetch.
    @inline(__always)
    func values(at position: Int) -> RowValues {
        RowValues(chunk: chunk, start: start + position * columnCount, count: columnCount)
    }

    /// The row at `position` in the fetch, as a row of its own.
    func row(at position: Int) -> Row {
        Row(names: names, values: values(at: position), cache: decodingCache)
    }

    /// Groups the rows by parent: `parentOfRow` holds the parent position
    /// of each row (-1 for none), and the result the range of ``order``
    /// that holds the rows of each of the `parentCount` parents.
    func group(parentCount: Int, parentOfRow: [Int32]) -> [Range<Int>] {
        let (order, ranges) = Self.group(parentCount: parentCount, parentOfRow: parentOfRow)
        self.order = order
        return ranges
    }

    /// A counting sort of rows by parent: `parentOfRow` holds the parent
    /// position of each row (-1 for none). Returns the row positions in
    /// parent order (in fetch order within a parent) and the range of each
    /// parent in them.
    static func group(parentCount: Int, parentOfRow: [Int32]) -> (order: [Int32], ranges: [Range<Int>]) {
        // ends[p + 1] counts the rows of parent p, then becomes its end.
        var ends = [Int](repeating: 0, count: parentCount + 1)
        for parent in parentOfRow where parent >= 0 { ends[Int(parent) + 1] += 1 }
        for parent in 0..<parentCount { ends[parent + 1] += ends[parent] }
        var next = ends
        var order = [Int32](repeating: 0, count: ends[parentCount])
        for (position, parent) in parentOfRow.enumerated() where parent >= 0 {
            order[next[Int(parent)]] = Int32(position)
            next[Int(parent)] += 1
        }
        return (order, (0..<parentCount).map { ends[$0]..<ends[$0 + 1] })
    }
}

/// The prefetched rows of one parent for one association: rows of their
/// own, or a range of a ``PrefetchedRowBuffer``.
enum PrefetchedRows: Equatable {
    case rows([Row])
    case buffered(PrefetchedRowBuffer, Range<Int>)

    /// The number of rows.
    var count: Int {
        switch self {
        case .rows(let rows): return rows.count
        case .buffered(_, let range): return range.count
        }
    }

    /// The rows, each a row of its own.
    var array: [Row] {
        switch self {
        case .rows(let rows): return rows
        case let .buffered(buffer, range):
            let order = buffer.order
            return range.map { buffer.row(at: Int(order[$0])) }
        }
    }

    /// Calls `body` with each row in turn. The rows of a buffer are one row
    /// that moves from one to the next, as a cursor's: `body` copies the
    /// row it keeps.
    @inline(__always)
    func forEach(_ body: (Row) throws -> Void) rethrows {
        switch self {
        case .rows(let rows):
            for row in rows { try body(row) }
        case let .buffered(buffer, range):
            guard let first = range.first else { return }
            let order = buffer.order
            let row = Row(movingOver: buffer.names, values: buffer.values(at: Int(order[first])), cache: buffer.decodingCache)
            let (start, columnCount) = (buffer.start, buffer.columnCount)
            for index in range {
                row.move(to: start + Int(order[index]) * columnCount)
                try body(row)
            }
        }
    }

    static func == (lhs: PrefetchedRows, rhs: PrefetchedRows) -> Bool {
        lhs.array == rhs.array
    }
}
