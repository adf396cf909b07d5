/// One `column = value` line per column, rows separated by an empty line,
/// as the `sqlite3` shell's `.mode line`. Column names are right-aligned.
///
/// ```swift
/// try db.dumpSQL("SELECT * FROM player", format: .line())
/// //    id = 1
/// //  name = Arthur
/// // score = 500
/// ```
public struct LineDumpFormat: DumpFormat {
    /// The text of NULL.
    public var nullValue: String

    /// A line format, with the text of NULL.
    public init(nullValue: String = "") {
        self.nullValue = nullValue
    }

    /// Prints the row, one line per column, then asks for an empty line.
    public mutating func writeRow(_ db: Database, statement: Statement, to stream: inout DumpStream) throws {
        let names = statement.columnNames
        let width = names.map(\.count).max() ?? 0
        for (name, value) in zip(names, statement.currentDatabaseValues()) {
            let padding = String(repeating: " ", count: width - name.count)
            stream.writeLine(padding + name + " = " + value.plainDumpText(nullValue: nullValue))
        }
        stream.margin()
    }

    /// Nothing follows the last row.
    public mutating func finalize(_ db: Database, statement: Statement, to stream: inout DumpStream) {}
}

extension DumpFormat where Self == LineDumpFormat {
    /// One `column = value` line per column (`sqlite3`'s line mode).
    public static func line(nullValue: String = "") -> Self {
        LineDumpFormat(nullValue: nullValue)
    }
}
