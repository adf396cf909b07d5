// The insert of `Encodable` records whose persistence callbacks are the
// defaults: values bound to the cached INSERT as they are encoded.
//
// An insert encodes the record into a `PersistenceContainer` (a
// column and a `DatabaseValue` for each property), then binds the
// container's values to the connection's cached INSERT for those
// columns. When nothing reads the container (the `around` insert and
// save callbacks, `didInsert` and `didSave` are the defaults, and the
// record's container is its `Encodable` form), the record's values go
// straight to the INSERT the previous record of its type used, as the
// encoder produces them, in the order of its columns: integers, reals
// and texts without a `DatabaseValue` (`Statement+TypedBinding.swift`),
// by the connection's own encoder (`RecordEncoder.Binding`). About 1,330
// instructions per row less in the benchmark's Codable record insert
// (BENCHMARKS.md).
//
// A record inserted while another's values are being bound (by that
// record's own `encode(to:)`, or a SQL function while its INSERT runs)
// takes another statement: the values bound so far stay in place.
//
// A connection learns which record types qualify from a plain insert of
// each (`DefaultAroundCallbacks`). A record whose columns are not the
// previous record's, in the same order, is then inserted as usual, with
// the INSERT of its own columns:
//
// ```swift
// try player.insert(db)        // learns that Player qualifies
// try otherPlayer.insert(db)   // binds while encoding
// ```

extension PersistableRecord where Self: Encodable {
    /// Inserts the record.
    public func insert(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws {
        let callbacks = db.defaultAroundCallbacks
        if callbacks.areDefault(.bindingInsert, of: Self.self) {
            try insertBindingWhileEncoding(db, onConflict: conflictResolution)
            return
        }
        // A class record can be of a subclass, with callbacks of its own.
        let probes = !callbacks.areDefault(.bindingInsertChecked, of: Self.self) && !(Self.self is AnyObject.Type)
        if probes { RecordEncoder.startInsertProbe() }
        try withSaveCallbacks(db) {
            PersistenceSuccess(try insertWithPersistableCallbacks(db, onConflict: conflictResolution))
        }
        guard probes else { return }
        // One insert that ran to the end tells for good: which callback
        // implementation a type uses is fixed by its conformance.
        if callbacks.areDefault([.insert, .save], of: Self.self), RecordEncoder.insertProbeFound(Self.self) {
            callbacks.noteDefault(.bindingInsert, of: Self.self)
        }
        callbacks.noteDefault(.bindingInsertChecked, of: Self.self)
    }

    /// The insert of a record type whose callbacks are known to be the
    /// defaults: `willSave` and `willInsert`, then the INSERT.
    private func insertBindingWhileEncoding(_ db: Database, onConflict conflictResolution: Database.ConflictResolution?) throws {
        try willSave(db)
        try willInsert(db)
        let resolution = conflictResolution ?? Self.persistenceConflictPolicy.conflictResolutionForInsert
        if let insert = try db.lastInsert(of: Self.self, conflictResolution: resolution) {
            let inserted = try RecordEncoder.bind(self, to: insert, with: db.bindingEncoder) { statement in
                // An error reports the values, made again only then.
                try statement.executeBoundOneByOne { try persistenceContainer().values }
            }
            if inserted { return }
        }
        // Other columns than the previous record's, or another conflict
        // resolution: the INSERT of this record's.
        _ = try insertWithoutCallbacks(db, onConflict: conflictResolution)
    }
}
