/// A valid FTS5 full-text query, built from user input or checked by SQLite.
///
/// The failable initializers turn any text into tokens (the `ascii`
/// tokenizer's) and never fail on punctuation; ``init(rawPattern:allowedColumns:)``
/// takes FTS5's query syntax and throws when SQLite rejects it.
///
/// ```swift
/// let pattern = FTS5Pattern(matchingAllPrefixesIn: "secu sto")   // secu* sto*
/// let books = try Book.matching(pattern).order(Column.rank).fetchAll(db)
/// ```
///
/// ## Topics
///
/// ### From user input
///
/// - ``init(matchingAnyTokenIn:)``
/// - ``init(matchingAllTokensIn:)``
/// - ``init(matchingAllPrefixesIn:)``
/// - ``init(matchingPhrase:)``
/// - ``init(matchingPrefixPhrase:)``
///
/// ### From the query syntax
///
/// - ``init(rawPattern:allowedColumns:)``
/// - ``Database/makeFTS5Pattern(rawPattern:forTable:)``
/// - ``rawPattern``
public struct FTS5Pattern: Sendable {
    /// The pattern, in FTS5's query syntax.
    public let rawPattern: String

    /// Any token of `string`: "Secret, plan!" gives `secret OR plan`.
    public init?(matchingAnyTokenIn string: String) {
        self.init(query: .anyToken, of: string)
    }

    /// Every token of `string`, anywhere: `secret plan`.
    public init?(matchingAllTokensIn string: String) {
        self.init(query: .allTokens, of: string)
    }

    /// A token that starts with each token of `string`: "sec pla" gives
    /// `sec* pla*`, for search as the user types.
    public init?(matchingAllPrefixesIn string: String) {
        self.init(query: .allPrefixes, of: string)
    }

    /// The tokens of `string` one after the other: `"secret plan"`.
    public init?(matchingPhrase string: String) {
        self.init(query: .phrase, of: string)
    }

    /// The tokens of `string` at the start of a column: `^"the secret"`.
    public init?(matchingPrefixPhrase string: String) {
        self.init(query: .prefixPhrase, of: string)
    }

    /// A pattern in FTS5's query syntax, checked by SQLite.
    ///
    /// ```swift
    /// let pattern = try FTS5Pattern(rawPattern: "title: secret NOT draft", allowedColumns: ["title", "body"])
    /// ```
    ///
    /// - parameters:
    ///   - rawPattern: the query.
    ///   - allowedColumns: the columns the query may name.
    /// - throws: a ``DatabaseError`` with SQLite's message when the query is
    ///   malformed, or when the library has no FTS5.
    public init(rawPattern: String, allowedColumns: [String] = []) throws {
        do {
            try DatabaseQueue().inDatabase { db in
                try db.create(virtualTable: "document", using: FTS5()) { t in
                    for column in allowedColumns.isEmpty ? ["__securestore__"] : allowedColumns { t.column(column) }
                }
                _ = try Row.fetchOne(db, sql: "SELECT * FROM document WHERE document MATCH ?", arguments: [rawPattern])
            }
        } catch let error as DatabaseError {
            // SQLite's message, without the SQL of the check.
            throw DatabaseError(resultCode: error.extendedResultCode, message: error.message)
        }
        self.rawPattern = rawPattern
    }

    private init?(query: FullTextQuery, of string: String) {
        guard let tokens = try? FTS5.tokenize(query: string), let pattern = query.pattern(of: tokens),
              let checked = try? FTS5Pattern(rawPattern: pattern)
        else { return nil }
        self = checked
    }
}

extension Database {
    /// A pattern in FTS5's query syntax, checked against the columns of the
    /// full-text table `table`.
    ///
    /// ```swift
    /// let pattern = try db.makeFTS5Pattern(rawPattern: "body: plan*", forTable: "note_ft")
    /// ```
    public func makeFTS5Pattern(rawPattern: String, forTable table: String) throws -> FTS5Pattern {
        try FTS5Pattern(rawPattern: rawPattern, allowedColumns: columns(in: table).map(\.name))
    }
}

extension FTS5Pattern: DatabaseValueConvertible {
    /// The raw pattern, as text.
    public var databaseValue: DatabaseValue { rawPattern.databaseValue }

    /// A pattern from text that SQLite accepts; nil otherwise.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> FTS5Pattern? {
        String.fromDatabaseValue(dbValue).flatMap { try? FTS5Pattern(rawPattern: $0) }
    }
}
