/// What an INSERT produced: the new rowid, and the values inserted.
public struct InsertionSuccess: Sendable {
    /// The rowid of the new row.
    public var rowID: Int64
    /// The INTEGER PRIMARY KEY column, if the table has one.
    public var rowIDColumn: String? {
        get { hasRowIDColumn ? rowIDColumnName : nil }
        set {
            rowIDColumnName = newValue ?? ""
            hasRowIDColumn = newValue != nil
        }
    }
    /// The values that were inserted.
    public var persistenceContainer: PersistenceContainer

    // The column is stored as a string and a flag, not as `String?`: the
    // compiler copies and destroys an optional string through its value
    // witnesses (a metadata lookup and calls), and an insert copied and
    // dropped its success several times in the persistence callbacks
    // (190 instructions per insert in all, measured).
    private var rowIDColumnName: String
    private var hasRowIDColumn: Bool

    @inline(__always)
    init(rowID: Int64, rowIDColumn: String?, persistenceContainer: consuming PersistenceContainer) {
        self.rowID = rowID
        self.persistenceContainer = persistenceContainer
        if let rowIDColumn {
            rowIDColumnName = rowIDColumn
            hasRowIDColumn = true
        } else {
            rowIDColumnName = ""
            hasRowIDColumn = false
        }
    }
}

/// What an UPDATE or a save wrote.
public struct PersistenceSuccess: Sendable {
    /// The values of the record that was written.
    public var persistenceContainer: PersistenceContainer

    init(persistenceContainer: PersistenceContainer) { self.persistenceContainer = persistenceContainer }

    init(_ inserted: InsertionSuccess) { persistenceContainer = inserted.persistenceContainer }
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
/// try player.updateChanges(db) { $0.name = "Barbara" }
/// ```
///
/// Callbacks run around each change, as in GRDB: `willSave`,
/// `aroundSave`, then `willInsert`/`aroundInsert`/`didInsert` (or the
/// update or delete ones), then `didSave`. An `around` callback must call
/// its action function and rethrow its errors.
///
/// ## Topics
///
/// ### Writing
///
/// - ``insert(_:onConflict:)``
/// - ``inserted(_:onConflict:)``
/// - ``update(_:onConflict:)``
/// - ``update(_:onConflict:columns:)-(_,_,Collection<String>)``
/// - ``updateChanges(_:onConflict:modify:)``
/// - ``save(_:onConflict:)``
/// - ``delete(_:)``
/// - ``exists(_:)``
///
/// ### Callbacks
///
/// - ``willInsert(_:)``
/// - ``aroundInsert(_:insert:)``
/// - ``didInsert(_:)``
/// - ``willUpdate(_:columns:)``
/// - ``willSave(_:)``
/// - ``willDelete(_:)``
///
/// ### Related Types
///
/// - ``persistenceConflictPolicy``
public protocol MutablePersistableRecord: EncodableRecord, TableRecord {
    /// How INSERT and UPDATE resolve conflicts; `.abort` by default.
    static var persistenceConflictPolicy: PersistenceConflictPolicy { get }

    /// Before an insert.
    mutating func willInsert(_ db: Database) throws
    /// Around an insert: call `insert`, and rethrow its errors.
    func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws
    /// After a successful insert.
    mutating func didInsert(_ inserted: InsertionSuccess)
    /// Before an update of these columns.
    func willUpdate(_ db: Database, columns: Set<String>) throws
    /// Around an update: call `update`, and rethrow its errors.
    func aroundUpdate(_ db: Database, columns: Set<String>, update: () throws -> PersistenceSuccess) throws
    /// After a successful update.
    func didUpdate(_ updated: PersistenceSuccess)
    /// Before an insert, update or save.
    func willSave(_ db: Database) throws
    /// Around an insert, update or save: call `save`, and rethrow its errors.
    func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws
    /// After a successful insert, update or save.
    func didSave(_ saved: PersistenceSuccess)
    /// Before a delete.
    func willDelete(_ db: Database) throws
    /// Around a delete: call `delete`, and rethrow its errors.
    func aroundDelete(_ db: Database, delete: () throws -> Bool) throws
    /// After a delete; `deleted` tells whether a row was deleted.
    func didDelete(deleted: Bool)
}

extension MutablePersistableRecord {
    /// `.abort` for inserts and updates.
    public static var persistenceConflictPolicy: PersistenceConflictPolicy { PersistenceConflictPolicy() }

