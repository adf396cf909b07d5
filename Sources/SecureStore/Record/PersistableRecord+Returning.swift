// Persistence methods that fetch what they wrote, and upserts. They need
// SQL's RETURNING clause (SQLite 3.35) and UPSERT (SQLite 3.24): on
// SQLCipher 3.4.1 (SQLite 3.15.2) each throws an error that names the
// missing feature, before any callback runs or anything is written.
// Insert or save, then fetch, in one transaction instead.

/// What an upsert updates when the row already exists.
public enum UpsertUpdateStrategy: Sendable {
    /// Every column but the conflict target.
    case allColumns
    /// Only the columns given to `doUpdate`.
    case noColumnUnlessSpecified
}

private let returningUnavailable = Database.missingFeatureError(SQLiteFeature.returning.name, since: SQLiteFeature.returning.version)
private let upsertUnavailable = Database.missingFeatureError(SQLiteFeature.upsert.name, since: SQLiteFeature.upsert.version)

extension MutablePersistableRecord {
    /// Inserts the record and fetches the inserted row, as `T`.
    /// Needs SQLite 3.35: throws here.
    public mutating func insertAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, as returnedType: T.Type
    ) throws -> T {
        throw returningUnavailable
    }

    /// Inserts the record and fetches the selection with `fetch`.
    /// Needs SQLite 3.35: throws here.
    public mutating func insertAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        throw returningUnavailable
    }

    /// Inserts the record and fetches the inserted row.
    /// Needs SQLite 3.35: throws here.
    public func insertAndFetch(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws -> Self
    where Self: FetchableRecord {
        throw returningUnavailable
    }

    /// Saves the record and fetches the saved row, as `T`.
    /// Needs SQLite 3.35: throws here.
    public mutating func saveAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, as returnedType: T.Type
    ) throws -> T {
        throw returningUnavailable
    }

    /// Saves the record and fetches the selection with `fetch`.
    /// Needs SQLite 3.35: throws here.
    public mutating func saveAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        throw returningUnavailable
    }

    /// Saves the record and fetches the saved row.
    /// Needs SQLite 3.35: throws here.
    public func saveAndFetch(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws -> Self
    where Self: FetchableRecord {
        throw returningUnavailable
    }

    /// Updates the record and fetches the updated row.
    /// Needs SQLite 3.35: throws here.
    public func updateAndFetch(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws -> Self
    where Self: FetchableRecord {
        throw returningUnavailable
    }

    /// Updates the record and fetches the updated row, as `T`.
    /// Needs SQLite 3.35: throws here.
    public func updateAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, as returnedType: T.Type
    ) throws -> T {
        throw returningUnavailable
    }

    /// Updates the record and fetches the selection with `fetch`.
    /// Needs SQLite 3.35: throws here.
    public func updateAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        throw returningUnavailable
    }

    /// Updates some columns and fetches the selection with `fetch`.
    /// Needs SQLite 3.35: throws here.
    public func updateAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        columns: some Collection<String>, selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        throw returningUnavailable
    }

    /// Inserts the record and fetches the columns `select` gives, with
    /// `fetch`. Needs SQLite 3.35: throws here.
    public mutating func insertAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        fetch: (Statement) throws -> T, select: (DatabaseComponents) throws -> [any SQLSelectable]
    ) throws -> T where Self: TableRecord {
        throw returningUnavailable
    }

    /// Updates some columns, named by column expressions, and fetches the
    /// selection with `fetch`. Needs SQLite 3.35: throws here.
    public func updateAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        columns: some Collection<some ColumnExpression>, selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        throw returningUnavailable
    }

    /// Modifies the record with `modify`, updates the columns that changed
    /// and fetches the updated row (nil when nothing changed).
    /// Needs SQLite 3.35: throws here, before `modify` runs.
    public mutating func updateChangesAndFetch(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, modify: (inout Self) throws -> Void
    ) throws -> Self? where Self: FetchableRecord {
        throw returningUnavailable
    }

    /// Like ``updateChangesAndFetch(_:onConflict:modify:)``, fetching the
    /// row as `T`. Needs SQLite 3.35: throws here, before `modify` runs.
    public mutating func updateChangesAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        as returnedType: T.Type, modify: (inout Self) throws -> Void
    ) throws -> T? {
        throw returningUnavailable
    }

    /// Like ``updateChangesAndFetch(_:onConflict:modify:)``, fetching the
    /// selection with `fetch`. Needs SQLite 3.35: throws here, before
    /// `modify` runs.
    public mutating func updateChangesAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T, modify: (inout Self) throws -> Void
    ) throws -> T? {
        throw returningUnavailable
    }

    /// Inserts the record, or updates the row with the same unique key.
    /// Needs SQLite 3.24 (UPSERT) and 3.35 (RETURNING): throws here.
    public mutating func upsert(_ db: Database) throws {
        throw upsertUnavailable
    }

    /// Upserts the record and fetches the row.
    /// Needs SQLite 3.24 (UPSERT) and 3.35 (RETURNING): throws here.
    public mutating func upsertAndFetch(
        _ db: Database, onConflict conflictTarget: [String] = [], updating strategy: UpsertUpdateStrategy = .allColumns,
        doUpdate assignments: ((_ excluded: TableAlias<Self>) -> [ColumnAssignment])? = nil
    ) throws -> Self where Self: FetchableRecord {
        throw upsertUnavailable
    }

    /// Upserts the record and fetches the row, as `T`.
    /// Needs SQLite 3.24 (UPSERT) and 3.35 (RETURNING): throws here.
    public mutating func upsertAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, as returnedType: T.Type, onConflict conflictTarget: [String] = [],
        updating strategy: UpsertUpdateStrategy = .allColumns,
        doUpdate assignments: ((_ excluded: TableAlias<Self>) -> [ColumnAssignment])? = nil
    ) throws -> T {
        throw upsertUnavailable
    }
}

