internal import CSQLCipher

/// What the connection knows of the schema (table columns, primary keys,
/// the INSERT statements of record types), so that inserting a record does
/// not query `PRAGMA table_info` every time.
///
/// The cache is dropped whenever the schema may have changed:
/// - a statement of this connection that changes the schema (CREATE, DROP,
///   ALTER, ATTACH...) runs: SQLite's authorizer tells which statements do
///   when they are prepared;
/// - another connection changed it: `PRAGMA schema_version` is compared
///   once per transaction (a transaction statement marks the cache for a
///   check) and before every use outside a transaction.
final class SchemaCache {
    var version: Int32?
    var needsCheck = true
    var columns: [String: [ColumnInfo]] = [:]
    var primaryKeys: [String: PrimaryKeyInfo] = [:]
    /// Whether a name is a view, by lowercased name.
    var isView: [String: Bool] = [:]
    /// The INSERT statements of record types (the last column list used).
    var inserts: [ObjectIdentifier: CachedInsert] = [:]
    /// The last one used, found without hashing: inserts come in runs of
    /// one record type. Unretained: `inserts` holds it, and both change
    /// together. Exclusivity is not checked at run time (it cost as much
    /// as the lookup): only `cachedInsert` and `clear` touch it.
    @exclusivity(unchecked) var lastInsert: (type: ObjectIdentifier, insert: Unmanaged<CachedInsert>)?
    enum Effect: Int {
        case none = 0
        /// BEGIN, COMMIT, ROLLBACK, SAVEPOINT, RELEASE.
        case transaction
        /// CREATE, DROP, ALTER, ATTACH, DETACH...
        case schemaChange
    }

    func clear() {
        columns.removeAll()
        primaryKeys.removeAll()
        isView.removeAll()
        lastInsert = nil
        inserts.removeAll()
        version = nil
        needsCheck = true
    }

    /// Called when a statement with an effect runs.
    func statementWillRun(_ effect: Effect) {
        switch effect {
        case .none: break
        case .transaction: needsCheck = true
        case .schemaChange: clear()
        }
    }
}

/// The INSERT of a record type, for one list of columns.
///
/// A class: an insert finds it for every record, and a reference costs one
/// retain where a struct's copy retained each of its fields.
final class CachedInsert {
    let columns: [String]
    let statement: Statement
    /// The table's INTEGER PRIMARY KEY column, if any.
    let rowIDColumn: String?
    let conflictResolution: Database.ConflictResolution
    /// The position of `rowIDColumn` in `columns`, if the record gives it.
    let rowIDIndex: Int?
    /// True while a record's values are bound to the statement as they
    /// are encoded, until it has run: a record inserted meanwhile (by the
    /// record's own `encode(to:)`) takes another statement, and leaves
    /// the values bound so far in place.
    @exclusivity(unchecked) var isBeingBound = false

    init(columns: [String], statement: Statement, rowIDColumn: String?, conflictResolution: Database.ConflictResolution) {
        self.columns = columns
        self.statement = statement
        self.rowIDColumn = rowIDColumn
        self.conflictResolution = conflictResolution
        rowIDIndex = rowIDColumn.flatMap { rowIDColumn in columns.firstIndex { $0.isEqualIgnoringCase(rowIDColumn) } }
    }
}

extension Database {
    /// Drops the cache if another connection changed the schema since it
    /// was filled. Inside a transaction this reads the schema version once.
    func validateSchemaCache() throws {
        let inTransaction = sqlite3_get_autocommit(sqliteConnection) == 0
        guard schemaCache.needsCheck || !inTransaction else { return }
        let statement = try cachedStatement(sql: "PRAGMA schema_version")
        defer { statement.reset() }
        guard try statement.step() else { return }
        let version = sqlite3_column_int(statement.sqliteStatement, 0)
        if version != schemaCache.version {
            schemaCache.clear()
            schemaCache.version = version
        }
        schemaCache.needsCheck = !inTransaction
    }

    /// The prepared INSERT of a record type for these columns, and the
    /// table's rowid column. `table` is asked for only when the statement
    /// is prepared (record types have one table).
    func cachedInsert(for type: Any.Type, table tableName: () -> String, columns: [String],
                      conflictResolution: Database.ConflictResolution = .abort) throws -> CachedInsert {
        if let last = try lastInsert(of: type, conflictResolution: conflictResolution) {
            let cached = last.takeUnretainedValue()
            if cached.columns == columns { return cached }
        }
        let key = ObjectIdentifier(type)
        let table = tableName()
        let sql = Database.insertSQL(table: table, columns: columns, conflictResolution: conflictResolution)
        let cached = CachedInsert(columns: columns, statement: try makeStatement(sql: sql),
                                  rowIDColumn: try primaryKey(table).rowIDColumn, conflictResolution: conflictResolution)
        schemaCache.inserts[key] = cached
        schemaCache.lastInsert = (key, .passUnretained(cached))
        return cached
    }

    /// The INSERT the last record of `type` used, if it had this conflict
    /// resolution and the schema has not changed since, and no record's
    /// values are being bound to it: found without hashing when the last
    /// record inserted was of `type`.
    ///
    /// Unretained: the schema cache holds it until its next change, and a
    /// caller that runs code which could change it (a record's
    /// `encode(to:)`) holds it first.
    func lastInsert(of type: Any.Type, conflictResolution: Database.ConflictResolution) throws -> Unmanaged<CachedInsert>? {
        try validateSchemaCache()
        let key = ObjectIdentifier(type)
        if let last = schemaCache.lastInsert, last.type == key {
            let usable = last.insert._withUnsafeGuaranteedRef { $0.conflictResolution == conflictResolution && !$0.isBeingBound }
            return usable ? last.insert : nil
        }
        // Records of several types in turn (a parent, then its children).
        guard let cached = schemaCache.inserts[key], cached.conflictResolution == conflictResolution,
              !cached.isBeingBound else { return nil }
        schemaCache.lastInsert = (key, .passUnretained(cached))
        return .passUnretained(cached)
    }

    /// `INSERT [OR ...] INTO "table" ("a", "b") VALUES (?,?)`, or `DEFAULT
    /// VALUES` for no column.
    static func insertSQL(table: String, columns: [String], conflictResolution: Database.ConflictResolution) -> String {
        let verb = "INSERT \(PersistenceConflictPolicy.sql(conflictResolution))INTO \(table.quotedDatabaseIdentifier)"
        guard !columns.isEmpty else { return "\(verb) DEFAULT VALUES" }
        return "\(verb) (\(columns.map(\.quotedDatabaseIdentifier).joined(separator: ", "))) VALUES (\(databaseQuestionMarks(count: columns.count)))"
    }
}
