// Collections made from cursors: `try Array(cursor)`, `try Set(cursor)`,
// `try Dictionary(grouping: cursor, by: ...)`.

extension Array {
    /// All the elements of a cursor, through its ``Cursor/forEach(_:)``,
    /// as GRDB does: a cursor may implement `forEach` apart from `next()`.
    ///
    /// Inlinable, so that the appends are specialized for the caller's
    /// element type (unspecialized, each looks up the array's metadata).
    @inlinable
    public init(_ cursor: some Cursor<Element>) throws {
        self.init()
        try cursor.forEach { append($0) }
    }

    /// All the elements of one of the library's own cursors, whose
    /// `forEach` yields what its `next()` does: taken from `next()`, each
    /// element is this loop's own and moves into the storage. (`forEach`
    /// lends each element to its body, which must copy it: a retain and a
    /// release of each row, or of each string of a record.)
    @inlinable
    init(movingElementsOf cursor: some Cursor<Element>) throws {
        try self.init(gathering: { target in
            guard let element = try cursor.next() else { return false }
            target.initialize(to: consume element)
            return true
        })
    }

    /// The elements that `produce` initializes, one per call at the address
    /// it is given, until it returns false (and initializes nothing).
    ///
    /// Inlinable, as the record fetches that call it: specialized for the
    /// caller's element type.
    @inlinable
    init(gathering produce: (UnsafeMutablePointer<Element>) throws -> Bool) throws {
        // Where it runs unspecialized (an element type the caller's module
        // does not know), each `append` would look up the metadata of
        // Array<Element>, about 300 instructions per element. Raw storage
        // needs only the element's own metadata: gather there, then move
        // into the array once.
        var capacity = 16
        var count = 0
        var base = UnsafeMutablePointer<Element>.allocate(capacity: capacity)
        defer {
            base.deinitialize(count: count)
            base.deallocate()
        }
        while true {
            if count == capacity { base = base.doubled(count: count, capacity: &capacity) }
            guard try produce(base + count) else { break }
            count += 1
        }
        let moved = count
        guard moved > 0 else {
            // The empty array's storage is one global, shared by every
            // thread: initializing it writes its count (0), which races
            // with every other thread that does the same (ThreadSanitizer).
            self.init()
            return
        }
        self.init(unsafeUninitializedCapacity: moved) { buffer, initializedCount in
            if let target = buffer.baseAddress { target.moveInitialize(from: base, count: moved) }
            initializedCount = moved
        }
        count = 0  // moved into the array: the defer only frees the storage
    }
}

extension RangeReplaceableCollection {
    /// All the elements of a cursor.
    @_disfavoredOverload
    public init(_ cursor: some Cursor<Element>) throws {
        self.init()
        try append(contentsOf: cursor)
    }

    /// All the elements of a cursor, with room reserved for
    /// `minimumCapacity` of them.
    public init(_ cursor: some Cursor<Element>, minimumCapacity: Int) throws {
        self.init()
        reserveCapacity(minimumCapacity)
        try append(contentsOf: cursor)
    }

    /// Appends the elements of a cursor.
    public mutating func append(contentsOf newElements: some Cursor<Element>) throws {
        try newElements.forEach { append($0) }
    }
}

extension Set {
    /// All the distinct elements of a cursor.
    public init(_ cursor: some Cursor<Element>) throws {
        self.init()
        try cursor.forEach { insert($0) }
    }

    /// All the distinct elements of a cursor, with room reserved for
    /// `minimumCapacity` of them.
    public init(_ cursor: some Cursor<Element>, minimumCapacity: Int) throws {
        self.init(minimumCapacity: minimumCapacity)
        try cursor.forEach { insert($0) }
    }

    /// The union with the elements of a cursor.
    public func union(_ cursor: some Cursor<Element>) throws -> Set<Element> {
        var result = self
        try result.formUnion(cursor)
        return result
    }

    /// Inserts the elements of a cursor.
    public mutating func formUnion(_ cursor: some Cursor<Element>) throws {
        try cursor.forEach { insert($0) }
    }

    /// The elements also in the cursor.
    public func intersection(_ cursor: some Cursor<Element>) throws -> Set<Element> {
        try intersection(Set(cursor))
    }

    /// Keeps the elements also in the cursor.
    public mutating func formIntersection(_ cursor: some Cursor<Element>) throws {
        try formIntersection(Set(cursor))
    }
}

extension Dictionary {
    /// The elements of a cursor grouped by key.
    public init<C: Cursor>(grouping cursor: C, by keyForValue: (C.Element) throws -> Key) throws
    where Value == [C.Element] {
        try self.init(minimumCapacity: 0, grouping: cursor, by: keyForValue)
    }

    /// The elements of a cursor grouped by key, with room reserved for
    /// `minimumCapacity` keys.
    public init<C: Cursor>(minimumCapacity: Int, grouping cursor: C, by keyForValue: (C.Element) throws -> Key) throws
    where Value == [C.Element] {
        self.init(minimumCapacity: minimumCapacity)
        try cursor.forEach { element in
            try self[keyForValue(element), default: []].append(element)
        }
    }

    /// A dictionary from a cursor of unique key-value pairs; a duplicate key
    /// is a programming error.
    public init(uniqueKeysWithValues keysAndValues: some Cursor<(Key, Value)>) throws {
        try self.init(minimumCapacity: 0, uniqueKeysWithValues: keysAndValues)
    }

    /// A dictionary from a cursor of unique key-value pairs, with room
    /// reserved for `minimumCapacity` keys.
    public init(minimumCapacity: Int, uniqueKeysWithValues keysAndValues: some Cursor<(Key, Value)>) throws {
        self.init(minimumCapacity: minimumCapacity)
        try keysAndValues.forEach { key, value in
            precondition(updateValue(value, forKey: key) == nil, "Dictionary literal contains duplicate keys")
        }
    }
}