extension PersistableRecord {
    /// Inserts the record and fetches the inserted row, as `T`.
    /// Needs SQLite 3.35: throws here.
    public func insertAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, as returnedType: T.Type
    ) throws -> T {
        throw returningUnavailable
    }

    /// Inserts the record and fetches the selection with `fetch`.
    /// Needs SQLite 3.35: throws here.
    public func insertAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        throw returningUnavailable
    }

    /// Saves the record and fetches the saved row, as `T`.
    /// Needs SQLite 3.35: throws here.
    public func saveAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, as returnedType: T.Type
    ) throws -> T {
        throw returningUnavailable
    }

    /// Saves the record and fetches the selection with `fetch`.
    /// Needs SQLite 3.35: throws here.
    public func saveAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T
    ) throws -> T {
        throw returningUnavailable
    }

    /// Inserts the record and fetches the columns `select` gives, with
    /// `fetch`. Needs SQLite 3.35: throws here.
    public func insertAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        fetch: (Statement) throws -> T, select: (DatabaseComponents) throws -> [any SQLSelectable]
    ) throws -> T where Self: TableRecord {
        throw returningUnavailable
    }

    /// Upserts the record and fetches the row, as `T`.
    /// Needs SQLite 3.24 (UPSERT) and 3.35 (RETURNING): throws here.
    public func upsertAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, as returnedType: T.Type, onConflict conflictTarget: [String] = [],
        updating strategy: UpsertUpdateStrategy = .allColumns,
        doUpdate assignments: ((_ excluded: TableAlias<Self>) -> [ColumnAssignment])? = nil
    ) throws -> T {
        throw upsertUnavailable
    }

    /// Inserts the record, or updates the row with the same unique key.
    /// Needs SQLite 3.24 (UPSERT) and 3.35 (RETURNING): throws here.
    public func upsert(_ db: Database) throws {
        throw upsertUnavailable
    }

    /// Upserts the record and fetches the row.
    /// Needs SQLite 3.24 (UPSERT) and 3.35 (RETURNING): throws here.
    public func upsertAndFetch(
        _ db: Database, onConflict conflictTarget: [String] = [], updating strategy: UpsertUpdateStrategy = .allColumns,
        doUpdate assignments: ((_ excluded: TableAlias<Self>) -> [ColumnAssignment])? = nil
    ) throws -> Self where Self: FetchableRecord {
        throw upsertUnavailable
    }
}
