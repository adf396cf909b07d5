import Foundation
internal import CSQLCipher

extension SQLText {
    /// The statements of an SQL script, split where SQLite's own
    /// `sqlite3_complete` says a statement ends (a trigger body's
    /// semicolons stay inside it), white space and comments dropped.
    static func statements(in sql: String) -> [String] {
        numberedStatements(in: sql).map(\.text)
    }

    /// The statements of an SQL script with the 1-based line where each
    /// starts (its first line that is not white space or comment).
    static func numberedStatements(in sql: String) -> [(line: Int, text: String)] {
        var statements: [(line: Int, text: String)] = []
        var current = ""
        var firstLine = 1
        func flush() {
            guard containsStatement(current) else { return }
            let text = droppingLeadingComments(current)
            let skipped = current.utf8.count - text.utf8.count
            defer { statements[statements.count - 1].text = text.trimmingCharacters(in: .whitespacesAndNewlines) }
            let skippedLines = current.utf8.prefix(skipped).filter { $0 == UInt8(ascii: "\n") }.count
            statements.append((firstLine + skippedLines, text))
        }
        for (index, line) in sql.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if current.isEmpty { firstLine = index + 1 }
            current += line + "\n"
            if sqlite3_complete(current) != 0 {
                flush()
                current = ""
            }
        }
        flush()
        return statements
    }
}
