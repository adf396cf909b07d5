/// SQLite's FTS5 full-text module, for ``Database/create(virtualTable:options:using:_:)``.
///
/// FTS5 ranks matches (`ORDER BY rank`), supports prefix indexes, column
/// filters in patterns and external content tables. It needs a SQLite
/// built with FTS5: SQLCipher 4 as Debian 13 and Ubuntu 24.04 ship it has
/// it; Debian 12's SQLCipher 3.4.1 does not, and creating an FTS5 table
/// or pattern there throws an error that says so.
///
/// ```swift
/// try db.create(virtualTable: "book_ft", using: FTS5()) { t in
///     t.synchronize(withTable: "book")   // kept in step by triggers
///     t.tokenizer = .porter()
///     t.column("title")
///     t.column("body")
/// }
/// let pattern = FTS5Pattern(matchingAllPrefixesIn: "secur stor")
/// let rows = try Row.fetchAll(db, sql: "SELECT * FROM book_ft WHERE book_ft MATCH ? ORDER BY rank",
///                             arguments: [pattern])
/// ```
///
/// ## Topics
///
/// ### Defining a table
///
/// - ``FTS5TableDefinition``
/// - ``FTS5ColumnDefinition``
/// - ``FTS5TokenizerDescriptor``
/// - ``Diacritics``
///
/// ### Searching
///
/// - ``FTS5Pattern``
/// - ``isAvailable(in:)``
public struct FTS5: VirtualTableModule {
    /// What the `unicode61` tokenizer does with diacritics.
    public enum Diacritics: Sendable {
        /// Keeps them: "é" and "e" differ (`remove_diacritics 0`).
        case keep
        /// Removes them from Latin characters that carry a single
        /// diacritic (SQLite's default, `remove_diacritics 1`).
        case removeLegacy
        /// Removes them all (`remove_diacritics 2`, SQLite 3.27 or later).
        case remove
    }

    /// The FTS5 module.
    public init() {}

    /// `fts5`.
    public var moduleName: String { "fts5" }

    /// True when the SQLite under this connection was built with FTS5.
    public static func isAvailable(in db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT sqlite_compileoption_used('ENABLE_FTS5')") ?? false
    }

    /// Throws the error that names what FTS5 needs when the library lacks it.
    static func require(in db: Database) throws {
        guard try !isAvailable(in: db) else { return }
        throw DatabaseError(resultCode: .SQLITE_MISUSE, message: """
            FTS5 needs a SQLite built with FTS5 (SQLITE_ENABLE_FTS5, as in SQLCipher 4 on Debian 13 or \
            Ubuntu 24.04); this SQLCipher runs SQLite \(Database.sqliteLibVersion) without it
            """)
    }

    /// A new, empty definition.
    public func makeTableDefinition(configuration: VirtualTableConfiguration) -> FTS5TableDefinition {
        FTS5TableDefinition(configuration: configuration)
    }

