/// What an INSERT produced: the new rowid, and the values inserted.
public struct InsertionSuccess: Sendable {
    /// The rowid of the new row.
    public var rowID: Int64
    /// The column of the rowid (the INTEGER PRIMARY KEY), if it has a name.
    public var rowIDColumn: String?
    /// The values that were inserted.
    public var persistenceContainer: PersistenceContainer
}

/// A record that can be inserted, updated and deleted, and that may change
/// when inserted (a struct getting its auto-incremented id).
///
/// ```swift
/// struct Player: Codable, MutablePersistableRecord, FetchableRecord {
///     var id: Int64?
///     var name: String
///     mutating func didInsert(_ inserted: InsertionSuccess) {
///         id = inserted.rowID
///     }
/// }
/// var player = Player(id: nil, name: "Arthur")
/// try player.insert(db)        // player.id is now set
/// ```
public protocol MutablePersistableRecord: EncodableRecord, TableRecord {
    /// Called after a successful insert.
    mutating func didInsert(_ inserted: InsertionSuccess)
}

extension MutablePersistableRecord {
    public mutating func didInsert(_ inserted: InsertionSuccess) {}

    /// Inserts the record.
    public mutating func insert(_ db: Database) throws {
        didInsert(try performInsert(db))
    }

    /// Runs the INSERT; the caller calls didInsert.
    func performInsert(_ db: Database) throws -> InsertionSuccess {
        let container = try persistenceContainer()
        let insert = try db.cachedInsert(for: Self.self, table: { Self.databaseTableName }, columns: container.columns)
        try insert.statement.execute(values: container.values)
        let rowIDColumn = insert.rowIDColumn
        return InsertionSuccess(rowID: db.lastInsertedRowID, rowIDColumn: rowIDColumn, persistenceContainer: container)
    }

    /// A copy of the record, inserted.
    public func inserted(_ db: Database) throws -> Self {
        var record = self
        try record.insert(db)
        return record
    }

    /// Updates every column of the row with the record's primary key.
    /// Throws `PersistenceError.recordNotFound` when there is no such row.
    public func update(_ db: Database) throws {
        try performUpdate(db, onlyColumns: nil)
    }

    /// Updates some columns only.
    public func update(_ db: Database, columns: some Collection<String>) throws {
        try performUpdate(db, onlyColumns: Set(columns.map { $0.lowercased() }))
    }

    private func performUpdate(_ db: Database, onlyColumns columns: Set<String>?) throws {
        let container = try persistenceContainer()
        let (condition, keyValues) = try keyCondition(db, container)
        let primaryKey = Set(try db.primaryKey(Self.databaseTableName).columns.map { $0.lowercased() })
        var updated = container.columns.filter { columns?.contains($0.lowercased()) ?? !primaryKey.contains($0.lowercased()) }
        // A record made only of its primary key still updates (a no-op
        // that tells whether the row exists).
        if updated.isEmpty { updated = container.columns.filter { primaryKey.contains($0.lowercased()) } }
        guard !updated.isEmpty else { return }
        let assignments = updated.map { "\($0.quotedDatabaseIdentifier)=?" }.joined(separator: ", ")
        let values = updated.compactMap(container.databaseValue) + keyValues
        let sql = "UPDATE \(Self.databaseTableName.quotedDatabaseIdentifier) SET \(assignments) WHERE \(condition)"
        try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(values))
        if db.changesCount == 0 { throw PersistenceError.recordNotFound(table: Self.databaseTableName) }
    }

    /// Inserts the record, or updates it when its primary key is taken.
    public mutating func save(_ db: Database) throws {
        if try existsForSave(db) {
            try update(db)
        } else {
            try insert(db)
        }
    }

    func existsForSave(_ db: Database) throws -> Bool {
        try keyIsSet(db) && exists(db)
    }

    /// Deletes the row with the record's primary key; returns whether there was one.
    @discardableResult
    public func delete(_ db: Database) throws -> Bool {
        let (condition, values) = try keyCondition(db, persistenceContainer())
        try db.execute(sql: "DELETE FROM \(Self.databaseTableName.quotedDatabaseIdentifier) WHERE \(condition)",
                       arguments: StatementArguments(values))
        return db.changesCount > 0
    }

    /// True if a row has the record's primary key.
    public func exists(_ db: Database) throws -> Bool {
        let (condition, values) = try keyCondition(db, persistenceContainer())
        return try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(Self.databaseTableName.quotedDatabaseIdentifier) WHERE \(condition))",
                                 arguments: StatementArguments(values)) ?? false
    }

    private func keyIsSet(_ db: Database) throws -> Bool {
        let container = try persistenceContainer()
        return try db.primaryKey(Self.databaseTableName).columns.allSatisfy { !(container.databaseValue($0)?.isNull ?? true) }
    }

    /// `"id"=?` (AND ...) with the key's values from the record.
    private func keyCondition(_ db: Database, _ container: PersistenceContainer) throws -> (String, [DatabaseValue]) {
        let columns = try db.primaryKey(Self.databaseTableName).columns
        var values: [DatabaseValue] = []
        for column in columns {
            guard let value = container.databaseValue(column), !value.isNull else {
                throw PersistenceError.missingPrimaryKey(table: Self.databaseTableName, column: column)
            }
            values.append(value)
        }
        return (columns.map { "\($0.quotedDatabaseIdentifier)=?" }.joined(separator: " AND "), values)
    }
}

/// A record that does not change when inserted (no auto-incremented id, or
/// a class that updates itself).
public protocol PersistableRecord: MutablePersistableRecord {
    func didInsert(_ inserted: InsertionSuccess)
}

extension PersistableRecord {
    public func didInsert(_ inserted: InsertionSuccess) {}

    /// Inserts the record.
    public func insert(_ db: Database) throws {
        didInsert(try performInsert(db))
    }

    /// Inserts the record, or updates it when its primary key is taken.
    public func save(_ db: Database) throws {
        if try existsForSave(db) {
            try update(db)
        } else {
            try insert(db)
        }
    }
}

/// Errors of record persistence.
public enum PersistenceError: Error, CustomStringConvertible, Equatable, Sendable {
    /// `update` found no row with the record's primary key.
    case recordNotFound(table: String)
    /// The record has no value for a primary key column.
    case missingPrimaryKey(table: String, column: String)

    public var description: String {
        switch self {
        case .recordNotFound(let table): return "Record not found in table \(table)"
        case let .missingPrimaryKey(table, column): return "the record has no value for \(table).\(column), its primary key"
        }
    }
}
