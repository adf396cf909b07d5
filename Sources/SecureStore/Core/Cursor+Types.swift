// The cursors that ``Cursor``'s methods return, and the type-erased cursor.

/// A type-erased cursor.
///
/// ```swift
/// let cursor = AnyCursor([1, 2, 3])
/// let names: AnyCursor<String> = AnyCursor(try String.fetchCursor(db, sql: "SELECT name FROM player"))
/// ```
public final class AnyCursor<Element>: Cursor {
    private let nextElement: () throws -> Element?

    /// Wraps a cursor.
    public init<C: Cursor>(_ base: C) where C.Element == Element {
        nextElement = base.next
    }

    /// The elements of an iterator.
    public convenience init(iterator: some IteratorProtocol<Element>) {
        var iterator = iterator
        self.init { iterator.next() }
    }

    /// The elements of a sequence.
    public convenience init(_ sequence: some Sequence<Element>) {
        self.init(iterator: sequence.makeIterator())
    }

    /// The elements a closure returns, until it returns nil.
    public init(_ next: @escaping () throws -> Element?) {
        nextElement = next
    }

    /// The next element, or nil after the last.
    public func next() throws -> Element? { try nextElement() }
}

/// A cursor without its first elements, from ``Cursor/dropFirst(_:)``.
public final class DropFirstCursor<Base: Cursor>: Cursor {
    private let base: Base
    private var remaining: Int

    init(_ base: Base, limit: Int) {
        precondition(limit >= 0, "Can't drop a negative number of elements from a cursor")
        self.base = base
        self.remaining = limit
    }

    /// The next element, or nil after the last.
    public func next() throws -> Base.Element? {
        while remaining > 0 {
            remaining -= 1
            guard try base.next() != nil else { return nil }
        }
        return try base.next()
    }
}

/// A cursor without its first elements that satisfy a predicate, from
/// ``Cursor/drop(while:)``.
public final class DropWhileCursor<Base: Cursor>: Cursor {
    private let base: Base
    private let predicate: (Base.Element) throws -> Bool
    private var isDropping = true

    init(_ base: Base, _ predicate: @escaping (Base.Element) throws -> Bool) {
        self.base = base
        self.predicate = predicate
    }

    /// The next element, or nil after the last.
    public func next() throws -> Base.Element? {
        guard isDropping else { return try base.next() }
        while let element = try base.next() {
            if try !predicate(element) {
                isDropping = false
                return element
            }
        }
        return nil
    }
}

/// A cursor of (offset, element) pairs, from ``Cursor/enumerated()``.
public final class EnumeratedCursor<Base: Cursor>: Cursor {
    private let base: Base
    private var offset = 0

    init(_ base: Base) { self.base = base }

    /// The next element, or nil after the last.
    public func next() throws -> (Int, Base.Element)? {
        guard let element = try base.next() else { return nil }
        defer { offset += 1 }
        return (offset, element)
    }

    /// Iterates the base cursor with its own `forEach`.
    public func forEach(_ body: ((Int, Base.Element)) throws -> Void) throws {
        try base.forEach { element in
            defer { offset += 1 }
            try body((offset, element))
        }
    }
}

/// A cursor of filtered elements, from ``Cursor/filter(_:)``.
public final class FilterCursor<Base: Cursor>: Cursor {
    private let base: Base
    private let isIncluded: (Base.Element) throws -> Bool

    init(_ base: Base, _ isIncluded: @escaping (Base.Element) throws -> Bool) {
        self.base = base
        self.isIncluded = isIncluded
    }

    /// The next element, or nil after the last.
    public func next() throws -> Base.Element? {
        while let element = try base.next() {
            if try isIncluded(element) { return element }
        }
        return nil
    }

    /// Iterates the base cursor with its own `forEach`.
    public func forEach(_ body: (Base.Element) throws -> Void) throws {
        try base.forEach { element in
            if try isIncluded(element) { try body(element) }
        }
    }
}

/// A cursor of the elements of a cursor of cursors, from
/// ``Cursor/joined()->FlattenCursor<MapCursor<Self,AnyCursor<Self.Element.Element>>>`` and ``Cursor/flatMap(_:)->FlattenCursor<MapCursor<Self,AnyCursor<SegmentOfResult.Element>>>``.
public final class FlattenCursor<Base: Cursor>: Cursor where Base.Element: Cursor {
    private let base: Base
    private var inner: Base.Element?

    init(_ base: Base) { self.base = base }

    /// The next element, or nil after the last.
    public func next() throws -> Base.Element.Element? {
        while true {
            if let inner, let element = try inner.next() { return element }
            guard let nextInner = try base.next() else { return nil }
            inner = nextInner
        }
    }
}

/// A cursor of transformed elements, from ``Cursor/map(_:)``.
public final class MapCursor<Base: Cursor, Element>: Cursor {
    private let base: Base
    private let transform: (Base.Element) throws -> Element

    init(_ base: Base, _ transform: @escaping (Base.Element) throws -> Element) {
        self.base = base
        self.transform = transform
    }

    /// The next element, or nil after the last.
    public func next() throws -> Element? {
        try base.next().map(transform)
    }

    /// Iterates the base cursor with its own `forEach`.
    public func forEach(_ body: (Element) throws -> Void) throws {
        try base.forEach { try body(transform($0)) }
    }
}

/// A cursor of the first elements of another, from ``Cursor/prefix(_:)``.
public final class PrefixCursor<Base: Cursor>: Cursor {
    private let base: Base
    private var remaining: Int

    init(_ base: Base, maxLength: Int) {
        precondition(maxLength >= 0, "Can't take a prefix of negative length from a cursor")
        self.base = base
        self.remaining = maxLength
    }

    /// The next element, or nil after the last.
    public func next() throws -> Base.Element? {
        guard remaining > 0 else { return nil }
        remaining -= 1
        return try base.next()
    }
}

/// A cursor of the first elements that satisfy a predicate, from
/// ``Cursor/prefix(while:)``.
public final class PrefixWhileCursor<Base: Cursor>: Cursor {
    private let base: Base
    private let predicate: (Base.Element) throws -> Bool
    private var isDone = false

    init(_ base: Base, _ predicate: @escaping (Base.Element) throws -> Bool) {
        self.base = base
        self.predicate = predicate
    }

    /// The next element, or nil after the last.
    public func next() throws -> Base.Element? {
        guard !isDone, let element = try base.next() else { return nil }
        guard try predicate(element) else {
            isDone = true
            return nil
        }
        return element
    }
}
