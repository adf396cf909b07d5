/// The columns and options of an ``FTS5`` table, set in the closure of
/// ``Database/create(virtualTable:options:using:_:)``.
///
/// ```swift
/// try db.create(virtualTable: "note_ft", using: FTS5()) { t in
///     t.tokenizer = .unicode61(diacritics: .remove)
///     t.prefixes = [2, 3]
///     t.column("title")
///     t.column("uuid").notIndexed()
/// }
/// ```
///
/// ## Topics
///
/// ### Columns
///
/// - ``column(_:)``
///
/// ### Content
///
/// - ``synchronize(withTable:)``
/// - ``content``
/// - ``contentRowID``
///
/// ### Options
///
/// - ``tokenizer``
/// - ``prefixes``
/// - ``columnSize``
/// - ``detail``
public final class FTS5TableDefinition {
    let configuration: VirtualTableConfiguration
    private(set) var columns: [FTS5ColumnDefinition] = []
    private(set) var contentTable: String?
    private var rawContent: String?
    private var rawContentRowID: String?

    /// The tokenizer (`tokenize=`); SQLite's `unicode61` when nil.
    public var tokenizer: FTS5TokenizerDescriptor?

    /// `content=`: a content table or view, or "" for a contentless table.
    /// Setting it ends a ``synchronize(withTable:)``.
    public var content: String? {
        get { contentTable ?? rawContent }
        set {
            contentTable = nil
            rawContent = newValue
        }
    }

    /// `content_rowid=`: the content table's rowid column; with
    /// ``synchronize(withTable:)``, its integer primary key.
    public var contentRowID: String? {
        get { contentTable == nil ? rawContentRowID : nil }
        set {
            contentTable = nil
            rawContentRowID = newValue
        }
    }

    /// `prefix=`: the prefix lengths to index, for fast `abc*` queries.
    public var prefixes: Set<Int>?

    /// `columnSize=`: 0 stores no column sizes (smaller, slower ranking).
    public var columnSize: Int?

    /// `detail=`: `full` (the default), `column` or `none`.
    public var detail: String?

    init(configuration: VirtualTableConfiguration) {
        self.configuration = configuration
    }

    /// Adds a column, indexed unless ``FTS5ColumnDefinition/notIndexed()``
    /// says otherwise (full-text columns have no type).
    @discardableResult
    public func column(_ name: String) -> FTS5ColumnDefinition {
        columns.append(FTS5ColumnDefinition(name: name))
        return columns[columns.endIndex - 1]
    }

    /// Makes the table an external-content index of `tableName`, built from
    /// its rows now and kept in step by triggers named `__<name>_ai`,
    /// `_ad` and `_au`.
    public func synchronize(withTable tableName: String) {
        contentTable = tableName
        rawContent = nil
        rawContentRowID = nil
    }
}

/// A column of an ``FTS5`` table.
///
/// ```swift
/// t.column("uuid").notIndexed()   // uuid UNINDEXED
/// ```
public final class FTS5ColumnDefinition {
    let name: String
    private(set) var isIndexed = true

    init(name: String) { self.name = name }

    /// Stored, not indexed: `UNINDEXED`.
    @discardableResult
    public func notIndexed() -> Self {
        isIndexed = false
        return self
    }
}
