// Batch deletes and updates that return the changed rows, with SQL's
// RETURNING clause (SQLite 3.35: SQLCipher 4's SQLite has it). On SQLCipher
// 3.4.1 (SQLite 3.15.2) each throws an error that names the version it
// needs, before touching the database: delete or update, then fetch, in
// one transaction instead. See <https://www.sqlite.org/lang_returning.html>
// for RETURNING's caveats (the order of the rows, triggers).

extension QueryInterfaceRequest {
    /// A statement that deletes the rows and returns the selection.
    ///
    /// ```swift
    /// // DELETE FROM "player" WHERE "score" < 10 RETURNING "name"
    /// let statement = try Player.filter(Column("score") < 10).deleteAndFetchStatement(db, selection: [Column("name")])
    /// let names = try String.fetchAll(statement)
    /// ```
    ///
    /// Needs SQLite 3.35. The selection must not be empty.
    public func deleteAndFetchStatement(_ db: Database, selection: [any SQLSelectable]) throws -> Statement {
        guard !selection.isEmpty else { throw Self.emptySelectionError() }
        return try SQLQueryGenerator(relation: relation).makeDeleteStatement(db, returning: selection)
    }

    static func emptySelectionError() -> DatabaseError {
        DatabaseError(resultCode: .SQLITE_MISUSE, message: "Invalid empty selection: RETURNING needs at least one column")
    }

    /// A statement that deletes the rows and returns the selection.
    /// Needs SQLite 3.35.
    public func deleteAndFetchStatement(_ db: Database, select: (DatabaseComponents) throws -> [any SQLSelectable]) throws -> Statement
    where RowDecoder: TableRecord {
        try deleteAndFetchStatement(db, selection: select(RowDecoder.databaseComponents))
    }

    /// Deletes the rows and returns a cursor of the deleted records.
    /// Needs SQLite 3.35.
    public func deleteAndFetchCursor(_ db: Database) throws -> RecordCursor<RowDecoder>
    where RowDecoder: FetchableRecord & TableRecord {
        try RowDecoder.fetchCursor(deleteAndFetchStatement(db, selection: RowDecoder.databaseSelection))
    }

    /// Deletes the rows and returns the deleted records.
    /// Needs SQLite 3.35.
    public func deleteAndFetchAll(_ db: Database) throws -> [RowDecoder] where RowDecoder: FetchableRecord & TableRecord {
        try Array(movingElementsOf: deleteAndFetchCursor(db))
    }

    /// Deletes the rows and returns the deleted records.
    /// Needs SQLite 3.35.
    public func deleteAndFetchSet(_ db: Database) throws -> Set<RowDecoder>
    where RowDecoder: FetchableRecord & TableRecord & Hashable {
        try Set(deleteAndFetchCursor(db))
    }

    /// Deletes the rows and returns their ids (the table's one-column
    /// primary key). Needs SQLite 3.35.
    public func deleteAndFetchIds(_ db: Database) throws -> Set<RowDecoder.ID>
    where RowDecoder: TableRecord & Identifiable, RowDecoder.ID: Hashable & DatabaseValueConvertible & StatementColumnConvertible {
        let primaryKey = try db.primaryKey(RowDecoder.databaseTableName)
        guard primaryKey.columns.count == 1 else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: """
                Fetching id requires a single-column primary key in the table \(RowDecoder.databaseTableName)
                """)
        }
        return try RowDecoder.ID.fetchSet(deleteAndFetchStatement(db, selection: [Column(primaryKey.columns[0])]))
    }

    /// A statement that updates the rows and returns the selection.
    ///
    /// ```swift
    /// // UPDATE "player" SET "score" = "score" + 10 RETURNING "score"
    /// let statement = try Player.all().updateAndFetchStatement(db, [Column("score") += 10], selection: [Column("score")])
    /// let scores = try Int.fetchAll(statement)
    /// ```
    ///
    /// Needs SQLite 3.35. Neither the assignments nor the selection may be
    /// empty.
    public func updateAndFetchStatement(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        _ assignments: [ColumnAssignment], selection: [any SQLSelectable]
    ) throws -> Statement {
        guard !selection.isEmpty else { throw Self.emptySelectionError() }
        guard let statement = try SQLQueryGenerator(relation: relation)
            .makeUpdateStatement(db, conflictResolution: conflictResolution ?? defaultConflictResolutionForUpdate,
                                 assignments: assignments, returning: selection)
        else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "Invalid empty assignments: nothing to update")
        }
        return statement
    }

    /// A statement that updates the rows and returns the selection.
    /// Needs SQLite 3.35.
    public func updateAndFetchStatement(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignments: (DatabaseComponents) throws -> [ColumnAssignment],
        select: (DatabaseComponents) throws -> [any SQLSelectable]
    ) throws -> Statement where RowDecoder: TableRecord {
        try updateAndFetchStatement(db, onConflict: conflictResolution, assignments(RowDecoder.databaseComponents),
                                    selection: select(RowDecoder.databaseComponents))
    }

    /// Updates the rows and returns a cursor of the updated records.
    /// Needs SQLite 3.35.
    public func updateAndFetchCursor(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, _ assignments: [ColumnAssignment]
    ) throws -> RecordCursor<RowDecoder> where RowDecoder: FetchableRecord & TableRecord {
        try RowDecoder.fetchCursor(updateAndFetchStatement(db, onConflict: conflictResolution, assignments,
                                                           selection: RowDecoder.databaseSelection))
    }

    /// Updates the rows and returns a cursor of the updated records.
    /// Needs SQLite 3.35.
    public func updateAndFetchCursor(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignments: (DatabaseComponents) throws -> [ColumnAssignment]
    ) throws -> RecordCursor<RowDecoder> where RowDecoder: FetchableRecord & TableRecord {
        try updateAndFetchCursor(db, onConflict: conflictResolution, assignments(RowDecoder.databaseComponents))
    }

    /// Updates the rows and returns the updated records.
    /// Needs SQLite 3.35.
    public func updateAndFetchAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, _ assignments: [ColumnAssignment]
    ) throws -> [RowDecoder] where RowDecoder: FetchableRecord & TableRecord {
        try Array(movingElementsOf: updateAndFetchCursor(db, onConflict: conflictResolution, assignments))
    }

    /// Updates the rows and returns the updated records.
    /// Needs SQLite 3.35.
    public func updateAndFetchAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignments: (DatabaseComponents) throws -> [ColumnAssignment]
    ) throws -> [RowDecoder] where RowDecoder: FetchableRecord & TableRecord {
        try updateAndFetchAll(db, onConflict: conflictResolution, assignments(RowDecoder.databaseComponents))
    }

    /// Updates the rows and returns the updated records.
    /// Needs SQLite 3.35.
    public func updateAndFetchSet(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, _ assignments: [ColumnAssignment]
    ) throws -> Set<RowDecoder> where RowDecoder: FetchableRecord & TableRecord & Hashable {
        try Set(updateAndFetchCursor(db, onConflict: conflictResolution, assignments))
    }

    /// Updates the rows and returns the updated records.
    /// Needs SQLite 3.35.
    public func updateAndFetchSet(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignments: (DatabaseComponents) throws -> [ColumnAssignment]
    ) throws -> Set<RowDecoder> where RowDecoder: FetchableRecord & TableRecord & Hashable {
        try updateAndFetchSet(db, onConflict: conflictResolution, assignments(RowDecoder.databaseComponents))
    }
}