    /// Does nothing.
    public mutating func willInsert(_ db: Database) throws {}
    /// Calls `insert`.
    public func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws {
        db.defaultAroundCallbacks.noteDefault(.insert, of: Self.self)
        _ = try insert()
    }
    /// Does nothing.
    public mutating func didInsert(_ inserted: InsertionSuccess) {}
    /// Does nothing.
    public func willUpdate(_ db: Database, columns: Set<String>) throws {}
    /// Calls `update`.
    public func aroundUpdate(_ db: Database, columns: Set<String>, update: () throws -> PersistenceSuccess) throws {
        db.defaultAroundCallbacks.noteDefault(.update, of: Self.self)
        _ = try update()
    }
    /// Does nothing.
    public func didUpdate(_ updated: PersistenceSuccess) {}
    /// Does nothing.
    public func willSave(_ db: Database) throws {}
    /// Calls `save`.
    public func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws {
        db.defaultAroundCallbacks.noteDefault(.save, of: Self.self)
        _ = try save()
    }
    /// Does nothing.
    public func didSave(_ saved: PersistenceSuccess) { RecordEncoder.noteDefaultCallback(.didSave) }
    /// Does nothing.
    public func willDelete(_ db: Database) throws {}
    /// Calls `delete`.
    public func aroundDelete(_ db: Database, delete: () throws -> Bool) throws { _ = try delete() }
    /// Does nothing.
    public func didDelete(deleted: Bool) {}

    /// The error of an `around` callback that did not call its action.
    func callbackMisuse(_ name: String) -> DatabaseError {
        DatabaseError(resultCode: .SQLITE_MISUSE,
                      message: "Incorrect implementation of the `\(Self.self).\(name)` persistence callback: the action function was not called, or its error was not rethrown.")
    }

    /// Runs `willSave`, `aroundSave` around `body`, then `didSave`, on the
    /// record itself: a mutable copy would retain and release each string
    /// it holds.
    func withSaveCallbacks(_ db: Database, _ body: () throws -> PersistenceSuccess) throws {
        try willSave(db)
        // What the default `aroundSave` would do, without its closure and
        // the copy of the result it drops (`DefaultAroundCallbacks`).
        if db.defaultAroundCallbacks.areDefault(.save, of: Self.self) {
            let saved = try body()
            didSave(saved)
            return
        }
        var saved: PersistenceSuccess?
        try aroundSave(db) { keep(try body(), in: &saved) }
        guard let saved = saved.take() else { throw callbackMisuse("aroundSave") }
        didSave(saved)
    }

    /// Runs `willSave`, `aroundSave` around `body`, which may change the
    /// record (an insert sets its id), then `didSave`.
    mutating func withMutatingSaveCallbacks(_ db: Database, _ body: (inout Self) throws -> PersistenceSuccess) throws {
        try willSave(db)
        if db.defaultAroundCallbacks.areDefault(.save, of: Self.self) {
            // Two statements: in `didSave(try body(&self))`, `didSave`
            // would run on the record as it was before `body` changed it.
            let saved = try body(&self)
            didSave(saved)
            return
        }
        var saved: PersistenceSuccess?
        try aroundSave(db) {
            let success = try body(&self)
            saved = success
            return success
        }
        // take(): the result moves out of the optional instead of being
        // copied (a copy retains each array and string it holds).
        guard let saved = saved.take() else { throw callbackMisuse("aroundSave") }
        didSave(saved)
    }

    // MARK: Insert

