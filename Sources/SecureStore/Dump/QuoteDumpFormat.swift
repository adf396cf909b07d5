import Foundation

/// Values as SQL literals separated by commas, one row per line, as the
/// `sqlite3` shell's `.mode quote`: `'text'`, `X'0102'`, `NULL`.
///
/// ```swift
/// try db.dumpSQL("SELECT * FROM player", format: .quote())
/// // 1,'Arthur',500
/// ```
public struct QuoteDumpFormat: DumpFormat {
    private var rows: SeparatedValues

    /// A quote format: with a header line of quoted column names or not,
    /// and the separator between values.
    public init(header: Bool = false, separator: String = ",") {
        rows = SeparatedValues(header: header, separator: separator, headerText: Self.quoted) { value in
            switch value.storage {
            case .null: return "NULL"
            case .int64(let number): return String(number)
            case .double(let number): return String(number)
            case .string(let text): return Self.quoted(text)
            case .blob(let data): return "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
            }
        }
    }

    private static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// Prints the row: its values as SQL literals.
    public mutating func writeRow(_ db: Database, statement: Statement, to stream: inout DumpStream) throws {
        rows.writeRow(statement, to: &stream)
    }

    /// Nothing follows the last row.
    public mutating func finalize(_ db: Database, statement: Statement, to stream: inout DumpStream) {}
}

extension DumpFormat where Self == QuoteDumpFormat {
    /// Values as SQL literals separated by commas (`sqlite3`'s quote mode).
    public static func quote(header: Bool = false, separator: String = ",") -> Self {
        QuoteDumpFormat(header: header, separator: separator)
    }
}
