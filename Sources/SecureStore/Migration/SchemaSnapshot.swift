/// The schema of a database, normalized so that two databases with the
/// same schema compare equal however their SQL was written: what
/// ``DatabaseMigrator/verifyReversibility(in:seed:)`` compares before and
/// after a migration's down step, and what the schema fingerprint of the
/// migration history hashes.
///
/// ```swift
/// let before = try dbQueue.read { db in try db.schemaSnapshot() }
/// // ...
/// let after = try dbQueue.read { db in try db.schemaSnapshot() }
/// for line in after.differences(from: before) { print(line) }
/// // index player_on_name: missing
/// // table player: column score: INTEGER NOT NULL DEFAULT 0, was INTEGER
/// ```
///
/// SQLite's internal objects and the migration history are left out.
/// Outside string literals, white space runs are folded, identifier quotes
/// dropped and case folded: `ALTER TABLE ... RENAME` rewrites `CREATE TABLE
/// t` as `CREATE TABLE "t"`, and a table rebuilt by a rollback must match
/// the one it replaces.
public struct SchemaSnapshot: Equatable, Sendable, Codable {
    /// A table, index, view or trigger.
    public struct Object: Equatable, Sendable, Codable {
        /// "table", "index", "view" or "trigger".
        public var type: String
        /// The object's name, lowercased.
        public var name: String
        /// The table the object belongs to, lowercased.
        public var table: String
        /// Its normalized SQL (empty for automatic indexes).
        public var sql: String
        /// For tables: each column as `name TYPE [NOT NULL] [DEFAULT x] [PRIMARY KEY]`.
        public var columns: [String]?
    }

    /// The objects, sorted by type and name.
    public var objects: [Object]

    /// What changed from `other` to this schema, one readable line each:
    /// missing and new objects, and for a changed table the columns that
    /// differ. Empty when the schemas are equal.
    public func differences(from other: SchemaSnapshot) -> [String] {
        let old = Dictionary(other.objects.map { ("\($0.type) \($0.name)", $0) }, uniquingKeysWith: { first, _ in first })
        let new = Dictionary(objects.map { ("\($0.type) \($0.name)", $0) }, uniquingKeysWith: { first, _ in first })
        var lines: [String] = []
        for key in Set(old.keys).union(new.keys).sorted() {
            switch (old[key], new[key]) {
            case let (was?, now?) where was != now:
                lines += Self.changes(of: key, from: was, to: now)
            case (_?, nil):
                lines.append("\(key): missing")
            case (nil, _?):
                lines.append("\(key): new")
            default:
                break
            }
        }
        return lines
    }

    private static func changes(of key: String, from was: Object, to now: Object) -> [String] {
        guard let oldColumns = was.columns, let newColumns = now.columns, oldColumns != newColumns else {
            return ["\(key): was \(was.sql)", "\(key): now \(now.sql)"]
        }
        let name = { (column: String) in String(column.prefix { $0 != " " }) }
        let oldByName = Dictionary(oldColumns.map { (name($0), $0) }, uniquingKeysWith: { first, _ in first })
        let newByName = Dictionary(newColumns.map { (name($0), $0) }, uniquingKeysWith: { first, _ in first })
        var lines: [String] = []
        for column in oldColumns where newByName[name(column)] == nil { lines.append("\(key): column \(name(column)): missing") }
        for column in newColumns {
            switch oldByName[name(column)] {
            case nil: lines.append("\(key): column \(name(column)): new, \(column)")
            case let old? where old != column: lines.append("\(key): column \(column), was \(old)")
            default: break
            }
        }
        if lines.isEmpty { lines.append("\(key): column order or constraints: was \(was.sql), now \(now.sql)") }
        return lines
    }
}

extension Database {
    /// The normalized schema of the main database; see ``SchemaSnapshot``.
    public func schemaSnapshot() throws -> SchemaSnapshot {
        let rows = try Row.fetchAll(self, sql: """
            SELECT type, name, tbl_name, sql FROM sqlite_master
            WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
              AND tbl_name NOT IN (\(MigrationHistory.internalTableNames.map { "'\($0)'" }.joined(separator: ", ")))
            ORDER BY type, name
            """)
        return SchemaSnapshot(objects: try rows.map { row in
            let type: String = row["type"]
            let name: String = row["name"]
            return SchemaSnapshot.Object(
                type: type, name: name.lowercased(), table: (row["tbl_name"] as String).lowercased(),
                sql: (row["sql"] as String?).map(Self.normalize) ?? "",
                columns: type == "table" ? try columns(in: name).map(Self.describe) : nil)
        })
    }

    private static func describe(_ column: ColumnInfo) -> String {
        var text = column.name.lowercased()
        if !column.type.isEmpty { text += " " + column.type.uppercased() }
        if column.isNotNull { text += " NOT NULL" }
        if let value = column.defaultValueSQL { text += " DEFAULT " + value }
        if column.primaryKeyIndex > 0 { text += " PRIMARY KEY" }
        return text
    }
}
