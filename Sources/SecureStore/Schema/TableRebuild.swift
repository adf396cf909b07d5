/// SQLite's documented procedure for schema changes ALTER TABLE cannot do
/// (https://www.sqlite.org/lang_altertable.html, "other kinds of table
/// schema changes"): create the new table, copy the rows, drop the old
/// table, rename the new one, then recreate indexes and triggers.
///
/// The new table's SQL is the old one with the column renamed or its
/// definition removed, edited token by token (identifiers, string literals
/// and punctuation), so CHECK constraints, collations, defaults and
/// AUTOINCREMENT survive.
struct TableRebuild {
    enum Change {
        case rename(String, String)
        case drop(String)
    }

    let db: Database
    let table: String

    func run(_ change: Change) throws {
        guard let tableSQL = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE", arguments: [table]) else {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "no such table: \(table)")
        }
        let columns = try db.columns(in: table).map(\.name)
        let dependents = try Row.fetchAll(db, sql: """
            SELECT type, name, sql FROM sqlite_master
            WHERE tbl_name = ? COLLATE NOCASE AND type IN ('index', 'trigger') AND sql IS NOT NULL
            """, arguments: [table])
        try checkForeignKeysAllowRebuild()

        let temporary = "\(table)_securestore_rebuild"
        let isColumn = { (name: String, other: String) in name.caseInsensitiveCompare(other) == .orderedSame }
        var newSQL: String
        var dependentSQL = dependents.map { $0["sql"] as String }
        // Columns read from the old table, and where they go in the new one.
        let sourceColumns: [String]
        let targetColumns: [String]
        switch change {
        case let .rename(old, new):
            guard columns.contains(where: { isColumn($0, old) }) else {
                throw DatabaseError(resultCode: .SQLITE_ERROR, message: "no such column: \(old) in table \(table)")
            }
            newSQL = SQLTokens.renamingIdentifier(old, to: new, in: tableSQL)
            dependentSQL = dependentSQL.map { SQLTokens.renamingIdentifier(old, to: new, in: $0) }
            sourceColumns = columns
            targetColumns = columns.map { isColumn($0, old) ? new : $0 }
        case .drop(let column):
            guard columns.contains(where: { isColumn($0, column) }) else {
                throw DatabaseError(resultCode: .SQLITE_ERROR, message: "no such column: \(column) in table \(table)")
            }
            for dependent in dependents where SQLTokens.mentions(column, in: dependent["sql"]) {
                throw DatabaseError(resultCode: .SQLITE_ERROR,
                                    message: "cannot drop column \(column) of \(table): \(dependent["type"] as String) \(dependent["name"] as String) uses it")
            }
            newSQL = try SQLTokens.removingColumn(column, from: tableSQL, table: table)
            sourceColumns = columns.filter { !isColumn($0, column) }
            targetColumns = sourceColumns
        }
        newSQL = SQLTokens.renamingTable(in: newSQL, to: temporary)

        try db.execute(sql: newSQL)
        try db.execute(sql: """
            INSERT INTO \(temporary.quotedDatabaseIdentifier) (\(Self.list(targetColumns)))
            SELECT \(Self.list(sourceColumns)) FROM \(table.quotedDatabaseIdentifier)
            """)
        try db.execute(sql: "DROP TABLE \(table.quotedDatabaseIdentifier)")
        try db.execute(sql: "ALTER TABLE \(temporary.quotedDatabaseIdentifier) RENAME TO \(table.quotedDatabaseIdentifier)")
        for sql in dependentSQL { try db.execute(sql: sql) }
        if try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") == true,
           let violation = try Row.fetchOne(db, sql: "PRAGMA foreign_key_check(\(table.quotedDatabaseIdentifier))") {
            throw DatabaseError(resultCode: .SQLITE_CONSTRAINT_FOREIGNKEY,
                                message: "FOREIGN KEY constraint violation after rebuilding \(table): table \(violation[0] as String)")
        }
    }

    /// Dropping the old table with foreign keys on would run ON DELETE
    /// actions (CASCADE!) on the tables that reference it. Foreign keys can
    /// only be switched off outside a transaction; migrations do that.
    private func checkForeignKeysAllowRebuild() throws {
        guard try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") == true else { return }
        let referencing = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'").filter { other in
            let keys = try Row.fetchAll(db, sql: "PRAGMA foreign_key_list(\(other.quotedDatabaseIdentifier))")
            return keys.contains { ($0["table"] as String).caseInsensitiveCompare(table) == .orderedSame }
                && other.caseInsensitiveCompare(table) != .orderedSame
        }
        if let first = referencing.first {
            throw DatabaseError(resultCode: .SQLITE_MISUSE,
                                message: "cannot rebuild \(table) while foreign keys are on: table \(first) references it. Run the change in a migration (foreign keys are off there), or with foreign keys disabled")
        }
    }
}

/// Token-level edits of CREATE statements.
enum SQLTokens {
    enum Token {
        case identifier(String, raw: String)
        case other(String)
    }

