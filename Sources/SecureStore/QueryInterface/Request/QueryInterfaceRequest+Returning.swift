// Batch deletes and updates that return the changed rows. They need SQL's
// RETURNING clause (SQLite 3.35): on SQLCipher 3.4.1 (SQLite 3.15.2) each
// throws an error that names the missing feature, before touching the
// database. Delete or update, then fetch, in one transaction instead.

extension QueryInterfaceRequest {
    private func returningUnavailable() -> DatabaseError {
        Database.missingFeatureError(SQLiteFeature.returning.name, since: SQLiteFeature.returning.version)
    }

    /// A statement that deletes the rows and returns the selection.
    /// Needs SQLite 3.35: throws here.
    public func deleteAndFetchStatement(_ db: Database, selection: [any SQLSelectable]) throws -> Statement {
        throw returningUnavailable()
    }

    /// A statement that deletes the rows and returns the selection.
    /// Needs SQLite 3.35: throws here.
    public func deleteAndFetchStatement(_ db: Database, select: (DatabaseComponents) throws -> [any SQLSelectable]) throws -> Statement
    where RowDecoder: TableRecord {
        try deleteAndFetchStatement(db, selection: select(RowDecoder.databaseComponents))
    }

    /// Deletes the rows and returns a cursor of the deleted records.
    /// Needs SQLite 3.35: throws here.
    public func deleteAndFetchCursor(_ db: Database) throws -> RecordCursor<RowDecoder>
    where RowDecoder: FetchableRecord & TableRecord {
        try RowDecoder.fetchCursor(deleteAndFetchStatement(db, selection: RowDecoder.databaseSelection))
    }

    /// Deletes the rows and returns the deleted records.
    /// Needs SQLite 3.35: throws here.
    public func deleteAndFetchAll(_ db: Database) throws -> [RowDecoder] where RowDecoder: FetchableRecord & TableRecord {
        try Array(deleteAndFetchCursor(db))
    }

    /// Deletes the rows and returns the deleted records.
    /// Needs SQLite 3.35: throws here.
    public func deleteAndFetchSet(_ db: Database) throws -> Set<RowDecoder>
    where RowDecoder: FetchableRecord & TableRecord & Hashable {
        try Set(deleteAndFetchCursor(db))
    }

    /// Deletes the rows and returns their ids.
    /// Needs SQLite 3.35: throws here.
    public func deleteAndFetchIds(_ db: Database) throws -> Set<RowDecoder.ID>
    where RowDecoder: TableRecord & Identifiable, RowDecoder.ID: Hashable & DatabaseValueConvertible & StatementColumnConvertible {
        throw returningUnavailable()
    }

    /// A statement that updates the rows and returns the selection.
    /// Needs SQLite 3.35: throws here.
    public func updateAndFetchStatement(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        _ assignments: [ColumnAssignment], selection: [any SQLSelectable]
    ) throws -> Statement {
        throw returningUnavailable()
    }

    /// A statement that updates the rows and returns the selection.
    /// Needs SQLite 3.35: throws here.
    public func updateAndFetchStatement(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignments: (DatabaseComponents) throws -> [ColumnAssignment],
        select: (DatabaseComponents) throws -> [any SQLSelectable]
    ) throws -> Statement where RowDecoder: TableRecord {
        try updateAndFetchStatement(db, onConflict: conflictResolution, assignments(RowDecoder.databaseComponents),
                                    selection: select(RowDecoder.databaseComponents))
    }

    /// Updates the rows and returns a cursor of the updated records.
    /// Needs SQLite 3.35: throws here.
    public func updateAndFetchCursor(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, _ assignments: [ColumnAssignment]
    ) throws -> RecordCursor<RowDecoder> where RowDecoder: FetchableRecord & TableRecord {
        try RowDecoder.fetchCursor(updateAndFetchStatement(db, onConflict: conflictResolution, assignments,
                                                           selection: RowDecoder.databaseSelection))
    }

    /// Updates the rows and returns a cursor of the updated records.
    /// Needs SQLite 3.35: throws here.
    public func updateAndFetchCursor(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignments: (DatabaseComponents) throws -> [ColumnAssignment]
    ) throws -> RecordCursor<RowDecoder> where RowDecoder: FetchableRecord & TableRecord {
        try updateAndFetchCursor(db, onConflict: conflictResolution, assignments(RowDecoder.databaseComponents))
    }

    /// Updates the rows and returns the updated records.
    /// Needs SQLite 3.35: throws here.
    public func updateAndFetchAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, _ assignments: [ColumnAssignment]
    ) throws -> [RowDecoder] where RowDecoder: FetchableRecord & TableRecord {
        try Array(updateAndFetchCursor(db, onConflict: conflictResolution, assignments))
    }

    /// Updates the rows and returns the updated records.
    /// Needs SQLite 3.35: throws here.
    public func updateAndFetchAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignments: (DatabaseComponents) throws -> [ColumnAssignment]
    ) throws -> [RowDecoder] where RowDecoder: FetchableRecord & TableRecord {
        try updateAndFetchAll(db, onConflict: conflictResolution, assignments(RowDecoder.databaseComponents))
    }

    /// Updates the rows and returns the updated records.
    /// Needs SQLite 3.35: throws here.
    public func updateAndFetchSet(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, _ assignments: [ColumnAssignment]
    ) throws -> Set<RowDecoder> where RowDecoder: FetchableRecord & TableRecord & Hashable {
        try Set(updateAndFetchCursor(db, onConflict: conflictResolution, assignments))
    }

    /// Updates the rows and returns the updated records.
    /// Needs SQLite 3.35: throws here.
    public func updateAndFetchSet(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignments: (DatabaseComponents) throws -> [ColumnAssignment]
    ) throws -> Set<RowDecoder> where RowDecoder: FetchableRecord & TableRecord & Hashable {
        try updateAndFetchSet(db, onConflict: conflictResolution, assignments(RowDecoder.databaseComponents))
    }
}
