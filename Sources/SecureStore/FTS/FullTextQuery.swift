/// The queries that ``FTS3Pattern`` and ``FTS5Pattern`` build from user
/// input, written from the input's tokens in the syntax both modules read.
enum FullTextQuery {
    /// `a OR b`
    case anyToken
    /// `a b`
    case allTokens
    /// `a* b*`
    case allPrefixes
    /// `"a b"`
    case phrase
    /// `^"a b"` (FTS5 only)
    case prefixPhrase

    /// The query; nil when there is no token to search.
    func pattern(of tokens: [String]) -> String? {
        guard !tokens.isEmpty else { return nil }
        switch self {
        case .anyToken: return tokens.joined(separator: " OR ")
        case .allTokens: return tokens.joined(separator: " ")
        case .allPrefixes: return tokens.map { $0 + "*" }.joined(separator: " ")
        case .phrase: return "\"" + tokens.joined(separator: " ") + "\""
        case .prefixPhrase: return "^\"" + tokens.joined(separator: " ") + "\""
        }
    }
}
