// Upserts: `INSERT ... ON CONFLICT DO UPDATE ... RETURNING`, as GRDB writes
// them. They need UPSERT (SQLite 3.24) and RETURNING (SQLite 3.35, which
// gives the rowid of the row, inserted or updated): on SQLCipher 3.4.1
// (SQLite 3.15.2) each throws an error that names the version it needs,
// before any callback runs or anything is written.

/// What an upsert updates when the row already exists.
///
/// ```swift
/// // Only the score of an existing player changes:
/// try player.upsertAndFetch(db, updating: .noColumnUnlessSpecified) { excluded in
///     [Column("score").set(to: excluded["score"])]
/// }
/// ```
public struct UpsertUpdateStrategy: OptionSet, Sendable {
    /// The options, as bits.
    public let rawValue: Int

    /// A strategy from its bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Only the columns given to `doUpdate` are updated.
    public static let noColumnUnlessSpecified = Self([])

    /// Every column but the primary key and the conflict target is
    /// overwritten with the inserted value, unless `doUpdate` says
    /// otherwise.
    public static let allColumns = Self(rawValue: 1 << 0)
}

extension MutablePersistableRecord {
    /// Inserts the record, or updates the row that has the same primary key
    /// or unique key, with every value of the record. Insertion callbacks
    /// run, and `didInsert` gets the rowid of the row.
    ///
    /// ```swift
    /// // INSERT INTO "player" ("id", "name", "score") VALUES (?,?,?)
    /// // ON CONFLICT DO UPDATE SET "name" = "excluded"."name", "score" = "excluded"."score"
    /// // RETURNING "rowid"
    /// try player.upsert(db)
    /// ```
    public mutating func upsert(_ db: Database) throws {
        _ = try upsertAndFetch(db, onConflict: [], updating: .allColumns, doUpdate: nil, selection: []) { _ in () }
    }

    /// Upserts the record and fetches the row.
    ///
    /// - parameters:
    ///   - db: the connection, in a write.
    ///   - conflictTarget: the columns of the unique key whose conflict
    ///     turns the insert into an update (default: any conflict).
    ///   - strategy: which columns an update overwrites.
    ///   - assignments: the assignments of an update, given the `excluded`
    ///     alias (the values the insert would have written).
    public mutating func upsertAndFetch(
        _ db: Database, onConflict conflictTarget: [String] = [], updating strategy: UpsertUpdateStrategy = .allColumns,
        doUpdate assignments: ((_ excluded: TableAlias<Self>) -> [ColumnAssignment])? = nil
    ) throws -> Self where Self: FetchableRecord {
        try upsertAndFetch(db, as: Self.self, onConflict: conflictTarget, updating: strategy, doUpdate: assignments)
    }