    /// The columns, then the options, in the order of GRDB's SQL.
    public func moduleArguments(for definition: FTS5TableDefinition, in db: Database) throws -> [String] {
        try FTS5.require(in: db)
        guard !definition.columns.isEmpty else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "an FTS5 table needs at least one column")
        }
        var arguments = definition.columns.map { $0.isIndexed ? $0.name : $0.name + " UNINDEXED" }
        func quoted(_ text: String) throws -> String { try text.sqlExpression.quotedSQL(db) }
        if let tokenizer = definition.tokenizer {
            let components = try tokenizer.components.map(quoted).joined(separator: " ")
            arguments.append("tokenize=" + (try quoted(components)))
        }
        var content = definition.content
        var contentRowID = definition.contentRowID
        if let table = definition.contentTable {
            content = table
            contentRowID = try db.primaryKey(table).rowIDColumn
        }
        if let content { arguments.append("content=" + (try quoted(content))) }
        if let contentRowID { arguments.append("content_rowid=" + (try quoted(contentRowID))) }
        if let prefixes = definition.prefixes {
            arguments.append("prefix=" + (try quoted(prefixes.sorted().map(String.init).joined(separator: " "))))
        }
        if let columnSize = definition.columnSize { arguments.append("columnSize=\(columnSize)") }
        if let detail = definition.detail { arguments.append("detail=\(detail)") }
        return arguments
    }

    /// With ``FTS5TableDefinition/synchronize(withTable:)``: creates the
    /// triggers that keep the index in step with its content table, then
    /// builds the index from the rows already there.
    public func database(_ db: Database, didCreate tableName: String, using definition: FTS5TableDefinition) throws {
        guard let contentTable = definition.contentTable else { return }
        guard !definition.configuration.temporary else {
            // SQLite cannot rebuild a temporary external-content index.
            throw DatabaseError(resultCode: .SQLITE_MISUSE,
                                message: "a temporary FTS5 table cannot be synchronized with a content table")
        }
        let rowID = try db.primaryKey(contentTable).rowIDColumn ?? "rowid"
        let table = tableName.quotedDatabaseIdentifier
        let columns = definition.columns.map(\.name)
        let ftsColumns = (["rowid"] + columns).map(\.quotedDatabaseIdentifier).joined(separator: ", ")
        func values(_ row: String) -> String {
            ([rowID] + columns).map { row + "." + $0.quotedDatabaseIdentifier }.joined(separator: ", ")
        }
        let insert = "INSERT INTO \(table)(\(ftsColumns)) VALUES (\(values("new")));"
        let delete = "INSERT INTO \(table)(\(table), \(ftsColumns)) VALUES('delete', \(values("old")));"
        let ifNotExists = definition.configuration.ifNotExists ? "IF NOT EXISTS " : ""
        let source = contentTable.quotedDatabaseIdentifier
        let triggers = [("ai", "INSERT", [insert]), ("ad", "DELETE", [delete]), ("au", "UPDATE", [delete, insert])]
        let sql = triggers.map { suffix, event, body in
            let name = "__\(tableName)_\(suffix)".quotedDatabaseIdentifier
            let statements = body.map { "    " + $0 + "\n" }.joined()
            return "CREATE TRIGGER \(ifNotExists)\(name) AFTER \(event) ON \(source) BEGIN\n\(statements)END;"
        }
        try db.execute(sql: sql.joined(separator: "\n"))
        try db.execute(sql: "INSERT INTO \(table)(\(table)) VALUES('rebuild')")
    }

    /// The tokens of `string` for a pattern: the `ascii` tokenizer's, read
    /// back in order through an `fts5vocab` table of a private in-memory
    /// database.
    static func tokenize(query string: String) throws -> [String] {
        try DatabaseQueue().inDatabase { db in
            try db.create(virtualTable: "document", using: FTS5()) { t in
                t.tokenizer = .ascii()
                t.column("content")
            }
            try db.execute(sql: "CREATE VIRTUAL TABLE temp.vocabulary USING fts5vocab(main, document, instance)")
            try db.execute(sql: "INSERT INTO document(content) VALUES (?)", arguments: [string])
            return try String.fetchAll(db, sql: "SELECT term FROM temp.vocabulary ORDER BY \"offset\"")
        }
    }
}

extension Column {
    /// The `rank` column of an FTS5 table: `ORDER BY rank` lists the best
    /// matches first.
    public static let rank = Column("rank")
}

extension Database {
    /// Drops the triggers that ``FTS5TableDefinition/synchronize(withTable:)``
    /// created for the full-text table `tableName`.
    public func dropFTS5SynchronizationTriggers(forTable tableName: String) throws {
        for suffix in ["ai", "ad", "au"] {
            try execute(sql: "DROP TRIGGER IF EXISTS " + "__\(tableName)_\(suffix)".quotedDatabaseIdentifier)
        }
    }
}