    /// Inserts the record.
    public mutating func insert(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws {
        try insertWithSaveCallbacks(db, onConflict: conflictResolution)
    }

    /// The insert of both protocols: save callbacks around the insert ones.
    mutating func insertWithSaveCallbacks(_ db: Database, onConflict conflictResolution: Database.ConflictResolution?) throws {
        try withMutatingSaveCallbacks(db) { record in
            PersistenceSuccess(try record.insertWithCallbacks(db, onConflict: conflictResolution))
        }
    }

    /// A copy of the record, inserted.
    public func inserted(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws -> Self {
        var record = self
        try record.insert(db, onConflict: conflictResolution)
        return record
    }

    /// `willInsert`, `aroundInsert` around the INSERT, then `didInsert`.
    ///
    /// The INSERT runs on `self` from inside the `aroundInsert` closure,
    /// not through a `perform` closure that takes the record: that one
    /// copied the record twice per insert.
    mutating func insertWithCallbacks(_ db: Database, onConflict conflictResolution: Database.ConflictResolution?) throws -> InsertionSuccess {
        try willInsert(db)
        if db.defaultAroundCallbacks.areDefault(.insert, of: Self.self) {
            let inserted = try performInsert(db, onConflict: conflictResolution)
            didInsert(inserted)
            return inserted
        }
        var inserted: InsertionSuccess?
        try aroundInsert(db) {
            let success = try performInsert(db, onConflict: conflictResolution)
            inserted = success
            return success
        }
        guard let inserted = inserted.take() else { throw callbackMisuse("aroundInsert") }
        didInsert(inserted)
        return inserted
    }

    /// `willInsert`, `aroundInsert` around `perform` (the INSERT of the
    /// record as `willInsert` left it), then `didInsert`.
    mutating func insertWithCallbacks(_ db: Database, perform: (Self) throws -> InsertionSuccess) throws -> InsertionSuccess {
        try willInsert(db)
        if db.defaultAroundCallbacks.areDefault(.insert, of: Self.self) {
            let inserted = try perform(self)
            didInsert(inserted)
            return inserted
        }
        var inserted: InsertionSuccess?
        try aroundInsert(db) {
            let success = try perform(self)
            inserted = success
            return success
        }
        guard let inserted = inserted.take() else { throw callbackMisuse("aroundInsert") }
        didInsert(inserted)
        return inserted
    }

    /// The record's type. In generic code, `type(of: self)` copies a
    /// struct record (retaining each string it holds) to find a type that
    /// can only be `Self`: only a class record can be of a subtype.
    var dynamicRecordType: Self.Type {
        Self.self is AnyObject.Type ? type(of: self) : Self.self
    }

    /// Runs the INSERT, through the connection's cached statement.
    ///
    /// `mutating` although it changes nothing: called on the record that
    /// the `aroundInsert` closure captures, a non-mutating method gets a
    /// copy of it (one more retain and release of each string it holds).
    mutating func performInsert(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws -> InsertionSuccess {
        try insertWithoutCallbacks(db, onConflict: conflictResolution)
    }

    /// Runs the INSERT, through the connection's cached statement.
    func insertWithoutCallbacks(_ db: Database, onConflict conflictResolution: Database.ConflictResolution?) throws -> InsertionSuccess {
        // A constant until the statement has run: its columns and values
        // are lent to the calls below (a variable's were retained and
        // released around each call).
        let inserted = try persistenceContainer()
        let recordType = dynamicRecordType
        let resolution = conflictResolution ?? recordType.persistenceConflictPolicy.conflictResolutionForInsert
        let insert = try db.cachedInsert(for: recordType, table: { recordType.databaseTableName }, columns: inserted.columns,
                                         conflictResolution: resolution)
        // The statement is reached unretained: `insert`, held until the
        // end, holds it (a retain and a release per record otherwise).
        try withExtendedLifetime(insert) {
            try Unmanaged.passUnretained(insert.statement)._withUnsafeGuaranteedRef { try $0.execute(values: inserted.values) }
        }
        let rowID = db.lastInsertedRowID
        var container = consume inserted
        // The inserted values include the rowid the table chose.
        if let column = insert.rowIDColumn { container.setRowID(rowID, column: column, index: insert.rowIDIndex) }
        return InsertionSuccess(rowID: rowID, rowIDColumn: insert.rowIDColumn, persistenceContainer: container)
    }

    // MARK: Update

    /// Updates every column of the row with the record's primary key, but
    /// the key itself. Throws ``RecordError/recordNotFound(databaseTableName:key:)``
    /// when there is no such row.
    public func update(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws {
        let columns = try db.columns(in: type(of: self).databaseTableName).map(\.name)
        try update(db, onConflict: conflictResolution, columns: columns)
    }

    /// Updates some columns only.
    public func update(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
                       columns: some Collection<String>) throws {
        try withSaveCallbacks(db) { try updateWithCallbacks(db, onConflict: conflictResolution, columns: Set(columns)) }
    }

    /// Updates some columns only.
    public func update(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
                       columns: some Collection<some ColumnExpression>) throws {
        try update(db, onConflict: conflictResolution, columns: columns.map(\.name))
    }

    /// `willUpdate`, `aroundUpdate` around the UPDATE, then `didUpdate`.
    func updateWithCallbacks(_ db: Database, onConflict conflictResolution: Database.ConflictResolution?,
                             columns: Set<String>) throws -> PersistenceSuccess {
        try updateWithCallbacks(db, columns: columns) { record in
            let update = try record.updateStatement(db, onConflict: conflictResolution, columns: columns)
            let changed = try db.changedRowCount(ofTable: type(of: record).databaseTableName) { try update.statement.execute() }
            if changed == 0 { throw record.recordNotFound(update.key) }
            return PersistenceSuccess(persistenceContainer: update.container)
        }
    }

    /// `willUpdate`, `aroundUpdate` around `perform` (the UPDATE), then
    /// `didUpdate`.
    func updateWithCallbacks(_ db: Database, columns: Set<String>,
                             perform: (Self) throws -> PersistenceSuccess) throws -> PersistenceSuccess {
        try willUpdate(db, columns: columns)
        if db.defaultAroundCallbacks.areDefault(.update, of: Self.self) {
            let updated = try perform(self)
            didUpdate(updated)
            return updated
        }
        var kept: PersistenceSuccess?
        try aroundUpdate(db, columns: columns) { keep(try perform(self), in: &kept) }
        guard let updated = kept.take() else { throw callbackMisuse("aroundUpdate") }
        didUpdate(updated)
        return updated
    }

    /// The UPDATE of the given columns (names compared ignoring case), with
    /// a RETURNING clause when `selection` is not empty; the record's values
    /// and primary key.
    func updateStatement(_ db: Database, onConflict conflictResolution: Database.ConflictResolution?,
                         columns: Set<String>, returning selection: [any SQLSelectable] = [])
    throws -> (statement: Statement, container: PersistenceContainer, key: [(column: String, value: DatabaseValue)]) {
        let container = try persistenceContainer()
        let key = try primaryKeyValues(db, container)
        let wanted = Set(columns.map { $0.lowercased() })
        let keyColumns = Set(key.map { $0.column.lowercased() })
        var updated = container.columns.filter { wanted.contains($0.lowercased()) && !keyColumns.contains($0.lowercased()) }
        // A record made only of its primary key still updates (a no-op
        // that tells whether the row exists).
        if updated.isEmpty { updated = key.map(\.column) }
        let values = updated.compactMap(container.databaseValue) + key.map(\.value)
        // The SQL names the columns as the table does, whatever the case
        // the record uses (as GRDB does).
        let tableName = type(of: self).databaseTableName
        let tableColumns = try db.columns(in: tableName).map(\.name)
        let canonical = { (column: String) in tableColumns.first { $0.isEqualIgnoringCase(column) } ?? column }
        let resolution = conflictResolution ?? type(of: self).persistenceConflictPolicy.conflictResolutionForUpdate
        let returning = try SQLReturningClause(db, selection: selection, tableName: tableName)
        let sql = "UPDATE \(PersistenceConflictPolicy.sql(resolution))\(tableName.quotedDatabaseIdentifier) SET "
            + updated.map { "\(canonical($0).quotedDatabaseIdentifier)=?" }.joined(separator: ", ")
            + " WHERE " + key.map { "\($0.column.quotedDatabaseIdentifier)=?" }.joined(separator: " AND ")
            + returning.sql
        let statement = try db.cachedStatement(sql: sql)
        try statement.setArguments(StatementArguments(values: values) + returning.arguments)
        return (statement, container, key)
    }

    /// Updates the columns whose values differ from `record`'s; returns
    /// whether there was any.
    @discardableResult
    public func updateChanges(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
                              from record: some MutablePersistableRecord) throws -> Bool {
        try updateChanges(db, onConflict: conflictResolution, from: record.persistenceContainer())
    }

    /// Changes the record with `modify`, and updates the columns that
    /// changed; returns whether there was any.
    ///
    /// ```swift
    /// try player.updateChanges(db) { $0.score = 1000 }
    /// ```
    @discardableResult
    public mutating func updateChanges(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
                                       modify: (inout Self) throws -> Void) throws -> Bool {
        // First modify, then update the modified record (an argument would
        // be evaluated after `self` is read for the call).
        let changed = try databaseChanges(modify: modify).keys
        return try updateColumns(db, onConflict: conflictResolution, changed)
    }

    private func updateChanges(_ db: Database, onConflict conflictResolution: Database.ConflictResolution?,
                               from old: PersistenceContainer) throws -> Bool {
        try updateColumns(db, onConflict: conflictResolution, try databaseChanges(from: old).keys)
    }

    /// Updates `changed`, if any; returns whether there was any.
    private func updateColumns(_ db: Database, onConflict conflictResolution: Database.ConflictResolution?,
                               _ changed: some Collection<String>) throws -> Bool {
        if changed.isEmpty { return false }
        try update(db, onConflict: conflictResolution, columns: changed)
        return true
    }

    // MARK: Save, delete, exists

    /// Inserts the record, or updates it when its primary key is taken.
    public mutating func save(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws {
        try saveWithCallbacks(db, onConflict: conflictResolution)
    }

    /// The save of both protocols.
    mutating func saveWithCallbacks(_ db: Database, onConflict conflictResolution: Database.ConflictResolution?) throws {
        try withMutatingSaveCallbacks(db) { record in try record.updateOrInsertWithCallbacks(db, onConflict: conflictResolution) }
    }

    /// A copy of the record, saved.
    public func saved(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws -> Self {
        var record = self
        try record.save(db, onConflict: conflictResolution)
        return record
    }

    /// Updates when the key is set and the row exists, inserts otherwise.
    mutating func updateOrInsertWithCallbacks(_ db: Database, onConflict conflictResolution: Database.ConflictResolution?) throws -> PersistenceSuccess {
        if try keyIsSet(db) {
            do {
                let columns = try db.columns(in: type(of: self).databaseTableName).map(\.name)
                return try updateWithCallbacks(db, onConflict: conflictResolution, columns: Set(columns))
            } catch RecordError.recordNotFound {
                // Not there: insert below.
            }
        }
        return PersistenceSuccess(try insertWithCallbacks(db, onConflict: conflictResolution))
    }

    /// Deletes the row with the record's primary key; returns whether there was one.
    @discardableResult
    public func delete(_ db: Database) throws -> Bool {
        try willDelete(db)
        var deleted: Bool?
        try aroundDelete(db) {
            guard let key = try? primaryKeyValues(db, persistenceContainer()) else {
                // A record without a primary key value has no row.
                deleted = false
                return false
            }
            let sql = "DELETE FROM \(type(of: self).databaseTableName.quotedDatabaseIdentifier) WHERE "
                + key.map { "\($0.column.quotedDatabaseIdentifier)=?" }.joined(separator: " AND ")
            let statement = try db.cachedStatement(sql: sql)
            deleted = try db.changedRowCount(ofTable: type(of: self).databaseTableName) {
                try statement.execute(arguments: StatementArguments(values: key.map(\.value)))
            } > 0
            return deleted!
        }
        guard let deleted else { throw callbackMisuse("aroundDelete") }
        didDelete(deleted: deleted)
        return deleted
    }

    /// True if a row has the record's primary key.
    public func exists(_ db: Database) throws -> Bool {
        guard let key = try? primaryKeyValues(db, persistenceContainer()) else { return false }
        let sql = "SELECT EXISTS (SELECT 1 FROM \(type(of: self).databaseTableName.quotedDatabaseIdentifier) WHERE "
            + key.map { "\($0.column.quotedDatabaseIdentifier)=?" }.joined(separator: " AND ") + ")"
        return try Bool.fetchOne(db.cachedStatement(sql: sql), arguments: StatementArguments(values: key.map(\.value))) ?? false
    }

    func keyIsSet(_ db: Database) throws -> Bool {
        let container = try persistenceContainer()
        return try db.primaryKey(type(of: self).databaseTableName).columns.allSatisfy { !(container.databaseValue($0)?.isNull ?? true) }
    }

    /// The primary key columns and the record's values for them.
    /// Throws ``RecordError/recordNotFound(databaseTableName:key:)``, with
    /// every key column, when one of them is NULL.
    func primaryKeyValues(_ db: Database, _ container: PersistenceContainer) throws -> [(column: String, value: DatabaseValue)] {
        let key = try db.primaryKey(type(of: self).databaseTableName).columns.map { ($0, container.databaseValue($0) ?? .null) }
        if key.contains(where: { $0.1.isNull }) { throw recordNotFound(key) }
        return key
    }

    func recordNotFound(_ key: [(column: String, value: DatabaseValue)]) -> RecordError {
        .recordNotFound(databaseTableName: type(of: self).databaseTableName,
                        key: Dictionary(key.map { ($0.column, $0.value) }, uniquingKeysWith: { first, _ in first }))
    }
}

/// A record that does not change when inserted (no auto-incremented id, or
/// a class that updates itself).
public protocol PersistableRecord: MutablePersistableRecord {
    /// Before an insert.
    func willInsert(_ db: Database) throws
    /// After a successful insert.
    func didInsert(_ inserted: InsertionSuccess)
}

extension PersistableRecord {
    /// Does nothing.
    public func willInsert(_ db: Database) throws {}
    /// Does nothing.
    public func didInsert(_ inserted: InsertionSuccess) { RecordEncoder.noteDefaultCallback(.didInsert) }

    /// Inserts the record.
    public func insert(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws {
        // This protocol's callbacks, on the record itself (as GRDB does):
        // through a mutable copy, the record would be copied three times
        // per insert, each copy a retain and a release of each string.
        try withSaveCallbacks(db) {
            PersistenceSuccess(try insertWithPersistableCallbacks(db, onConflict: conflictResolution))
        }
    }

    /// `willInsert`, `aroundInsert` around the INSERT, then `didInsert`:
    /// this protocol's callbacks, which do not change the record.
    func insertWithPersistableCallbacks(_ db: Database,
                                        onConflict conflictResolution: Database.ConflictResolution?) throws -> InsertionSuccess {
        try willInsert(db)
        if db.defaultAroundCallbacks.areDefault(.insert, of: Self.self) {
            let inserted = try insertWithoutCallbacks(db, onConflict: conflictResolution)
            didInsert(inserted)
            return inserted
        }
        var kept: InsertionSuccess?
        try aroundInsert(db) { keep(try insertWithoutCallbacks(db, onConflict: conflictResolution), in: &kept) }
        guard let inserted = kept.take() else { throw callbackMisuse("aroundInsert") }
        didInsert(inserted)
        return inserted
    }

    /// Inserts the record, or updates it when its primary key is taken.
    public func save(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws {
        var record = self
        try record.saveWithCallbacks(db, onConflict: conflictResolution)
    }
}

/// Keeps `value`, what an `around` callback's action returns, in `slot`
/// for after the callback, and returns it to the callback. (Generic over
/// the value alone: inlined, it costs nothing in the records' generic code.)
@inline(__always)
private func keep<Value>(_ value: Value, in slot: inout Value?) -> Value {
    slot = value
    return value
}