    /// Upserts the record and fetches the row, as `T`.
    public mutating func upsertAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, as returnedType: T.Type, onConflict conflictTarget: [String] = [],
        updating strategy: UpsertUpdateStrategy = .allColumns,
        doUpdate assignments: ((_ excluded: TableAlias<Self>) -> [ColumnAssignment])? = nil
    ) throws -> T {
        try upsertAndFetch(db, onConflict: conflictTarget, updating: strategy, doUpdate: assignments,
                           selection: T.databaseSelection) { try T(row: $0) }
    }

    /// The upsert of every public method: callbacks around the statement.
    mutating func upsertAndFetch<T>(
        _ db: Database, onConflict conflictTarget: [String], updating strategy: UpsertUpdateStrategy,
        doUpdate assignments: ((_ excluded: TableAlias<Self>) -> [ColumnAssignment])?,
        selection: [any SQLSelectable], decode: (Row) throws -> T
    ) throws -> T {
        try db.requireSQLite(SQLiteFeature.upsert.version, feature: SQLiteFeature.upsert.name)
        try db.requireSQLite(SQLiteFeature.returning.version, feature: SQLiteFeature.returning.name)
        var returned: T?
        try withMutatingSaveCallbacks(db) { record in
            PersistenceSuccess(try record.insertWithCallbacks(db) { record in
                let (inserted, value) = try record.performUpsert(db, onConflict: conflictTarget, updating: strategy,
                                                                 doUpdate: assignments, selection: selection, decode: decode)
                returned = value
                return inserted
            })
        }
        return try Self.returned(returned)
    }

    /// The statement: the insert, the update of a conflict, and the
    /// selection and rowid returned, whichever happened.
    private func performUpsert<T>(
        _ db: Database, onConflict conflictTarget: [String], updating strategy: UpsertUpdateStrategy,
        doUpdate makeAssignments: ((_ excluded: TableAlias<Self>) -> [ColumnAssignment])?,
        selection: [any SQLSelectable], decode: (Row) throws -> T
    ) throws -> (InsertionSuccess, T) {
        var container = try persistenceContainer()
        let tableName = Self.databaseTableName
        let primaryKey = try db.primaryKey(tableName)
        var sql = Database.insertSQL(table: tableName, columns: container.columns, conflictResolution: .abort)
        var arguments = StatementArguments(values: container.values)
        sql += conflictTarget.isEmpty
            ? " ON CONFLICT" : " ON CONFLICT(\(conflictTarget.map(\.quotedDatabaseIdentifier).joined(separator: ", ")))"

        // Explicit assignments first; with `.allColumns`, every other column
        // but the keys is overwritten with the inserted value, so that
        // nothing the record holds is lost unless asked.
        let excluded = TableAlias<Self>(name: "excluded")
        var assignments = makeAssignments?(excluded) ?? []
        if strategy.contains(.allColumns) {
            let kept = Set((primaryKey.columns + conflictTarget).map { $0.lowercased() })
            for column in container.columns where !kept.contains(column.lowercased())
                && !assignments.contains(where: { $0.column.lowercased() == column.lowercased() }) {
                assignments.append(Column(column).set(to: excluded[column]))
            }
        }
        let context = SQLGenerationContext(db)
        let updates = try assignments.compactMap { try $0.sql(context) }.joined(separator: ", ")
        if updates.isEmpty {
            // An update of nothing returns no row on conflict: "update" the
            // first primary key column with itself, so that the rowid (and
            // the selection) always come back.
            let column = primaryKey.columns[0].quotedDatabaseIdentifier
            sql += " DO UPDATE SET \(column) = \(column)"
        } else {
            sql += " DO UPDATE SET " + updates
            arguments += context.arguments
        }

        // The rowid is the last column returned.
        let returning = try SQLReturningClause(db, selection: selection + [Column.rowID], tableName: tableName)
        let statement = try db.cachedStatement(sql: sql + returning.sql)
        try statement.setArguments(arguments + returning.arguments)
        let rows = try Row.fetchCursor(statement)
        guard let row = try rows.next() else {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "Insertion failed: the upsert into \(tableName) returned no row")
        }
        let rowID: Int64 = row[row.count - 1]
        let value = try decode(row)
        // Run the statement to its end (tables synchronized with full-text
        // tables are updated by then).
        while try rows.next() != nil {}
        if let rowIDColumn = primaryKey.rowIDColumn { container.setRowID(rowID, column: rowIDColumn, index: nil) }
        return (InsertionSuccess(rowID: rowID, rowIDColumn: primaryKey.rowIDColumn, persistenceContainer: container), value)
    }
}

extension PersistableRecord {
    /// Inserts the record, or updates the row with the same unique key.
    public func upsert(_ db: Database) throws {
        var record = self
        _ = try record.upsertAndFetch(db, onConflict: [], updating: .allColumns, doUpdate: nil, selection: []) { _ in () }
    }

    /// Upserts the record and fetches the row.
    public func upsertAndFetch(
        _ db: Database, onConflict conflictTarget: [String] = [], updating strategy: UpsertUpdateStrategy = .allColumns,
        doUpdate assignments: ((_ excluded: TableAlias<Self>) -> [ColumnAssignment])? = nil
    ) throws -> Self where Self: FetchableRecord {
        var record = self
        return try record.upsertAndFetch(db, onConflict: conflictTarget, updating: strategy, doUpdate: assignments,
                                         selection: Self.databaseSelection) { try Self(row: $0) }
    }

    /// Upserts the record and fetches the row, as `T`.
    public func upsertAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, as returnedType: T.Type, onConflict conflictTarget: [String] = [],
        updating strategy: UpsertUpdateStrategy = .allColumns,
        doUpdate assignments: ((_ excluded: TableAlias<Self>) -> [ColumnAssignment])? = nil
    ) throws -> T {
        var record = self
        return try record.upsertAndFetch(db, onConflict: conflictTarget, updating: strategy, doUpdate: assignments,
                                         selection: T.databaseSelection) { try T(row: $0) }
    }
}
