/// Values separated by `|`, one row per line, as the `sqlite3` shell's
/// `.mode list`. Blobs are printed as UTF-8 text.
///
/// ```swift
/// try db.dumpSQL("SELECT * FROM player", format: .list(header: true))
/// // id|name|score
/// // 1|Arthur|500
/// ```
public struct ListDumpFormat: DumpFormat {
    private var rows: SeparatedValues

    /// A list format: with a header line of column names or not, the
    /// separator between values, and the text of NULL.
    public init(header: Bool = false, separator: String = "|", nullValue: String = "") {
        rows = SeparatedValues(header: header, separator: separator) { $0.plainDumpText(nullValue: nullValue) }
    }

    /// Prints the row: its values joined by the separator.
    public mutating func writeRow(_ db: Database, statement: Statement, to stream: inout DumpStream) throws {
        rows.writeRow(statement, to: &stream)
    }

    /// Nothing follows the last row.
    public mutating func finalize(_ db: Database, statement: Statement, to stream: inout DumpStream) {}
}

extension DumpFormat where Self == ListDumpFormat {
    /// Values separated by `|`, one row per line (`sqlite3`'s list mode).
    public static func list(header: Bool = false, separator: String = "|", nullValue: String = "") -> Self {
        ListDumpFormat(header: header, separator: separator, nullValue: nullValue)
    }
}
