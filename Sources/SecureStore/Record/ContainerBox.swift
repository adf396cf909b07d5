/// Holds a value of a generic type inside a class, so that reading it back
/// takes the type from the object itself rather than from a runtime lookup
/// of, say, `KeyedDecodingContainer<Key>` (a resilient standard library
/// type: its metadata costs about 300 instructions to find).
final class ContainerBox<Value> {
    private let stored: Value
    init(_ value: Value) { stored = value }

    // Not specialized: a specialization for `KeyedDecodingContainer<Key>`
    // would look the type up again, which is what this box avoids.
    @inline(never) @_semantics("optimize.sil.specialize.generic.never")
    func value() -> Value { stored }
}
