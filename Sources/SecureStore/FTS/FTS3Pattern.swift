/// A full-text search pattern, checked by SQLite, for the FTS3 and FTS4
/// modules' `MATCH`.
///
/// ```swift
/// let pattern = FTS3Pattern(matchingAllTokensIn: "secret plan")   // secret plan
/// let notes = try Note.matching(pattern).fetchAll(db)
/// let raw = try FTS3Pattern(rawPattern: "sec* OR plan")           // any FTS3 query syntax
/// ```
public struct FTS3Pattern: Sendable {
    /// The pattern, as SQLite reads it.
    public let rawPattern: String

    /// A pattern in SQLite's FTS3 query syntax; an error when SQLite rejects
    /// it (the error does not contain the pattern).
    public init(rawPattern: String) throws {
        do {
            try DatabaseQueue().inDatabase { db in
                try db.execute(sql: "CREATE VIRTUAL TABLE documents USING fts3()")
                _ = try Row.fetchAll(db, sql: "SELECT * FROM documents WHERE content MATCH ?", arguments: [rawPattern])
            }
        } catch let error as DatabaseError {
            throw DatabaseError(resultCode: error.extendedResultCode, message: error.message)
        }
        self.rawPattern = rawPattern
    }

    /// Matches documents that contain any token of `string`; nil when it has none.
    public init?(matchingAnyTokenIn string: String) {
        self.init(string, FullTextQuery.anyToken)
    }

    /// Matches documents that contain all tokens of `string`; nil when it has none.
    public init?(matchingAllTokensIn string: String) {
        self.init(string, FullTextQuery.allTokens)
    }

    /// Matches documents that contain words that start with each token of
    /// `string`; nil when it has none.
    public init?(matchingAllPrefixesIn string: String) {
        self.init(string, FullTextQuery.allPrefixes)
    }

    /// Matches documents that contain the tokens of `string` in a row; nil
    /// when it has none.
    public init?(matchingPhrase string: String) {
        self.init(string, FullTextQuery.phrase)
    }

    /// A pattern made from the tokens of `string` (`simple` tokenizer).
    private init?(_ string: String, _ query: FullTextQuery) {
        guard let tokens = try? FTS3.tokenize(string), let pattern = query.pattern(of: tokens),
              let checked = try? FTS3Pattern(rawPattern: pattern)
        else { return nil }
        self = checked
    }
}

extension FTS3Pattern: DatabaseValueConvertible {
    /// The raw pattern, as text.
    public var databaseValue: DatabaseValue { rawPattern.databaseValue }

    /// A pattern from text SQLite accepts as one; nil otherwise.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> FTS3Pattern? {
        String.fromDatabaseValue(dbValue).flatMap { try? FTS3Pattern(rawPattern: $0) }
    }
}
