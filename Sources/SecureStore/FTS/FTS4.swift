/// SQLite's FTS4 full-text module, for ``Database/create(virtualTable:options:using:_:)``.
///
/// ```swift
/// try db.create(virtualTable: "book_ft", using: FTS4()) { t in
///     t.synchronize(withTable: "book")   // kept in step by triggers
///     t.tokenizer = .porter
///     t.column("title")
///     t.column("body")
/// }
/// let books = try Row.fetchAll(db, sql: "SELECT * FROM book_ft WHERE book_ft MATCH ?", arguments: ["sqlite"])
/// ```
public struct FTS4: VirtualTableModule {
    /// The FTS4 module.
    public init() {}

    /// `fts4`.
    public var moduleName: String { "fts4" }

    /// A new, empty definition.
    public func makeTableDefinition(configuration: VirtualTableConfiguration) -> FTS4TableDefinition {
        FTS4TableDefinition(configuration: configuration)
    }

    /// The columns, then the options, as SQLite's documentation orders them.
    public func moduleArguments(for definition: FTS4TableDefinition, in db: Database) throws -> [String] {
        var arguments: [String] = []
        for column in definition.columns {
            if column.isLanguageId {
                arguments.append("languageid=" + column.name.quotedDatabaseIdentifier)
            } else {
                arguments.append(column.name)
                if column.isNotIndexed { arguments.append("notindexed=" + column.name) }
            }
        }
        if let tokenizer = definition.tokenizer {
            arguments.append("tokenize=" + tokenizer.components.joined(separator: " "))
        }
        let content = definition.contentTable ?? definition.content
        let options: [(String, String?)] = [
            ("content", content), ("compress", definition.compress), ("uncompress", definition.uncompress),
            ("matchinfo", definition.matchinfo),
            ("prefix", definition.prefixes.map { $0.sorted().map(String.init).joined(separator: ",") }),
        ]
        for case let (name, value?) in options { arguments.append(name + "=" + value.quotedDatabaseIdentifier) }
        return arguments
    }

    /// With ``FTS4TableDefinition/synchronize(withTable:)``: fills the
    /// table from its content table and creates the triggers that keep it
    /// in step.
    public func database(_ db: Database, didCreate tableName: String, using definition: FTS4TableDefinition) throws {
        guard let content = definition.contentTable else { return }
        let rowID = try db.primaryKey(content).rowIDColumn ?? "rowid"
        let columns = definition.columns.map(\.name)
        let ifNotExists = definition.configuration.ifNotExists ? "IF NOT EXISTS " : ""
        let table = tableName.quotedDatabaseIdentifier
        let source = content.quotedDatabaseIdentifier
        let insertedColumns = (["docid"] + columns).map(\.quotedDatabaseIdentifier).joined(separator: ", ")
        let newValues = ([rowID] + columns).map { "new." + $0.quotedDatabaseIdentifier }.joined(separator: ", ")
        let delete = "DELETE FROM \(table) WHERE docid=old.\(rowID.quotedDatabaseIdentifier);"
        let insert = "INSERT INTO \(table)(\(insertedColumns)) VALUES(\(newValues));"
        for (suffix, event, body) in [("bu", "BEFORE UPDATE", delete), ("bd", "BEFORE DELETE", delete),
                                      ("au", "AFTER UPDATE", insert), ("ai", "AFTER INSERT", insert)] {
            let trigger = "__\(tableName)_\(suffix)".quotedDatabaseIdentifier
            try db.execute(sql: "CREATE TRIGGER \(ifNotExists)\(trigger) \(event) ON \(source) BEGIN\n    \(body)\nEND")
        }
        try db.execute(sql: "INSERT INTO \(table)(\(table)) VALUES('rebuild')")
    }
}

/// The columns and options of an ``FTS4`` table, set in the closure of
/// ``Database/create(virtualTable:options:using:_:)``.
public final class FTS4TableDefinition {
    let configuration: VirtualTableConfiguration
    var columns: [FTS4ColumnDefinition] = []
    var contentTable: String?

    /// The tokenizer (`tokenize=`); SQLite's `simple` when nil.
    public var tokenizer: FTS3TokenizerDescriptor?
    /// `content=`: the name of a content table, or "" for a contentless table.
    public var content: String?
    /// `compress=`: a function that compresses stored text.
    public var compress: String?
    /// `uncompress=`: the function that undoes `compress`.
    public var uncompress: String?
    /// `matchinfo=`: `fts3` for FTS3-compatible matchinfo data.
    public var matchinfo: String?
    /// `prefix=`: the prefix lengths to index.
    public var prefixes: Set<Int>?

    init(configuration: VirtualTableConfiguration) {
        self.configuration = configuration
    }

    /// Adds a column (full-text columns have no type).
    @discardableResult
    public func column(_ name: String) -> FTS4ColumnDefinition {
        let column = FTS4ColumnDefinition(name: name)
        columns.append(column)
        return column
    }

    /// Makes the table an external-content table of `table`, filled from
    /// it now and kept in step with it by triggers named `__<name>_ai`,
    /// `_au`, `_bd` and `_bu`.
    public func synchronize(withTable table: String) {
        contentTable = table
    }
}

/// A column of an ``FTS4`` table.
public final class FTS4ColumnDefinition {
    let name: String
    var isNotIndexed = false
    var isLanguageId = false

    init(name: String) { self.name = name }

    /// Stored, not indexed: `notindexed=column`.
    @discardableResult
    public func notIndexed() -> Self {
        isNotIndexed = true
        return self
    }

    /// The column that holds each row's language id: `languageid="column"`.
    @discardableResult
    public func asLanguageId() -> Self {
        isLanguageId = true
        return self
    }
}

extension Database {
    /// Drops the triggers that ``FTS4TableDefinition/synchronize(withTable:)``
    /// created for the full-text table `tableName`.
    public func dropFTS4SynchronizationTriggers(forTable tableName: String) throws {
        for suffix in ["ai", "au", "bd", "bu"] {
            try execute(sql: "DROP TRIGGER IF EXISTS " + "__\(tableName)_\(suffix)".quotedDatabaseIdentifier)
        }
    }
}
