// Persistence methods that fetch what they wrote, with SQL's RETURNING
// clause (SQLite 3.35: SQLCipher 4's SQLite has it). On SQLCipher 3.4.1
// (SQLite 3.15.2) each throws an error that names the version it needs,
// before any callback runs, `modify` is called, or anything is written:
// insert or save, then fetch, in one transaction instead.

extension MutablePersistableRecord {
    // MARK: Insert and fetch

    /// Inserts the record and fetches the inserted row, as `T`.
    ///
    /// ```swift
    /// // INSERT INTO "player" ("id", "name") VALUES (NULL, 'Arthur') RETURNING *
    /// let inserted = try player.insertAndFetch(db, as: Player.self)
    /// ```
    public mutating func insertAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, as returnedType: T.Type
    ) throws -> T {
        try insertAndFetch(db, onConflict: conflictResolution, selection: T.databaseSelection, fetch: fetchRow(db))
    }

    /// Inserts the record and fetches the selection with `fetch`, from the
    /// statement's RETURNING clause.
    public mutating func insertAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        try persistAndFetchWithCallbacks(db, updatingFirst: false, conflictResolution, selection, fetch)
    }

    /// Inserts the record and fetches the inserted row.
    public func insertAndFetch(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws -> Self
    where Self: FetchableRecord {
        var record = self
        return try record.insertAndFetch(db, onConflict: conflictResolution, as: Self.self)
    }

    /// Inserts the record and fetches the columns `select` gives, with
    /// `fetch`.
    public mutating func insertAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        fetch: (Statement) throws -> T, select: (DatabaseComponents) throws -> [any SQLSelectable]
    ) throws -> T where Self: TableRecord {
        try insertAndFetch(db, onConflict: conflictResolution, selection: select(Self.databaseComponents), fetch: fetch)
    }

    // MARK: Save and fetch

    /// Saves the record (an update, or an insert when its row does not
    /// exist) and fetches the saved row, as `T`.
    public mutating func saveAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, as returnedType: T.Type
    ) throws -> T {
        try saveAndFetch(db, onConflict: conflictResolution, selection: T.databaseSelection, fetch: fetchRow(db))
    }

    /// Saves the record and fetches the selection with `fetch`.
    public mutating func saveAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        try persistAndFetchWithCallbacks(db, updatingFirst: true, conflictResolution, selection, fetch)
    }

    /// An insert, or with `updatingFirst` a save (an update, then an insert
    /// when the row is not there), with RETURNING `selection`, inside the
    /// save callbacks.
    mutating func persistAndFetchWithCallbacks<T>(
        _ db: Database, updatingFirst: Bool, _ conflictResolution: Database.ConflictResolution?,
        _ selection: [any SQLSelectable], _ fetch: (Statement) throws -> T
    ) throws -> T {
        try Self.requireReturning(db, selection)
        var returned: T?
        try withMutatingSaveCallbacks(db) { record in
            if updatingFirst, try record.keyIsSet(db) {
                do {
                    let columns = Set(try db.columns(in: Self.databaseTableName).map(\.name))
                    return try record.updateWithCallbacks(db, columns: columns) { record in
                        let (updated, value) = try record.performUpdate(db, onConflict: conflictResolution, columns: columns,
                                                                        returning: selection, fetch: fetch)
                        returned = value
                        return updated
                    }
                } catch RecordError.recordNotFound {
                    // Not there: insert below.
                }
            }
            return PersistenceSuccess(try record.insertWithCallbacks(db, onConflict: conflictResolution, returning: selection,
                                                                     fetch: fetch, into: &returned))
        }
        return try Self.returned(returned)
    }

    /// Saves the record and fetches the saved row.
    public func saveAndFetch(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws -> Self
    where Self: FetchableRecord {
        var record = self
        return try record.saveAndFetch(db, onConflict: conflictResolution, as: Self.self)
    }

    // MARK: Update and fetch

    /// Updates the record and fetches the updated row.
    public func updateAndFetch(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws -> Self
    where Self: FetchableRecord {
        try updateAndFetch(db, onConflict: conflictResolution, as: Self.self)
    }

    /// Updates the record and fetches the updated row, as `T`.
    public func updateAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, as returnedType: T.Type
    ) throws -> T {
        try updateAndFetch(db, onConflict: conflictResolution, selection: T.databaseSelection, fetch: fetchRow(db))
    }

    /// Updates the record and fetches the selection with `fetch`.
    public func updateAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        let columns = try db.columns(in: Self.databaseTableName).map(\.name)
        return try updateAndFetch(db, onConflict: conflictResolution, columns: columns, selection: selection, fetch: fetch)
    }

    /// Updates some columns and fetches the selection with `fetch`.
    ///
    /// ```swift
    /// // UPDATE "player" SET "score"=? WHERE "id"=? RETURNING "score"
    /// let score = try player.updateAndFetch(db, columns: ["score"], selection: [Column("score")]) {
    ///     try Int.fetchOne($0)
    /// }
    /// ```
    public func updateAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        columns: some Collection<String>, selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        try Self.requireReturning(db, selection)
        let columns = Set(columns)
        var returned: T?
        try withSaveCallbacks(db) {
            try updateWithCallbacks(db, columns: columns) { record in
                let (updated, value) = try record.performUpdate(db, onConflict: conflictResolution, columns: columns,
                                                                returning: selection, fetch: fetch)
                returned = value
                return updated
            }
        }
        return try Self.returned(returned)
    }

    /// Updates some columns, named by column expressions, and fetches the
    /// selection with `fetch`.
    public func updateAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        columns: some Collection<some ColumnExpression>, selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        try updateAndFetch(db, onConflict: conflictResolution, columns: columns.map(\.name), selection: selection, fetch: fetch)
    }

    /// Modifies the record with `modify`, updates the columns that changed
    /// and fetches the updated row (nil when nothing changed).
    ///
    /// ```swift
    /// let updated = try player.updateChangesAndFetch(db) { $0.score += 10 }
    /// ```
    public mutating func updateChangesAndFetch(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, modify: (inout Self) throws -> Void
    ) throws -> Self? where Self: FetchableRecord {
        try updateChangesAndFetch(db, onConflict: conflictResolution, as: Self.self, modify: modify)
    }

    /// Like ``updateChangesAndFetch(_:onConflict:modify:)``, fetching the
    /// row as `T`.
    public mutating func updateChangesAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        as returnedType: T.Type, modify: (inout Self) throws -> Void
    ) throws -> T? {
        try updateChangesAndFetch(db, onConflict: conflictResolution, selection: T.databaseSelection,
                                  fetch: fetchRow(db), modify: modify)
    }

    /// Like ``updateChangesAndFetch(_:onConflict:modify:)``, fetching the
    /// selection with `fetch`.
    public mutating func updateChangesAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T, modify: (inout Self) throws -> Void
    ) throws -> T? {
        // Checked before `modify` runs: on SQLite 3.15.2 nothing happens.
        try Self.requireReturning(db, selection)
        let changed = try databaseChanges(modify: modify).keys
        if changed.isEmpty { return nil }
        return try updateAndFetch(db, onConflict: conflictResolution, columns: changed, selection: selection, fetch: fetch)
    }

    // MARK: Statements

    /// The insert callbacks around INSERT ... RETURNING, whose fetched
    /// value goes to `returned`.
    mutating func insertWithCallbacks<T>(_ db: Database, onConflict conflictResolution: Database.ConflictResolution?,
                                         returning selection: [any SQLSelectable], fetch: (Statement) throws -> T,
                                         into returned: inout T?) throws -> InsertionSuccess {
        try insertWithCallbacks(db) { record in
            let (inserted, value) = try record.performInsert(db, onConflict: conflictResolution, returning: selection, fetch: fetch)
            returned = value
            return inserted
        }
    }

    /// INSERT ... RETURNING: what `fetch` reads of the returned row(s), and
    /// the insertion (the rowid of the new row).
    func performInsert<T>(_ db: Database, onConflict conflictResolution: Database.ConflictResolution?,
                          returning selection: [any SQLSelectable], fetch: (Statement) throws -> T) throws -> (InsertionSuccess, T) {
        var container = try persistenceContainer()
        let resolution = conflictResolution ?? Self.persistenceConflictPolicy.conflictResolutionForInsert
        let tableName = Self.databaseTableName
        let rowIDColumn = try db.primaryKey(tableName).rowIDColumn
        let returning = try SQLReturningClause(db, selection: selection, tableName: tableName)
        let statement = try db.cachedStatement(
            sql: Database.insertSQL(table: tableName, columns: container.columns, conflictResolution: resolution) + returning.sql)
        try statement.setArguments(StatementArguments(values: container.values) + returning.arguments)
        let returned = try fetch(statement)
        let rowID = db.lastInsertedRowID
        if let rowIDColumn { container.setRowID(rowID, column: rowIDColumn, index: nil) }
        return (InsertionSuccess(rowID: rowID, rowIDColumn: rowIDColumn, persistenceContainer: container), returned)
    }

    /// UPDATE ... RETURNING: what `fetch` reads, after checking that a row
    /// was updated.
    func performUpdate<T>(_ db: Database, onConflict conflictResolution: Database.ConflictResolution?, columns: Set<String>,
                          returning selection: [any SQLSelectable], fetch: (Statement) throws -> T) throws -> (PersistenceSuccess, T) {
        let update = try updateStatement(db, onConflict: conflictResolution, columns: columns, returning: selection)
        let before = db.totalChangesCount
        let returned = try fetch(update.statement)
        // The changes are all made by the first step, whatever `fetch` read.
        update.statement.reset()
        if db.totalChangesCount == before { throw recordNotFound(update.key) }
        return (PersistenceSuccess(persistenceContainer: update.container), returned)
    }

    /// A fetch of one row as `T`; no row (an insert that a conflict
    /// ignored, an update of no row) is ``RecordError/recordNotFound(databaseTableName:key:)``.
    func fetchRow<T: FetchableRecord>(_ db: Database) -> (Statement) throws -> T {
        let record = self
        return { statement in
            if let row = try T.fetchOne(statement) { return row }
            throw record.recordNotFound(db)
        }
    }

    /// ``RecordError/recordNotFound(databaseTableName:key:)`` for the
    /// record's primary key.
    func recordNotFound(_ db: Database) -> RecordError {
        let container = (try? persistenceContainer()) ?? PersistenceContainer()
        let key = ((try? db.primaryKey(Self.databaseTableName).columns) ?? []).map { ($0, container.databaseValue($0) ?? .null) }
        return recordNotFound(key)
    }

    /// Throws, naming SQLite 3.35, below it; throws on an empty selection.
    static func requireReturning(_ db: Database, _ selection: [any SQLSelectable]) throws {
        try db.requireSQLite(SQLiteFeature.returning.version, feature: SQLiteFeature.returning.name)
        guard !selection.isEmpty else { throw QueryInterfaceRequest<Row>.emptySelectionError() }
    }

    /// The value a callback-wrapped fetch produced, or the error of a
    /// callback that did not run its action.
    static func returned<T>(_ value: T?) throws -> T {
        guard let value else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE,
                                message: "Incorrect implementation of the `\(Self.self)` persistence callbacks: the action function was not called")
        }
        return value
    }
}

