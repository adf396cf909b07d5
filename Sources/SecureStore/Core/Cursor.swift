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

    /// Calls `body` for each remaining element, the elements `next()`
    /// would return. Sets, dictionaries and the cursors derived from a
    /// cursor iterate through this method, so that a cursor can provide a
    /// faster loop than `next()`. `Array(cursor)` does too, as in GRDB
    /// (the library's own fetches, whose cursors' `forEach` yields what
    /// `next()` does, move each element from `next()` instead).
    func forEach(_ body: (Element) throws -> Void) throws
}

extension Cursor {
    /// True if there is no element left (this consumes one).
    public var isEmpty: Bool {
        get throws { try next() == nil }
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

    /// A cursor of (offset, element) pairs, offsets from zero.
    public func enumerated() -> EnumeratedCursor<Self> { EnumeratedCursor(self) }

    /// A cursor of the elements that satisfy `isIncluded`.
    public func filter(_ isIncluded: @escaping (Element) throws -> Bool) -> FilterCursor<Self> {
        FilterCursor(self, isIncluded)
    }

    /// The first element that satisfies `predicate`.
    public func first(where predicate: (Element) throws -> Bool) throws -> Element? {
        while let element = try next() {
            if try predicate(element) { return element }
        }
        return nil
    }

    /// A cursor of the non-nil results of `transform`.
    public func compactMap<T>(_ transform: @escaping (Element) throws -> T?) -> MapCursor<FilterCursor<MapCursor<Self, T?>>, T> {
        map(transform).filter { $0 != nil }.map { $0.unsafelyUnwrapped }
    }

    /// A cursor that skips the elements while `predicate` holds.
    public func drop(while predicate: @escaping (Element) throws -> Bool) -> DropWhileCursor<Self> {
        DropWhileCursor(self, predicate)
    }

    /// A cursor that skips the first `n` elements.
    public func dropFirst(_ n: Int) -> DropFirstCursor<Self> { DropFirstCursor(self, limit: n) }

    /// A cursor that skips the first element.
    public func dropFirst() -> DropFirstCursor<Self> { dropFirst(1) }

    /// All the elements but the last `n`.
    public func dropLast(_ n: Int) throws -> [Element] {
        precondition(n >= 0, "Can't drop a negative number of elements from a cursor")
        let all = try Array(self)
        return Array(all.dropLast(n))
    }

    /// All the elements but the last.
    public func dropLast() throws -> [Element] { try dropLast(1) }

    /// A cursor of the elements of the cursors `transform` returns.
    public func flatMap<SegmentOfResult: Cursor>(_ transform: @escaping (Element) throws -> SegmentOfResult)
    -> FlattenCursor<MapCursor<Self, SegmentOfResult>> {
        FlattenCursor(map(transform))
    }

    /// A cursor of the elements of the sequences `transform` returns.
    public func flatMap<SegmentOfResult: Sequence>(_ transform: @escaping (Element) throws -> SegmentOfResult)
    -> FlattenCursor<MapCursor<Self, AnyCursor<SegmentOfResult.Element>>> {
        FlattenCursor(map { try AnyCursor(transform($0)) })
    }

    /// Calls `body` for each element.
    public func forEach(_ body: (Element) throws -> Void) throws {
        while let element = try next() { try body(element) }
    }

    /// A cursor of transformed elements.
    public func map<T>(_ transform: @escaping (Element) throws -> T) -> MapCursor<Self, T> {
        MapCursor(self, transform)
    }

    /// The greatest element, by `areInIncreasingOrder`.
    public func max(by areInIncreasingOrder: (Element, Element) throws -> Bool) throws -> Element? {
        guard var result = try next() else { return nil }
        while let element = try next() {
            if try areInIncreasingOrder(result, element) { result = element }
        }
        return result
    }

    /// The least element, by `areInIncreasingOrder`.
    public func min(by areInIncreasingOrder: (Element, Element) throws -> Bool) throws -> Element? {
        guard var result = try next() else { return nil }
        while let element = try next() {
            if try areInIncreasingOrder(element, result) { result = element }
        }
        return result
    }

    /// A cursor of at most `maxLength` elements.
    public func prefix(_ maxLength: Int) -> PrefixCursor<Self> { PrefixCursor(self, maxLength: maxLength) }

    /// A cursor of the elements while `predicate` holds.
    public func prefix(while predicate: @escaping (Element) throws -> Bool) -> PrefixWhileCursor<Self> {
        PrefixWhileCursor(self, predicate)
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

    /// The last `maxLength` elements.
    public func suffix(_ maxLength: Int) throws -> [Element] {
        precondition(maxLength >= 0, "Can't take a suffix of negative length from a cursor")
        guard maxLength > 0 else {
            while try next() != nil {}
            return []
        }
        var ring: [Element] = []
        ring.reserveCapacity(maxLength)
        var oldest = 0
        while let element = try next() {
            if ring.count < maxLength {
                ring.append(element)
            } else {
                ring[oldest] = element
                oldest = (oldest + 1) % maxLength
            }
        }
        return Array(ring[oldest...] + ring[..<oldest])
    }
}

extension Cursor where Element: Equatable {
    /// True if the cursor produces `element`.
    public func contains(_ element: Element) throws -> Bool {
        try contains { $0 == element }
    }
}

extension Cursor where Element: Comparable {
    /// The greatest element.
    public func max() throws -> Element? { try max(by: <) }

    /// The least element.
    public func min() throws -> Element? { try min(by: <) }
}

extension Cursor where Element: Cursor {
    /// A cursor of the elements of each cursor, in turn.
    public func joined() -> FlattenCursor<Self> { FlattenCursor(self) }
}

extension Cursor where Element: Sequence {
    /// A cursor of the elements of each sequence, in turn.
    public func joined() -> FlattenCursor<MapCursor<Self, AnyCursor<Element.Element>>> {
        FlattenCursor(map { AnyCursor($0) })
    }
}

extension Cursor where Element: StringProtocol {
    /// The strings, concatenated with a separator between them.
    public func joined(separator: String = "") throws -> String {
        var result = ""
        var isFirst = true
        while let element = try next() {
            if !isFirst { result += separator }
            result += element
            isFirst = false
        }
        return result
    }
}

extension Sequence {
    /// A cursor of the elements of the cursors `transform` returns.
    public func flatMap<SegmentOfResult: Cursor>(_ transform: @escaping (Element) throws -> SegmentOfResult)
    -> FlattenCursor<MapCursor<AnyCursor<Element>, SegmentOfResult>> {
        AnyCursor(self).flatMap(transform)
    }
}

