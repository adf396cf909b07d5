import Foundation

/// A way of printing database rows: the formats of ``Database/dumpSQL(_:format:to:)``,
/// ``Database/dumpRequest(_:format:to:)``, ``Database/dumpTables(_:format:tableHeader:stableOrder:to:)``
/// and ``Database/dumpContent(format:to:)``.
///
/// The built-in formats follow the output modes of the `sqlite3` shell:
///
/// ```swift
/// try dbQueue.read { db in
///     try db.dumpSQL("SELECT * FROM player", format: .list(header: true))
///     // id|name|score
///     // 1|Arthur|500
/// }
/// ```
///
/// A format is a value: each statement is printed with a fresh copy of the
/// one given, so a format may keep state between the rows of a statement.
///
/// ## Topics
///
/// ### Built-in formats
///
/// - ``DebugDumpFormat``
/// - ``JSONDumpFormat``
/// - ``LineDumpFormat``
/// - ``ListDumpFormat``
/// - ``QuoteDumpFormat``
///
/// ### Writing a format
///
/// - ``writeRow(_:statement:to:)``
/// - ``finalize(_:statement:to:)``
/// - ``DumpStream``
public protocol DumpFormat {
    /// Prints the row the statement is on. Read its values with
    /// ``DatabaseValue/init(sqliteStatement:index:)`` and its column names
    /// with ``Statement/columnNames``.
    mutating func writeRow(_ db: Database, statement: Statement, to stream: inout DumpStream) throws

    /// Called once the statement has no more rows (also when it had none).
    mutating func finalize(_ db: Database, statement: Statement, to stream: inout DumpStream)
}

/// The text output of a dump: standard output, or a stream of yours.
///
/// ``margin()`` asks for an empty line before the next text, which keeps
/// blocks apart without a trailing empty line at the end of the dump.
public struct DumpStream {
    private var output: any TextOutputStream
    private var needsMargin = false

    /// A stream that writes to `output`, or to standard output when nil.
    public init(_ output: (any TextOutputStream)? = nil) {
        self.output = output ?? StandardOutputStream()
    }

    /// Writes an empty line before the next text that is not empty.
    public mutating func margin() {
        needsMargin = true
    }

    /// Writes `text`, after the empty line a ``margin()`` asked for.
    public mutating func write(_ text: String) {
        guard !text.isEmpty else { return }
        if needsMargin {
            output.write("\n")
            needsMargin = false
        }
        output.write(text)
    }

    /// Writes `text` and a line feed.
    mutating func writeLine(_ text: String) {
        write(text + "\n")
    }
}

/// Standard output, as a text stream.
private struct StandardOutputStream: TextOutputStream {
    func write(_ string: String) {
        FileHandle.standardOutput.write(Data(string.utf8))
    }
}

/// When ``Database/dumpTables(_:format:tableHeader:stableOrder:to:)``
/// prints the name of each table above its rows.
public enum DumpTableHeaderOptions: Sendable {
    /// Names are printed when there are several tables.
    case automatic
    /// Names are always printed.
    case always
}

extension Statement {
    /// The values of the row the statement is on, for dump formats.
    func currentDatabaseValues() -> [DatabaseValue] {
        (0..<CInt(columnCount)).map { DatabaseValue(sqliteStatement: sqliteStatement, index: $0) }
    }
}
