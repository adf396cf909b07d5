import SecureStore

// What the standard library's Codable machinery costs on its own, with
// containers that do nothing: the least any Codable record layer can add to
// the raw-C floor. The synthesized `init(from:)` and `encode(to:)` reach a
// container only through `KeyedDecodingContainer` / `KeyedEncodingContainer`,
// whose box calls the container through unspecialized generic code for each
// property. These cases run that path alone, with the box made once and
// reused (as SecureStore's record layer does), no database, and values that
// are constants: "Codable record" / "Decodable record" minus these is what
// SecureStore's own code costs. The same for the array literal of GRDB's
// `execute(arguments: [a, b, c])`: its values are `any DatabaseValueConvertible`
// existentials, made, read and destroyed for each statement.

/// Hands out one object made once for a type, as SecureStore reuses its
/// containers; not specialized, so that reading it back looks nothing up.
private final class Reused<Value> {
    let value: Value
    init(_ value: Value) { self.value = value }

    @inline(never) @_semantics("optimize.sil.specialize.generic.never")
    func get() -> Value { value }
}

private struct ConstantKeyedDecoding<Key: CodingKey>: KeyedDecodingContainerProtocol {
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }
    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { true }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { "constant" }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { 1 }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { 1 }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { 1 }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { 1 }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { 1 }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { 1 }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { 1 }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { throw Unsupported() }
    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw Unsupported()
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { throw Unsupported() }
    func superDecoder() throws -> any Decoder { throw Unsupported() }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw Unsupported() }
}

extension ConstantKeyedDecoding {
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { 1 }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { 1 }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { 1 }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { 1 }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { 1 }
}

private struct DiscardingKeyedEncoding<Key: CodingKey>: KeyedEncodingContainerProtocol {
    var codingPath: [any CodingKey] { [] }
    mutating func encodeNil(forKey key: Key) throws {}
    mutating func encode(_ value: Bool, forKey key: Key) throws {}
    mutating func encode(_ value: String, forKey key: Key) throws {}
    mutating func encode(_ value: Double, forKey key: Key) throws {}
    mutating func encode(_ value: Float, forKey key: Key) throws {}
    mutating func encode(_ value: Int, forKey key: Key) throws {}
    mutating func encode(_ value: Int8, forKey key: Key) throws {}
    mutating func encode(_ value: Int16, forKey key: Key) throws {}
    mutating func encode(_ value: Int32, forKey key: Key) throws {}
    mutating func encode(_ value: Int64, forKey key: Key) throws {}
    mutating func encode(_ value: UInt, forKey key: Key) throws {}
    mutating func encode(_ value: UInt8, forKey key: Key) throws {}
    mutating func encode(_ value: UInt16, forKey key: Key) throws {}
    mutating func encode(_ value: UInt32, forKey key: Key) throws {}
    mutating func encode(_ value: UInt64, forKey key: Key) throws {}
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { throw Unsupported() }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(DiscardingKeyedEncoding<NestedKey>())
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { fatalError("not used by Item") }
    mutating func superEncoder() -> any Encoder { MachineryEncoder() }
    mutating func superEncoder(forKey key: Key) -> any Encoder { MachineryEncoder() }
}

private struct Unsupported: Error {}

/// Holds the container boxes, made for the first record and reused.
private final class MachineryCache {
    var decoding: AnyObject?
    var encoding: AnyObject?
}

private struct MachineryDecoder: Decoder {
    let cache: MachineryCache
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if let box = cache.decoding { return unsafeDowncast(box, to: Reused<KeyedDecodingContainer<Key>>.self).get() }
        let container = KeyedDecodingContainer(ConstantKeyedDecoding<Key>())
        cache.decoding = Reused(container)
        return container
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw Unsupported() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { throw Unsupported() }
}

private struct MachineryEncoder: Encoder {
    var cache = MachineryCache()
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if let box = cache.encoding { return unsafeDowncast(box, to: Reused<KeyedEncodingContainer<Key>>.self).get() }
        let container = KeyedEncodingContainer(DiscardingKeyedEncoding<Key>())
        cache.encoding = Reused(container)
        return container
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { fatalError("not used by Item") }
    func singleValueContainer() -> any SingleValueEncodingContainer { fatalError("not used by Item") }
}

/// Takes arguments as `Statement.execute(arguments:)` does, and drops them.
@inline(never)
private func count(_ arguments: StatementArguments) -> Int { arguments.values.count }

/// The least work found for GRDB's argument literal: take
/// `[item.id, item.a, item.b, item.c]` as `(any DatabaseValueConvertible)?`
/// values, move each out of the literal's array (as `StatementArguments`
/// does; reading it in place copies it), and drop it, with neither a
/// conversion nor an array of its own.
private struct BareArgumentsLiteral: ExpressibleByArrayLiteral {
    let present: Int

    @inline(__always)
    init(arrayLiteral elements: (any DatabaseValueConvertible)?...) {
        var elements = elements
        var present = 0
        elements.withUnsafeMutableBufferPointer { buffer in
            for index in buffer.indices where buffer[index].take() != nil { present += 1 }
        }
        self.present = present
    }
}

/// Takes the bare literal as `count(_:)` takes arguments, and drops it.
@inline(never)
private func countBare(_ literal: BareArgumentsLiteral) -> Int { literal.present }

/// The seconds `count` takes over `items`, each given its values as a
/// `Literal` of four: every call must count four.
@inline(__always)
private func timeLiterals<Literal: ExpressibleByArrayLiteral>(
    _ items: [Item], _ count: (Literal) -> Int
) throws -> Double where Literal.ArrayLiteralElement == (any DatabaseValueConvertible)? {
    var total = 0
    let time = seconds {
        for item in items { total &+= count([item.id, item.a, item.b, item.c]) }
    }
    guard total == 4 * items.count else { throw Unsupported() }
    return time
}

/// W1 and W2's Codable machinery and W1's arguments literals alone, divided
/// by the mode's raw-C floor.
func codableMachineryCases(items: [Item], mode: String) -> [Case] {
    [
        Case(workload: "W1 insert", mode: mode, variant: "arguments literal alone", floor: "raw C") {
            try timeLiterals(items, count)
        },
        Case(workload: "W1 insert", mode: mode, variant: "bare arguments literal alone", floor: "raw C") {
            try timeLiterals(items, countBare)
        },
        Case(workload: "W1 insert", mode: mode, variant: "Codable machinery alone", floor: "raw C") {
            let encoder = MachineryEncoder()
            return try seconds {
                for item in items { try item.encode(to: encoder) }
            }
        },
        Case(workload: "W2 fetch", mode: mode, variant: "Decodable machinery alone", floor: "raw C") {
            let decoder = MachineryDecoder(cache: MachineryCache())
            var total: Int64 = 0
            let time = try seconds {
                for _ in items.indices { total &+= try Item(from: decoder).a }
            }
            guard total == Int64(items.count) else { throw Unsupported() }
            return time
        },
    ]
}
