// FTS5 full-text search in the query interface: `Book.matching(pattern)`,
// `Column("title").match(pattern)`, `order(Column.rank)`.

extension TableRequest where Self: FilteredRequest {
    /// The rows of the request's FTS5 table that match `pattern`
    /// (`WHERE "book_ft" MATCH ?`); no row for a nil pattern.
    ///
    /// ```swift
    /// let pattern = FTS5Pattern(matchingAllTokensIn: "secret plan")
    /// let books = try Book.all().matching(pattern).order(Column.rank).fetchAll(db)
    /// ```
    public func matching(_ pattern: FTS5Pattern?) -> Self {
        matching(fullTextPattern: pattern?.sqlExpression)
    }
}

extension TableRecord {
    /// The records of this FTS5 table that match `pattern`; none for a nil
    /// pattern.
    ///
    /// ```swift
    /// let books = try Book.matching(FTS5Pattern(matchingAnyTokenIn: "plan")).fetchAll(db)
    /// ```
    public static func matching(_ pattern: FTS5Pattern?) -> QueryInterfaceRequest<Self> {
        all().matching(pattern)
    }
}

extension ColumnExpression {
    /// `column MATCH pattern`: FTS5 reads it as a search in that column only.
    ///
    /// ```swift
    /// let books = try Book.filter(Column("title").match(pattern)).fetchAll(db)
    /// ```
    public func match(_ pattern: FTS5Pattern) -> SQLExpression {
        .binary("MATCH", sqlExpression, pattern.sqlExpression)
    }
}
