/// SQLite's FTS3 full-text module, for
/// ``Database/create(virtualTable:options:using:_:)``, and what the FTS3 and
/// FTS4 modules share: the tokenizers' options and tokenization.
///
/// ```swift
/// try db.create(virtualTable: "note", using: FTS3()) { t in
///     t.tokenizer = .porter
///     t.column("title")
///     t.column("body")
/// }
/// let notes = try Row.fetchAll(db, sql: "SELECT * FROM note WHERE note MATCH ?", arguments: ["secret"])
/// let tokens = try FTS3.tokenize("Hello, World!")   // ["hello", "world"]
/// ```
///
/// ## Topics
///
/// ### Searching
///
/// - ``FTS3Pattern``
/// - ``TableRecord/matching(_:)-(FTS3Pattern?)``
public struct FTS3: VirtualTableModule {
    /// What the `unicode61` tokenizer does with diacritics.
    public enum Diacritics: Sendable {
        /// Keeps them: "é" and "e" differ.
        case keep
        /// Removes them from Latin characters that have one diacritic
        /// (SQLite's default).
        case removeLegacy
        /// Removes them all (`remove_diacritics=2`, SQLite 3.27 or later:
        /// SQLite 3.15.2 refuses the table).
        case remove
    }

    /// The FTS3 module.
    public init() {}

    /// `fts3`.
    public var moduleName: String { "fts3" }

    /// A new, empty definition.
    public func makeTableDefinition(configuration: VirtualTableConfiguration) -> FTS3TableDefinition {
        FTS3TableDefinition()
    }

    /// The columns, then the tokenizer.
    public func moduleArguments(for definition: FTS3TableDefinition, in db: Database) throws -> [String] {
        var arguments = definition.columns
        if let tokenizer = definition.tokenizer {
            arguments.append("tokenize=" + tokenizer.components.joined(separator: " "))
        }
        return arguments
    }

    /// Nothing to do once the table exists.
    public func database(_ db: Database, didCreate tableName: String, using definition: FTS3TableDefinition) throws {}

    /// The tokens of `string`, as `tokenizer` splits and folds them (SQLite's
    /// `fts3tokenize` table, in a private in-memory database).
    public static func tokenize(_ string: String, withTokenizer tokenizer: FTS3TokenizerDescriptor = .simple) throws -> [String] {
        try DatabaseQueue().inDatabase { db in
            try db.execute(sql: "CREATE VIRTUAL TABLE tokens USING fts3tokenize(\(tokenizer.components.joined(separator: ", ")))")
            return try String.fetchAll(db, sql: "SELECT token FROM tokens WHERE input = ? ORDER BY position", arguments: [string])
        }
    }
}

/// The definition of an ``FTS3`` table: its columns and tokenizer.
///
/// ```swift
/// try db.create(virtualTable: "note", using: FTS3()) { t in
///     t.column("body")
/// }
/// ```
public final class FTS3TableDefinition {
    fileprivate(set) var columns: [String] = []

    /// The tokenizer; nil for SQLite's default (`simple`).
    public var tokenizer: FTS3TokenizerDescriptor?

    init() {}

    /// Adds a column (FTS3 columns have no type or constraint).
    public func column(_ name: String) {
        columns.append(name)
    }
}
