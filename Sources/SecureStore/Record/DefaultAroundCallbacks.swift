/// The record types whose `around` persistence callbacks are the default
/// ones (call the action, and nothing else), learned by a connection as
/// those defaults run.
///
/// A record's `around` callback takes a closure that must return the
/// success value, and the callbacks that run after it need that value
/// too: running the default `aroundInsert` and `aroundSave` copies the
/// insert's values twice and drops them twice (a retain and a release of
/// each of their arrays and strings), through two closures, for each
/// record. Once a default callback has run for a record type, the
/// connection runs the action itself instead, which is what the default
/// callback would do:
///
/// ```swift
/// // In the protocol's default implementation:
/// db.defaultAroundCallbacks.noteDefault(.save, of: Self.self)
/// // Where a save runs:
/// if db.defaultAroundCallbacks.areDefault(.save, of: Self.self) { ... }
/// ```
///
/// Which implementation of a protocol requirement a type uses is fixed
/// for the type (its conformance chooses it), so what a connection learned
/// of a type holds for every later record of it. A type whose callback is
/// its own never runs the default one, and always has its own called.
///
/// Used by one thread at a time: the connection's.
///
/// ## Topics
///
/// ### Learning and asking
///
/// - ``noteDefault(_:of:)``
/// - ``areDefault(_:of:)``
final class DefaultAroundCallbacks {
    /// The `around` callbacks of a record type that return a value (a
    /// delete's returns a `Bool`, which costs nothing to copy).
    struct Kinds: OptionSet {
        let rawValue: UInt8
        /// `aroundInsert`.
        static let insert = Kinds(rawValue: 1 << 0)
        /// `aroundUpdate`.
        static let update = Kinds(rawValue: 1 << 1)
        /// `aroundSave`.
        static let save = Kinds(rawValue: 1 << 2)
        /// Not a callback: a plain insert of the type may bind its values
        /// as they are encoded (the `insert(_:onConflict:)` of `Encodable`
        /// ``PersistableRecord`` types): its `around` insert and save
        /// callbacks are the defaults, and so are `didInsert` and
        /// `didSave`, so that nothing reads the insert's container.
        static let bindingInsert = Kinds(rawValue: 1 << 3)
        /// Not a callback: a plain insert of the type was watched for
        /// `bindingInsert`, which holds or never will.
        static let bindingInsertChecked = Kinds(rawValue: 1 << 4)
    }

    // No runtime exclusivity checks (two per question otherwise): only the
    // connection's thread reaches this object, and no method reenters.
    /// The type asked about last, and its default callbacks: records of
    /// one type usually come one after the other.
    @exclusivity(unchecked) private var lastType: ObjectIdentifier?
    @exclusivity(unchecked) private var lastKinds: Kinds = []
    /// The default callbacks of each type seen so far.
    @exclusivity(unchecked) private var kindsByType: [ObjectIdentifier: Kinds] = [:]

    /// True if `type`'s callback of this kind is known to be the default.
    @inline(__always)
    func areDefault(_ kind: Kinds, of type: Any.Type) -> Bool {
        let id = ObjectIdentifier(type)
        if lastType == id { return lastKinds.contains(kind) }
        return lookUp(kind, of: id)
    }

    private func lookUp(_ kind: Kinds, of id: ObjectIdentifier) -> Bool {
        let kinds = kindsByType[id] ?? []
        lastType = id
        lastKinds = kinds
        return kinds.contains(kind)
    }

    /// Records that `type` runs the default callback of this kind.
    func noteDefault(_ kind: Kinds, of type: Any.Type) {
        let id = ObjectIdentifier(type)
        kindsByType[id, default: []].insert(kind)
        if lastType == id { lastKinds.insert(kind) }
    }
}
