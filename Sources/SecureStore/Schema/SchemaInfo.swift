// What the introspection methods of `Database` return: the columns,
// primary key, indexes and foreign keys of a table, and foreign key
// violations. GRDB's types, with GRDB's names.

/// A column of a table, as `PRAGMA table_info` describes it.
///
/// ```swift
/// let columns = try db.columns(in: "player")
/// columns.map(\.name)   // ["id", "name", "score"]
/// ```
public struct ColumnInfo: FetchableRecord, Sendable, Hashable {
    /// The position of the column in the table, from zero.
    let cid: Int

    /// The column name.
    public let name: String

    /// The declared type, e.g. "TEXT"; empty when none was declared.
    public let type: String

    /// The declared type as a column type, or nil when none was declared.
    public var columnType: Database.ColumnType? {
        type.isEmpty ? nil : Database.ColumnType(rawValue: type)
    }

    /// True for a `NOT NULL` column.
    public let isNotNull: Bool

    /// The SQL of the default value, if any: `'O''Brien'`, `0`,
    /// `CURRENT_TIMESTAMP`.
    public let defaultValueSQL: String?

    /// The 1-based position of the column in the primary key, 0 when it is
    /// not part of it.
    public internal(set) var primaryKeyIndex: Int

    /// A column from a row of `PRAGMA table_info`.
    public init(row: Row) {
        cid = row["cid"]
        name = row["name"]
        type = row["type"] ?? ""
        isNotNull = row["notnull"]
        defaultValueSQL = row["dflt_value"]
        primaryKeyIndex = row["pk"]
    }
}

/// An index of a table.
public struct IndexInfo: Sendable, Hashable {
    /// How an index was created.
    public struct Origin: RawRepresentable, Hashable, DatabaseValueConvertible, Sendable {
        /// "c", "u" or "pk".
        public var rawValue: String

        /// An origin from its `PRAGMA index_list` code.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// `CREATE INDEX`.
        public static let createIndex = Origin(rawValue: "c")
        /// A `UNIQUE` constraint.
        public static let uniqueConstraint = Origin(rawValue: "u")
        /// A `PRIMARY KEY` constraint.
        public static let primaryKeyConstraint = Origin(rawValue: "pk")
    }

    /// The index name.
    public let name: String
    /// The indexed columns, in index order.
    public let columns: [String]
    /// True for a unique index.
    public let isUnique: Bool
    /// How the index was created.
    public let origin: Origin
}

/// A foreign key of a table.
public struct ForeignKeyInfo: Sendable, Hashable {
    /// The identifier of the foreign key in its table.
    public var id: Int
    /// The referenced table.
    public let destinationTable: String
    /// (origin column, destination column) pairs. Destination columns the
    /// schema leaves implicit are the destination's primary key.
    public let mapping: [(origin: String, destination: String)]
    /// The `ON DELETE` action: "NO ACTION", "CASCADE", "SET NULL"...
    public let onDelete: String
    /// The `ON UPDATE` action.
    public let onUpdate: String

    init(id: Int, destinationTable: String, mapping: [(origin: String, destination: String)],
         onDelete: String = "NO ACTION", onUpdate: String = "NO ACTION") {
        self.id = id
        self.destinationTable = destinationTable
        self.mapping = mapping
        self.onDelete = onDelete
        self.onUpdate = onUpdate
    }

    /// The columns of the origin table.
    public var originColumns: [String] { mapping.map(\.origin) }
    /// The columns of the destination table.
    public var destinationColumns: [String] { mapping.map(\.destination) }

    /// Equal identifiers, tables, columns and actions.
    public static func == (lhs: ForeignKeyInfo, rhs: ForeignKeyInfo) -> Bool {
        lhs.id == rhs.id && lhs.destinationTable == rhs.destinationTable
            && lhs.originColumns == rhs.originColumns && lhs.destinationColumns == rhs.destinationColumns
            && lhs.onDelete == rhs.onDelete && lhs.onUpdate == rhs.onUpdate
    }

    /// Hashes the table and columns.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(destinationTable)
        hasher.combine(originColumns)
    }
}

/// A row that breaks a foreign key, as `PRAGMA foreign_key_check` reports
/// it.
public struct ForeignKeyViolation: FetchableRecord, Sendable, CustomStringConvertible {
    /// The table of the row.
    public var originTable: String
    /// The rowid of the row, nil for a WITHOUT ROWID table.
    public var originRowID: Int64?
    /// The table the row refers to.
    public var destinationTable: String
    /// The identifier of the foreign key in the origin table.
    public var foreignKeyId: Int