    /// Splits SQL into identifiers (bare or quoted) and everything else
    /// (string literals, numbers, punctuation, white space).
    static func tokenize(_ sql: String) -> [Token] {
        var tokens: [Token] = []
        let characters = Array(sql)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == "\"" || character == "`" || character == "[" {
                let close: Character = character == "[" ? "]" : character
                var end = index + 1
                var name = ""
                while end < characters.count {
                    if characters[end] == close {
                        if close != "]", end + 1 < characters.count, characters[end + 1] == close {
                            name.append(close)
                            end += 2
                            continue
                        }
                        break
                    }
                    name.append(characters[end])
                    end += 1
                }
                tokens.append(.identifier(name, raw: String(characters[index...min(end, characters.count - 1)])))
                index = end + 1
            } else if character == "'" {
                var end = index + 1
                while end < characters.count {
                    if characters[end] == "'" {
                        if end + 1 < characters.count, characters[end + 1] == "'" { end += 2; continue }
                        break
                    }
                    end += 1
                }
                tokens.append(.other(String(characters[index...min(end, characters.count - 1)])))
                index = end + 1
            } else if character.isLetter || character == "_" {
                var end = index
                while end < characters.count, characters[end].isLetter || characters[end].isNumber || characters[end] == "_" || characters[end] == "$" { end += 1 }
                let word = String(characters[index..<end])
                tokens.append(.identifier(word, raw: word))
                index = end
            } else {
                tokens.append(.other(String(character)))
                index += 1
            }
        }
        return tokens
    }

    static func join(_ tokens: [Token]) -> String {
        tokens.map { token -> String in
            switch token {
            case .identifier(_, let raw): return raw
            case .other(let text): return text
            }
        }.joined()
    }

    static func renamingIdentifier(_ old: String, to new: String, in sql: String) -> String {
        join(tokenize(sql).map { token in
            if case .identifier(let name, _) = token, name.caseInsensitiveCompare(old) == .orderedSame {
                return .identifier(new, raw: new.quotedDatabaseIdentifier)
            }
            return token
        })
    }

    static func mentions(_ identifier: String, in sql: String) -> Bool {
        tokenize(sql).contains { token in
            if case .identifier(let name, _) = token { return name.caseInsensitiveCompare(identifier) == .orderedSame }
            return false
        }
    }

    /// `CREATE TABLE x (...)` → `CREATE TABLE "new" (...)`: the identifier
    /// after TABLE (and IF NOT EXISTS).
    static func renamingTable(in sql: String, to newName: String) -> String {
        var tokens = tokenize(sql)
        var sawTable = false
        for index in tokens.indices {
            guard case .identifier(let word, _) = tokens[index] else { continue }
            if !sawTable {
                sawTable = word.uppercased() == "TABLE"
                continue
            }
            if ["IF", "NOT", "EXISTS"].contains(word.uppercased()) { continue }
            tokens[index] = .identifier(newName, raw: newName.quotedDatabaseIdentifier)
            break
        }
        return join(tokens)
    }

    /// Removes one column definition from the top-level list of a CREATE
    /// TABLE; refuses when a table constraint mentions the column.
    static func removingColumn(_ column: String, from sql: String, table: String) throws -> String {
        let tokens = tokenize(sql)
        guard let open = tokens.firstIndex(where: { if case .other("(") = $0 { return true } else { return false } }) else {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "cannot read the definition of \(table)")
        }
        var depth = 0
        var elements: [[Token]] = [[]]
        var close = tokens.count
        for index in (open + 1)..<tokens.count {
            let token = tokens[index]
            if case .other(let text) = token {
                if text == "(" { depth += 1 }
                if text == ")" {
                    if depth == 0 { close = index; break }
                    depth -= 1
                }
                if text == "," && depth == 0 { elements.append([]); continue }
            }
            elements[elements.count - 1].append(token)
        }
        let constraintWords: Set<String> = ["CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"]
        var kept: [[Token]] = []
        for element in elements {
            let firstIdentifier = element.first { if case .identifier = $0 { return true } else { return false } }
            guard case .identifier(let first, _)? = firstIdentifier else { kept.append(element); continue }
            if constraintWords.contains(first.uppercased()) {
                if mentions(column, in: join(element)) {
                    throw DatabaseError(resultCode: .SQLITE_ERROR,
                                        message: "cannot drop column \(column) of \(table): a table constraint uses it (\(join(element).trimmedSQLStatement))")
                }
                kept.append(element)
            } else if first.caseInsensitiveCompare(column) != .orderedSame {
                kept.append(element)
            } else if element.contains(where: { if case .identifier(let word, _) = $0 { return word.uppercased() == "PRIMARY" } else { return false } }) {
                throw DatabaseError(resultCode: .SQLITE_ERROR, message: "cannot drop column \(column) of \(table): it is the primary key")
            }
        }
        let body = kept.map { join($0).trimmedSQLStatement }.joined(separator: ", ")
        return join(Array(tokens[...open])) + body + join(Array(tokens[close...]))
    }
}

extension TableRebuild {
    static func list(_ columns: [String]) -> String {
        columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
    }
}
