import Foundation

/// The default format: values separated by `|`, one row per line, with
/// blobs shown so that they can be told apart: valid UTF-8 as text, 16
/// bytes as a UUID, anything else as `X'…'`.
///
/// ```swift
/// try db.dumpRequest(Player.orderByPrimaryKey())
/// // 1|Arthur|500
/// // 2|Barbara|1000
/// ```
public struct DebugDumpFormat: DumpFormat {
    private var rows: SeparatedValues

    /// A debug format: with a header line of column names or not, the
    /// separator between values, and the text of NULL.
    public init(header: Bool = false, separator: String = "|", nullValue: String = "") {
        rows = SeparatedValues(header: header, separator: separator) { value in
            guard case .blob(let data) = value.storage else { return value.plainDumpText(nullValue: nullValue) }
            return Self.text(ofBlob: data)
        }
    }

    static func text(ofBlob data: Data) -> String {
        if let text = String(data: data, encoding: .utf8) { return text }
        if data.count == 16 {
            let uuid = data.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }
            return UUID(uuid: uuid).uuidString
        }
        return "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
    }

    /// Prints the row: its values joined by the separator.
    public mutating func writeRow(_ db: Database, statement: Statement, to stream: inout DumpStream) throws {
        rows.writeRow(statement, to: &stream)
    }

    /// Nothing follows the last row.
    public mutating func finalize(_ db: Database, statement: Statement, to stream: inout DumpStream) {}
}

extension DumpFormat where Self == DebugDumpFormat {
    /// Values separated by `|`, blobs as text, UUID or hex: the default.
    public static func debug(header: Bool = false, separator: String = "|", nullValue: String = "") -> Self {
        DebugDumpFormat(header: header, separator: separator, nullValue: nullValue)
    }
}
