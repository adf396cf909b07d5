import Foundation

/// A JSON array of objects, one per row, keys in column order: numbers,
/// strings, `null`, and blobs as the encoder writes `Data` (Base64 by
/// default). Without `.prettyPrinted`, one row per line.
///
/// ```swift
/// try db.dumpSQL("SELECT * FROM player", format: .json())
/// // [{"id":1,"name":"Arthur","score":500},
/// // {"id":2,"name":"Barbara","score":1000}]
/// ```
public struct JSONDumpFormat: DumpFormat {
    /// The encoder of the values. Its `outputFormatting` decides the layout
    /// (`.prettyPrinted` or not); keys always keep the column order.
    public var encoder: JSONEncoder
    private var rowCount = 0

    /// The encoder ``json(encoder:)`` uses unless given another: slashes
    /// are not escaped.
    public static var defaultEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        return encoder
    }

    /// A JSON format that encodes values with `encoder`.
    public init(encoder: JSONEncoder = JSONDumpFormat.defaultEncoder) {
        self.encoder = encoder
    }

    private var isPretty: Bool { encoder.outputFormatting.contains(.prettyPrinted) }

    private func json(_ value: DatabaseValue) throws -> String {
        let data: Data
        switch value.storage {
        case .null: return "null"
        case .int64(let number): data = try encoder.encode(number)
        case .double(let number): data = try encoder.encode(number)
        case .string(let text): data = try encoder.encode(text)
        case .blob(let blob): data = try encoder.encode(blob)
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Prints the row as an object, after `[` or the previous row's comma.
    public mutating func writeRow(_ db: Database, statement: Statement, to stream: inout DumpStream) throws {
        let pairs = try zip(statement.columnNames, statement.currentDatabaseValues()).map { name, value in
            try json(DatabaseValue(storage: .string(name))) + ":" + json(value)
        }
        let object = isPretty
            ? "  {\n" + pairs.map { "    " + $0 }.joined(separator: ",\n") + "\n  }"
            : "{" + pairs.joined(separator: ",") + "}"
        let lead = rowCount == 0 ? (isPretty ? "[\n" : "[") : ",\n"
        stream.write(lead + object)
        rowCount += 1
    }

    /// Closes the array (`[]` when there were no rows). A statement without
    /// columns prints nothing.
    public mutating func finalize(_ db: Database, statement: Statement, to stream: inout DumpStream) {
        if rowCount > 0 {
            stream.writeLine(isPretty ? "\n]" : "]")
        } else if statement.columnCount > 0 {
            stream.writeLine("[]")
        }
    }
}

extension DumpFormat where Self == JSONDumpFormat {
    /// A JSON array of objects, one per row.
    public static func json(encoder: JSONEncoder = JSONDumpFormat.defaultEncoder) -> Self {
        JSONDumpFormat(encoder: encoder)
    }
}
