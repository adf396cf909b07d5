/// The values bound to a statement's parameters: positional (`?`), named
/// (`:name`, `$name`, `@name`), or both.
///
/// ```swift
/// try db.execute(sql: "INSERT INTO player (name, score) VALUES (?, ?)",
///                arguments: ["Arthur", 1000])
/// try db.execute(sql: "UPDATE player SET score = :score WHERE id = :id",
///                arguments: ["score": 1000, "id": 1])
/// ```
///
/// Values are always bound, never spliced into SQL text.
public struct StatementArguments: Hashable, Sendable {
    /// Positional values, consumed in order.
    public internal(set) var values: [DatabaseValue]
    /// Named values, keyed by parameter name without its prefix character.
    public internal(set) var namedValues: [String: DatabaseValue]

    /// No arguments.
    public init() {
        values = []
        namedValues = [:]
    }

    @usableFromInline
    init(values: [DatabaseValue]) {
        self.values = values
        // Not `[:]`: that one calls `init(dictionaryLiteral:)`, for each
        // statement's arguments (about 30 instructions).
        namedValues = Dictionary()
    }

    /// Positional arguments.
    public init(_ sequence: some Sequence<(any DatabaseValueConvertible)?>) {
        values = sequence.map { $0?.databaseValue ?? .null }
        namedValues = [:]
    }

    /// Positional arguments of one type.
    public init<S: Sequence>(_ sequence: S) where S.Element: DatabaseValueConvertible {
        values = sequence.map(\.databaseValue)
        namedValues = [:]
    }

    /// Named arguments.
    public init(_ dictionary: [String: (any DatabaseValueConvertible)?]) {
        values = []
        namedValues = dictionary.mapValues { $0?.databaseValue ?? .null }
    }

    /// Named arguments from key-value pairs; a later duplicate key wins.
    public init(_ pairs: some Sequence<(String, (any DatabaseValueConvertible)?)>) {
        values = []
        namedValues = Dictionary(pairs.map { ($0, $1?.databaseValue ?? .null) }, uniquingKeysWith: { $1 })
    }

    /// True when there are neither positional nor named values.
    public var isEmpty: Bool { values.isEmpty && namedValues.isEmpty }

    /// Appends positional values and merges named values. Returns the named
    /// values that were replaced.
    @discardableResult
    public mutating func append(contentsOf arguments: StatementArguments) -> [String: DatabaseValue] {
        values.append(contentsOf: arguments.values)
        var replaced: [String: DatabaseValue] = [:]
        for (name, value) in arguments.namedValues {
            if let old = namedValues.updateValue(value, forKey: name) { replaced[name] = old }
        }
        return replaced
    }

    /// Concatenation; a named value of `rhs` must not replace one of `lhs`.
    public static func + (lhs: StatementArguments, rhs: StatementArguments) -> StatementArguments {
        var result = lhs
        result += rhs
        return result
    }

    /// Concatenation where named values of `rhs` replace those of `lhs`.
    public static func &+ (lhs: StatementArguments, rhs: StatementArguments) -> StatementArguments {
        var result = lhs
        result.append(contentsOf: rhs)
        return result
    }

    /// Appends the positional values of `rhs` and adds its named ones; a name given twice stops the program.
    public static func += (lhs: inout StatementArguments, rhs: StatementArguments) {
        let replaced = lhs.append(contentsOf: rhs)
        precondition(replaced.isEmpty, "named arguments given twice: \(replaced.keys.sorted())")
    }
}

extension StatementArguments: ExpressibleByArrayLiteral {
    /// Positional arguments, written as an array literal.
    @inlinable @inline(__always)
    public init(arrayLiteral elements: (any DatabaseValueConvertible)?...) {
        // The literal's array belongs to this initializer: each value is
        // moved out of it (`take()`), where reading it would copy it (a
        // retain and a release of each string). Up to six values, the
        // values array is an array literal of its own: the compiler
        // allocates it at its final size and stores each value once, and,
        // the count being known where the literal is written, keeps only
        // that case (W1 statement insert: 178 instructions per row fewer
        // than reserving, then appending). Longer lists reserve, then
        // append: `Array(unsafeUninitializedCapacity:)` and
        // `Array(repeating:count:)` allocate through the standard
        // library's unspecialized code, which looks up the metadata of the
        // array's storage at each call (about 330 instructions).
        // Always inlined where the literal is written: the literal's own
        // array does not outlive the call and is allocated on the stack,
        // and the switch folds to its one case (left to the optimizer,
        // six cases made the call too large to inline: 172 instructions
        // more per literal of four).
        var elements = elements
        let values = elements.withUnsafeMutableBufferPointer { buffer -> [DatabaseValue] in
            func value(_ index: Int) -> DatabaseValue { buffer[index].take()?.databaseValue ?? .null }
            switch buffer.count {
            case 1: return [value(0)]
            case 2: return [value(0), value(1)]
            case 3: return [value(0), value(1), value(2)]
            case 4: return [value(0), value(1), value(2), value(3)]
            case 5: return [value(0), value(1), value(2), value(3), value(4)]
            case 6: return [value(0), value(1), value(2), value(3), value(4), value(5)]
            default:
                var values: [DatabaseValue] = []
                values.reserveCapacity(buffer.count)
                for index in buffer.indices { values.append(value(index)) }
                return values
            }
        }
        self.init(values: values)
    }
}

extension StatementArguments: ExpressibleByDictionaryLiteral {
    /// Named arguments, written as a dictionary literal.
    public init(dictionaryLiteral elements: (String, (any DatabaseValueConvertible)?)...) {
        self.init(elements)
    }
}

extension StatementArguments: CustomStringConvertible {
    /// `["Arthur", 1000]`, `[id:1, name:"Arthur"]`, or both. This shows the
    /// values: keep it out of logs when they may be secret.
    public var description: String {
        let positional = values.map(\.description)
        let named = namedValues.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }
        return "[" + (positional + named).joined(separator: ", ") + "]"
    }
}
