/// A base class for records that remember what was fetched, so that
/// ``updateChanges(_:)`` writes only what changed.
///
/// Subclasses override ``databaseTableName``, ``init(row:)`` and
/// ``encode(to:)``:
///
/// ```swift
/// final class Player: Record {
///     var id: Int64?
///     var name: String
///
///     override class var databaseTableName: String { "player" }
///
///     required init(row: Row) throws {
///         id = row["id"]
///         name = row["name"]
///         try super.init(row: row)
///     }
///
///     override func encode(to container: inout PersistenceContainer) throws {
///         container["id"] = id
///         container["name"] = name
///     }
///
///     override func didInsert(_ inserted: InsertionSuccess) {
///         super.didInsert(inserted)
///         id = inserted.rowID
///     }
/// }
///
/// let player = try Player.fetchOne(db, key: 1)!
/// player.name = "Barbara"
/// try player.updateChanges(db)   // UPDATE player SET name = 'Barbara' WHERE id = 1
/// ```
///
/// A record is not `Sendable`: persisting it changes what it remembers.
///
/// ## Topics
///
/// ### Changes
///
/// - ``hasDatabaseChanges``
/// - ``databaseChanges``
/// - ``updateChanges(_:)``
open class Record {
    /// The values last fetched, inserted or updated: nil when unknown (a
    /// new record, or one that was deleted).
    var referenceRow: Row?

    /// A record that was not fetched: it has changes until it is saved.
    public init() {}

    /// A record decoded from a fetched row. Subclasses decode their
    /// properties, then call `super.init(row:)`.
    public required init(row: Row) throws {
        if row.isFetched { referenceRow = row.copy() }
    }

    /// The table of the records. Subclasses must override it.
    open class var databaseTableName: String {
        fatalError("subclass must override databaseTableName")
    }

    /// How inserts and updates resolve conflicts: `.abort` for both.
    open class var persistenceConflictPolicy: PersistenceConflictPolicy {
        PersistenceConflictPolicy(insert: .abort, update: .abort)
    }

    /// The columns fetched by requests: all of them.
    open class var databaseSelection: [any SQLSelectable] { [.allColumns] }

    /// Stores the record's values. Subclasses override it.
    open func encode(to container: inout PersistenceContainer) throws {}

    // MARK: Changes

    /// True when a column differs from what was last fetched or saved, or
    /// when nothing was.
    public var hasDatabaseChanges: Bool {
        do {
            return try !changes(stoppingAtFirst: true).isEmpty
        } catch {
            // A record that cannot be encoded cannot be saved either.
            return true
        }
    }

    /// The columns that changed, with their former values (nil when there
    /// was none).
    public var databaseChanges: [String: DatabaseValue?] {
        get throws { try changes(stoppingAtFirst: false) }
    }

    private func changes(stoppingAtFirst: Bool) throws -> [String: DatabaseValue?] {
        let container = try PersistenceContainer(self)
        var changes: [String: DatabaseValue?] = [:]
        for (column, value) in container.pairs {
            guard let referenceRow, let old = referenceRow.databaseValue(forColumn: column) else {
                changes[column] = .some(nil)
                if stoppingAtFirst { break } else { continue }
            }
            if old != value {
                changes[column] = old
                if stoppingAtFirst { break }
            }
        }
        return changes
    }

    /// Updates the columns that changed; returns false when nothing did
    /// (no statement runs).
    @discardableResult
    public final func updateChanges(_ db: Database) throws -> Bool {
        let columns = try Set(databaseChanges.keys)
        if columns.isEmpty { return false }
        try update(db, columns: columns)
        return true
    }

    // MARK: Persistence callbacks

    /// Before an insert.
    open func willInsert(_ db: Database) throws {}

    /// Around an insert: remembers the inserted values.
    open func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws {
        let inserted = try insert()
        referenceRow = Row(inserted.persistenceContainer)
    }

    /// After a successful insert. Subclasses with an auto-incremented
    /// primary key read `inserted.rowID` here.
    open func didInsert(_ inserted: InsertionSuccess) {}

    /// Before an update.
    open func willUpdate(_ db: Database, columns: Set<String>) throws {}

    /// Around an update: remembers the values.
    open func aroundUpdate(_ db: Database, columns: Set<String>, update: () throws -> PersistenceSuccess) throws {
        let updated = try update()
        referenceRow = Row(updated.persistenceContainer)
    }

    /// After a successful update.
    open func didUpdate(_ updated: PersistenceSuccess) {}

    /// Before an insert, update or save.
    open func willSave(_ db: Database) throws {}

    /// Around an insert, update or save.
    open func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws {
        _ = try save()
    }

    /// After a successful insert, update or save.
    open func didSave(_ saved: PersistenceSuccess) {}

    /// Before a delete.
    open func willDelete(_ db: Database) throws {}

    /// Around a delete: forgets what was fetched, so that the record has
    /// changes again.
    open func aroundDelete(_ db: Database, delete: () throws -> Bool) throws {
        _ = try delete()
        referenceRow = nil
    }

    /// After a delete; `deleted` tells whether a row was deleted.
    open func didDelete(deleted: Bool) {}
}

extension Record: TableRecord {}
extension Record: PersistableRecord {}
extension Record: FetchableRecord {}

@available(*, unavailable, message: "persisting a record changes what it remembers")
extension Record: Sendable {}

extension PersistenceContainer {
    /// The columns and values, in order.
    var pairs: Zip2Sequence<[String], [DatabaseValue]> { zip(columns, values) }
}

extension Row {
    /// A row of the values of a persistence container.
    convenience init(_ container: PersistenceContainer) {
        self.init(names: container.columns, values: container.values)
    }

    /// A row of the values of a record.
    convenience init(_ record: some EncodableRecord) throws {
        try self.init(PersistenceContainer(record))
    }
}
