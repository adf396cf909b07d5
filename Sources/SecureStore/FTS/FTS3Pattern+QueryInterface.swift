// Full-text search in the query interface: `Note.matching(pattern)`,
// `Column("body").match(pattern)`, with the SQL GRDB writes.

extension TableRequest where Self: FilteredRequest {
    /// The rows of the request's full-text table that match `pattern`
    /// (`WHERE "note" MATCH ?`); no row for a nil pattern.
    ///
    /// ```swift
    /// let pattern = FTS3Pattern(matchingAllTokensIn: "secret plan")
    /// let notes = try Note.all().matching(pattern).fetchAll(db)
    /// ```
    public func matching(_ pattern: FTS3Pattern?) -> Self {
        matching(fullTextPattern: pattern?.sqlExpression)
    }

    /// `WHERE <table> MATCH pattern`, for FTS3 and FTS5 patterns alike.
    func matching(fullTextPattern pattern: SQLExpression?) -> Self {
        guard let pattern else { return none() }
        let alias = TableAliasBase()
        return _aliased(alias).filter(SQLExpression(impl: .tableMatch(alias, pattern)))
    }
}

extension TableRecord {
    /// The records of this full-text table that match `pattern`; none for a
    /// nil pattern.
    ///
    /// ```swift
    /// let notes = try Note.matching(FTS3Pattern(matchingAnyTokenIn: "plan")).fetchAll(db)
    /// ```
    public static func matching(_ pattern: FTS3Pattern?) -> QueryInterfaceRequest<Self> {
        all().matching(pattern)
    }
}

extension ColumnExpression {
    /// `column MATCH pattern` (`MATCH NULL`, which matches nothing, for a
    /// nil pattern).
    ///
    /// ```swift
    /// let notes = try Note.filter(Column("body").match(pattern)).fetchAll(db)
    /// ```
    public func match(_ pattern: FTS3Pattern?) -> SQLExpression {
        .binary("MATCH", sqlExpression, pattern?.sqlExpression ?? .null)
    }
}