extension PersistableRecord {
    /// Inserts the record and fetches the inserted row, as `T`.
    public func insertAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, as returnedType: T.Type
    ) throws -> T {
        var record = self
        return try record.persistAndFetchWithCallbacks(db, updatingFirst: false, conflictResolution, T.databaseSelection,
                                                       fetchRow(db))
    }

    /// Inserts the record and fetches the selection with `fetch`.
    public func insertAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        var record = self
        return try record.persistAndFetchWithCallbacks(db, updatingFirst: false, conflictResolution, selection, fetch)
    }

    /// Saves the record and fetches the saved row, as `T`.
    public func saveAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, as returnedType: T.Type
    ) throws -> T {
        var record = self
        return try record.persistAndFetchWithCallbacks(db, updatingFirst: true, conflictResolution, T.databaseSelection,
                                                       fetchRow(db))
    }

    /// Saves the record and fetches the selection with `fetch`.
    public func saveAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        var record = self
        return try record.persistAndFetchWithCallbacks(db, updatingFirst: true, conflictResolution, selection, fetch)
    }

    /// Inserts the record and fetches the columns `select` gives, with
    /// `fetch`.
    public func insertAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        fetch: (Statement) throws -> T, select: (DatabaseComponents) throws -> [any SQLSelectable]
    ) throws -> T where Self: TableRecord {
        try insertAndFetch(db, onConflict: conflictResolution, selection: select(Self.databaseComponents), fetch: fetch)
    }
}
