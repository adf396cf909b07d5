/// A hash of the database schema, to detect changes made outside migrations.
extension Database {
    /// SHA-256 of the normalized schema: every table, index, view and
    /// trigger (SQLite's internal objects and the migration bookkeeping
    /// tables left out), sorted. Outside string literals, white space runs
    /// are folded (and dropped next to punctuation), identifier quotes
    /// dropped and case folded: `ALTER TABLE
    /// ... RENAME` rewrites `CREATE TABLE t` as `CREATE TABLE "t"`, and a
    /// table rebuilt by a rollback must match the one it replaces.
    ///
    /// Two databases with the same schema have the same fingerprint,
    /// whatever their data and however their SQL was indented.
    public func schemaFingerprint() throws -> String {
        let lines = try schemaSnapshot().objects.map { object in
            [object.type, object.name, object.table, object.sql].joined(separator: "\u{1F}")
        }
        return SHA256Digest.hex(of: lines.joined(separator: "\n"))
    }

    static func normalize(_ sql: String) -> String {
        var result = ""
        var inString = false
        var pendingSpace = false
        for character in sql {
            if inString {
                result.append(character)
                if character == "'" { inString = false }
                continue
            }
            if character.isWhitespace {
                pendingSpace = !result.isEmpty
                continue
            }
            if "\"`[]".contains(character) { continue }
            // A space next to punctuation carries no meaning: `name TEXT\n,
            // language` (as ALTER TABLE ADD COLUMN writes it) equals
            // `name TEXT, language`.
            if pendingSpace, let last = result.last, !"(),;".contains(last), !"(),;".contains(character) {
                result.append(" ")
            }
            pendingSpace = false
            if character == "'" { inString = true }
            result.append(contentsOf: character.lowercased())
        }
        return result
    }
}