    /// A violation from a row of `PRAGMA foreign_key_check`.
    public init(row: Row) {
        originTable = row[0]
        originRowID = row[1]
        destinationTable = row[2]
        foreignKeyId = row[3]
    }

    /// `FOREIGN KEY constraint violation - from book to author, in rowid 1`.
    public var description: String {
        "FOREIGN KEY constraint violation - from \(originTable) to \(destinationTable)"
            + (originRowID.map { ", in rowid \($0)" } ?? "")
    }

    /// The description, with the columns of the foreign key and the values
    /// of the row when they can be read. Shows the row's values: keep it
    /// out of logs when they may be secret.
    public func failureDescription(_ db: Database) throws -> String {
        let foreignKey = try db.foreignKeys(on: originTable).first { $0.id == foreignKeyId }
        var text = "FOREIGN KEY constraint violation - from \(originTable)"
        if let foreignKey {
            text += "(\(foreignKey.originColumns.joined(separator: ", "))) to \(destinationTable)(\(foreignKey.destinationColumns.joined(separator: ", ")))"
        } else {
            text += " to \(destinationTable)"
        }
        // A WITHOUT ROWID table has no row to show (SQLite 3.15.2 still
        // reports a number for it).
        if let originRowID, try db.primaryKey(originTable).tableHasRowID {
            let row = try Row.fetchOne(db, sql: "SELECT * FROM \(originTable.quotedDatabaseIdentifier) WHERE rowid = ?", arguments: [originRowID])
            text += row.map { ", in \($0)" } ?? ", in rowid \(originRowID)"
        }
        return text
    }

    /// An `SQLITE_CONSTRAINT_FOREIGNKEY` error that describes the violation.
    public func databaseError(_ db: Database) -> DatabaseError {
        DatabaseError(resultCode: .SQLITE_CONSTRAINT_FOREIGNKEY, message: (try? failureDescription(db)) ?? description)
    }
}

/// The primary key of a table.
public struct PrimaryKeyInfo: Sendable, Hashable {
    private enum Kind: Hashable {
        /// No declared primary key: the hidden rowid.
        case hiddenRowID
        /// An INTEGER PRIMARY KEY column: an alias of the rowid.
        case rowID(ColumnInfo)
        /// Any other key; WITHOUT ROWID tables have no rowid.
        case regular([ColumnInfo], tableHasRowID: Bool)
    }

    private let kind: Kind

    static let hiddenRowID = PrimaryKeyInfo(kind: .hiddenRowID)
    static func rowID(_ column: ColumnInfo) -> PrimaryKeyInfo { PrimaryKeyInfo(kind: .rowID(column)) }
    static func regular(_ columns: [ColumnInfo], tableHasRowID: Bool) -> PrimaryKeyInfo {
        PrimaryKeyInfo(kind: .regular(columns, tableHasRowID: tableHasRowID))
    }

    /// The columns, in key order; `["rowid"]` for a table without a
    /// declared primary key.
    public var columns: [String] {
        switch kind {
        case .hiddenRowID: return [Column.rowID.name]
        case .rowID(let column): return [column.name]
        case .regular(let columns, _): return columns.map(\.name)
        }
    }

    /// The columns, described; nil for the hidden rowid.
    var columnInfos: [ColumnInfo]? {
        switch kind {
        case .hiddenRowID: return nil
        case .rowID(let column): return [column]
        case .regular(let columns, _): return columns
        }
    }

    /// The INTEGER PRIMARY KEY column that is an alias of the rowid; nil
    /// for a hidden rowid, or another kind of key.
    public var rowIDColumn: String? {
        if case .rowID(let column) = kind { return column.name }
        return nil
    }

    /// True when the key is the rowid, hidden or aliased.
    public var isRowID: Bool {
        if case .regular = kind { return false }
        return true
    }

    /// False for WITHOUT ROWID tables.
    var tableHasRowID: Bool {
        if case .regular(_, let tableHasRowID) = kind { return tableHasRowID }
        return true
    }

    /// The one column that identifies a row fastest: the rowid alias, else
    /// the rowid, else the single primary key column.
    var fastPrimaryKeyColumn: String? {
        if let rowIDColumn { return rowIDColumn }
        if tableHasRowID { return Column.rowID.name }
        return columns.count == 1 ? columns[0] : nil
    }
}
