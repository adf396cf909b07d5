/// The kinds of changes a statement can make, as SQLite's authorizer
/// reports them when the statement compiles: what a ``TransactionObserver``
/// is asked about in ``TransactionObserver/observes(eventsOfKind:)``.
public enum DatabaseEventKind: Sendable, Hashable {
    /// Rows inserted in a table.
    case insert(tableName: String)
    /// Rows deleted from a table.
    case delete(tableName: String)
    /// Some columns of rows updated.
    case update(tableName: String, columnNames: Set<String>)

    /// The table of the change.
    public var tableName: String {
        switch self {
        case .insert(let tableName), .delete(let tableName), .update(let tableName, _): return tableName
        }
    }

    /// The region the change may modify.
    var modifiedRegion: DatabaseRegion {
        if case let .update(tableName, columnNames) = self { return DatabaseRegion(table: tableName, columns: columnNames) }
        return DatabaseRegion(table: tableName)
    }
}

/// A row change, reported to ``TransactionObserver/databaseDidChange(with:)``.
///
/// An event is only valid during the call that receives it: keep
/// ``copy()`` if you need it later.
public struct DatabaseEvent {
    /// What happened to the row.
    public enum Kind: CInt, Sendable {
        /// An insert (SQLITE_INSERT).
        case insert = 18
        /// A delete (SQLITE_DELETE).
        case delete = 9
        /// An update (SQLITE_UPDATE).
        case update = 23
    }

    /// The names, read from SQLite's buffers until the event is copied.
    enum Names {
        case transient(database: UnsafePointer<CChar>, table: UnsafePointer<CChar>)
        case copied(database: String, table: String)
    }

    /// What happened to the row.
    public let kind: Kind
    /// The rowid of the row.
    public let rowID: Int64
    let names: Names

    /// The database of the table: "main", "temp", or an attached one.
    public var databaseName: String {
        switch names {
        case .transient(let database, _): return String(cString: database)
        case .copied(let database, _): return database
        }
    }

    /// The table of the row.
    public var tableName: String {
        switch names {
        case .transient(_, let table): return String(cString: table)
        case .copied(_, let table): return table
        }
    }

    /// An event that stays valid after the call that received it.
    public func copy() -> DatabaseEvent {
        DatabaseEvent(kind: kind, rowID: rowID, names: .copied(database: databaseName, table: tableName))
    }

    /// True if the event is a change of this kind (columns are not known).
    func matches(_ eventKind: DatabaseEventKind) -> Bool {
        switch (kind, eventKind) {
        case (.insert, .insert), (.delete, .delete), (.update, .update):
            return tableName.isEqualIgnoringCase(eventKind.tableName)
        default:
            return false
        }
    }
}

@available(*, unavailable, message: "an event is valid only during the call that receives it: copy() it")
extension DatabaseEvent: Sendable {}

extension DatabaseEvent {
    /// An event with the names SQLite gives (GRDB's internal initializer);
    /// a missing database name is "main".
    init(kind: Kind, rowID: Int64, databaseNameCString: UnsafePointer<CChar>?, tableNameCString: UnsafePointer<CChar>?) {
        self.kind = kind
        self.rowID = rowID
        if let databaseNameCString, let tableNameCString {
            names = .transient(database: databaseNameCString, table: tableNameCString)
        } else {
            names = .copied(database: databaseNameCString.map { String(cString: $0) } ?? "main",
                            table: tableNameCString.map { String(cString: $0) } ?? "")
        }
    }
}
