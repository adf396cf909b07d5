/// What the debug, list and quote formats share: an optional header line
/// of column names, then one line per row, values joined by a separator.
struct SeparatedValues {
    var header: Bool
    var separator: String
    /// How a column name is shown in the header.
    var headerText: (String) -> String = { $0 }
    /// How a value is shown.
    var valueText: (DatabaseValue) -> String

    private var wroteHeader = false

    init(header: Bool, separator: String, headerText: @escaping (String) -> String = { $0 },
         valueText: @escaping (DatabaseValue) -> String) {
        self.header = header
        self.separator = separator
        self.headerText = headerText
        self.valueText = valueText
    }

    mutating func writeRow(_ statement: Statement, to stream: inout DumpStream) {
        if header && !wroteHeader {
            stream.writeLine(statement.columnNames.map(headerText).joined(separator: separator))
            wroteHeader = true
        }
        stream.writeLine(statement.currentDatabaseValues().map(valueText).joined(separator: separator))
    }
}

extension DatabaseValue {
    /// The text of a value as the `sqlite3` shell's list mode shows it:
    /// blobs decoded as UTF-8, invalid bytes replaced.
    func plainDumpText(nullValue: String) -> String {
        switch storage {
        case .null: return nullValue
        case .int64(let value): return String(value)
        case .double(let value): return String(value)
        case .string(let value): return value
        case .blob(let data): return String(decoding: data, as: UTF8.self)
        }
    }
}
