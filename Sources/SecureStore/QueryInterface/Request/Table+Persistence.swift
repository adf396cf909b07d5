// Deleting, updating and checking rows of a table by key.

extension Table {
    /// Deletes every row; returns how many.
    @discardableResult
    public func deleteAll(_ db: Database) throws -> Int { try all().deleteAll(db) }

    /// True if a row has this primary key.
    public func exists(_ db: Database, key: some DatabaseValueConvertible) throws -> Bool {
        try all().exists(db, key: key)
    }

    /// True if a row has these unique key values.
    public func exists(_ db: Database, key: [String: (any DatabaseValueConvertible)?]) throws -> Bool {
        try all().exists(db, key: key)
    }

    /// Deletes the rows with these primary keys; returns how many.
    @discardableResult
    public func deleteAll(_ db: Database, keys: some Collection<some DatabaseValueConvertible>) throws -> Int {
        try all().deleteAll(db, keys: keys)
    }

    /// Deletes the row with this primary key; returns whether there was one.
    @discardableResult
    public func deleteOne(_ db: Database, key: some DatabaseValueConvertible) throws -> Bool {
        try all().deleteOne(db, key: key)
    }

    /// Deletes the rows with these unique key values; returns how many.
    @discardableResult
    public func deleteAll(_ db: Database, keys: [[String: (any DatabaseValueConvertible)?]]) throws -> Int {
        try all().deleteAll(db, keys: keys)
    }

    /// Deletes the row with these unique key values; returns whether there
    /// was one.
    @discardableResult
    public func deleteOne(_ db: Database, key: [String: (any DatabaseValueConvertible)?]) throws -> Bool {
        try all().deleteOne(db, key: key)
    }

    /// Updates every row; returns how many.
    @discardableResult
    public func updateAll(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
                          _ assignments: [ColumnAssignment]) throws -> Int {
        try all().updateAll(db, onConflict: conflictResolution, assignments)
    }

    /// Updates every row; returns how many.
    @discardableResult
    public func updateAll(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
                          _ assignments: ColumnAssignment...) throws -> Int {
        try updateAll(db, onConflict: conflictResolution, assignments)
    }
}

extension Table where RowDecoder: Identifiable, RowDecoder.ID: DatabaseValueConvertible {
    /// True if a row has this id.
    public func exists(_ db: Database, id: RowDecoder.ID) throws -> Bool { try exists(db, key: id) }

    /// Deletes the rows with these ids; returns how many.
    @discardableResult
    public func deleteAll(_ db: Database, ids: some Collection<RowDecoder.ID>) throws -> Int {
        try deleteAll(db, keys: ids)
    }

    /// Deletes the row with this id; returns whether there was one.
    @discardableResult
    public func deleteOne(_ db: Database, id: RowDecoder.ID) throws -> Bool { try deleteOne(db, key: id) }
}

extension Table where RowDecoder: TableRecord {
    /// Updates every row with an assignment of the record's columns:
    /// `Table<Player>("player").updateAll(db) { $0.score.set(to: 0) }`.
    @discardableResult
    public func updateAll(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
                          assignment: (DatabaseComponents) throws -> ColumnAssignment) throws -> Int {
        try updateAll(db, onConflict: conflictResolution, [assignment(RowDecoder.databaseComponents)])
    }

    /// Updates every row with assignments of the record's columns.
    @discardableResult
    public func updateAll(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
                          assignments: (DatabaseComponents) throws -> [ColumnAssignment]) throws -> Int {
        try updateAll(db, onConflict: conflictResolution, assignments(RowDecoder.databaseComponents))
    }
}
