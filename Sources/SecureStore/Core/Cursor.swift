/// A lazy sequence whose iteration may throw, such as the rows of a query.
///
/// ```swift
/// let names = try String.fetchCursor(db, sql: "SELECT name FROM player")
/// while let name = try names.next() {
///     print(name)
/// }
/// let all = try Array(String.fetchCursor(db, sql: "SELECT name FROM player"))
/// ```
///
/// A database cursor must be used inside the `read` or `write` closure that
/// created it, and it should not be kept beyond it.
public protocol Cursor<Element>: AnyObject {
    associatedtype Element

    /// The next element, or nil at the end.
    func next() throws -> Element?
}

extension Cursor {
    /// Calls `body` for each element.
    public func forEach(_ body: (Element) throws -> Void) throws {
        while let element = try next() { try body(element) }
    }

    /// A cursor of transformed elements.
    public func map<T>(_ transform: @escaping (Element) throws -> T) -> MapCursor<Self, T> {
        MapCursor(base: self, transform: transform)
    }

    /// A cursor of the elements that satisfy `isIncluded`.
    public func filter(_ isIncluded: @escaping (Element) throws -> Bool) -> FilterCursor<Self> {
        FilterCursor(base: self, isIncluded: isIncluded)
    }

    /// A cursor of the non-nil results of `transform`.
    public func compactMap<T>(_ transform: @escaping (Element) throws -> T?) -> MapCursor<FilterCursor<MapCursor<Self, T?>>, T> {
        map(transform).filter { $0 != nil }.map { $0.unsafelyUnwrapped }
    }

    /// A cursor of at most `maxLength` elements.
    public func prefix(_ maxLength: Int) -> PrefixCursor<Self> {
        PrefixCursor(base: self, remaining: maxLength)
    }

    /// The result of combining the elements.
    public func reduce<Result>(_ initialResult: Result, _ combine: (Result, Element) throws -> Result) throws -> Result {
        var result = initialResult
        while let element = try next() { result = try combine(result, element) }
        return result
    }

    /// The result of combining the elements into a mutable value.
    public func reduce<Result>(into initialResult: Result, _ update: (inout Result, Element) throws -> Void) throws -> Result {
        var result = initialResult
        while let element = try next() { try update(&result, element) }
        return result
    }

    /// The first element that satisfies `predicate`.
    public func first(where predicate: (Element) throws -> Bool) throws -> Element? {
        while let element = try next() {
            if try predicate(element) { return element }
        }
        return nil
    }

    /// True if an element satisfies `predicate`.
    public func contains(where predicate: (Element) throws -> Bool) throws -> Bool {
        while let element = try next() {
            if try predicate(element) { return true }
        }
        return false
    }

    /// True if every element satisfies `predicate`.
    public func allSatisfy(_ predicate: (Element) throws -> Bool) throws -> Bool {
        try !contains { try !predicate($0) }
    }

    /// True if there is no element left (this consumes one).
    public var isEmpty: Bool {
        get throws { try next() == nil }
    }
}

extension Cursor where Element: Equatable {
    /// True if the cursor produces `element`.
    public func contains(_ element: Element) throws -> Bool {
        try contains { $0 == element }
    }
}

/// A cursor of transformed elements, from ``Cursor/map(_:)``.
public final class MapCursor<Base: Cursor, Element>: Cursor {
    private let base: Base
    private let transform: (Base.Element) throws -> Element

    init(base: Base, transform: @escaping (Base.Element) throws -> Element) {
        self.base = base
        self.transform = transform
    }

    public func next() throws -> Element? {
        try base.next().map(transform)
    }
}

/// A cursor of filtered elements, from ``Cursor/filter(_:)``.
public final class FilterCursor<Base: Cursor>: Cursor {
    private let base: Base
    private let isIncluded: (Base.Element) throws -> Bool

    init(base: Base, isIncluded: @escaping (Base.Element) throws -> Bool) {
        self.base = base
        self.isIncluded = isIncluded
    }

    public func next() throws -> Base.Element? {
        while let element = try base.next() {
            if try isIncluded(element) { return element }
        }
        return nil
    }
}

/// A cursor of the first elements of another, from ``Cursor/prefix(_:)``.
public final class PrefixCursor<Base: Cursor>: Cursor {
    private let base: Base
    private var remaining: Int

    init(base: Base, remaining: Int) {
        self.base = base
        self.remaining = remaining
    }

    public func next() throws -> Base.Element? {
        guard remaining > 0 else { return nil }
        remaining -= 1
        return try base.next()
    }
}

/// A type-erased cursor.
public final class AnyCursor<Element>: Cursor {
    private let nextElement: () throws -> Element?

    public init<C: Cursor>(_ base: C) where C.Element == Element {
        nextElement = base.next
    }

    public init(_ next: @escaping () throws -> Element?) {
        nextElement = next
    }

    public func next() throws -> Element? { try nextElement() }
}

extension Array {
    /// All the elements of a cursor.
    public init<C: Cursor>(_ cursor: C) throws where C.Element == Element {
        // Unspecialized (records fetched from another module), each
        // `append` looks up the metadata of Array<Element>, about 300
        // instructions per element. Raw storage needs only the element's
        // own metadata: gather there, then move into the array once.
        var capacity = 16
        var count = 0
        var base = UnsafeMutablePointer<Element>.allocate(capacity: capacity)
        defer {
            base.deinitialize(count: count)
            base.deallocate()
        }
        while let element = try cursor.next() {
            if count == capacity {
                let larger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
                larger.moveInitialize(from: base, count: count)
                base.deallocate()
                base = larger
                capacity *= 2
            }
            (base + count).initialize(to: element)
            count += 1
        }
        let moved = count
        self.init(unsafeUninitializedCapacity: moved) { buffer, initializedCount in
            if let target = buffer.baseAddress { target.moveInitialize(from: base, count: moved) }
            initializedCount = moved
        }
        count = 0  // moved into the array: the defer only frees the storage
    }

    /// At most `minimumCapacity`-sized reservation, then all the elements.
    public init<C: Cursor>(_ cursor: C, minimumCapacity: Int) throws where C.Element == Element {
        self.init()
        reserveCapacity(minimumCapacity)
        while let element = try cursor.next() { append(element) }
    }
}

extension Set {
    /// All the distinct elements of a cursor.
    public init<C: Cursor>(_ cursor: C) throws where C.Element == Element {
        self.init()
        while let element = try cursor.next() { insert(element) }
    }
}

extension Dictionary {
    /// The elements of a cursor grouped by key.
    public init<C: Cursor>(grouping cursor: C, by keyForValue: (C.Element) throws -> Key) throws
    where Value == [C.Element] {
        self.init()
        while let element = try cursor.next() {
            try self[keyForValue(element), default: []].append(element)
        }
    }

    /// A dictionary from a cursor of unique key-value pairs; a duplicate key
    /// is a programming error.
    public init<C: Cursor>(uniqueKeysWithValues cursor: C) throws where C.Element == (Key, Value) {
        self.init(uniqueKeysWithValues: try Array(cursor))
    }
}
