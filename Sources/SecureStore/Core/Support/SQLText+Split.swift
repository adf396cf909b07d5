internal import CSQLCipher

extension SQLText {
    /// The statements of an SQL script, split where SQLite's own
    /// `sqlite3_complete` says a statement ends (a trigger body's
    /// semicolons stay inside it), white space and comments dropped.
    static func statements(in sql: String) -> [String] {
        var statements: [String] = []
        var current = ""
        for line in sql.split(separator: "\n", omittingEmptySubsequences: false) {
            current += line + "\n"
            if sqlite3_complete(current) != 0 {
                if containsStatement(current) { statements.append(droppingLeadingComments(current)) }
                current = ""
            }
        }
        if containsStatement(current) { statements.append(droppingLeadingComments(current)) }
        return statements
    }
}
