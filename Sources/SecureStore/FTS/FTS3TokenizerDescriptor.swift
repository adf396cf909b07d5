/// The tokenizer of an ``FTS4`` table: `simple`, `porter` or `unicode61`,
/// written as `tokenize=...` when the table is created.
///
/// ```swift
/// try db.create(virtualTable: "book_ft", using: FTS4()) { t in
///     t.tokenizer = .unicode61(diacritics: .keep)
/// }
/// ```
public struct FTS3TokenizerDescriptor: Sendable {
    /// The tokenizer's name and arguments, as written after `tokenize=`.
    public let components: [String]

    /// A tokenizer from its name and arguments.
    public init(_ name: String, arguments: [String] = []) {
        components = [name] + arguments
    }

    /// ASCII case folding, words split on non-alphanumeric characters.
    public static let simple = FTS3TokenizerDescriptor("simple")

    /// The simple tokenizer followed by the Porter stemmer (English).
    public static let porter = FTS3TokenizerDescriptor("porter")

    /// Unicode case folding and word boundaries.
    ///
    /// - parameters:
    ///   - diacritics: whether diacritics are kept or removed (the default
    ///     removes them as SQLite always has).
    ///   - separators: characters that separate words, in addition to
    ///     Unicode's.
    ///   - tokenCharacters: characters that belong to words, in addition to
    ///     Unicode's.
    public static func unicode61(diacritics: FTS3.Diacritics = .removeLegacy, separators: Set<Character> = [],
                                 tokenCharacters: Set<Character> = []) -> FTS3TokenizerDescriptor {
        var arguments: [String] = []
        switch diacritics {
        case .removeLegacy: break
        case .keep: arguments.append("\"remove_diacritics=0\"")
        case .remove: arguments.append("\"remove_diacritics=2\"")
        }
        if !separators.isEmpty {
            arguments.append("\"separators=" + String(separators.sorted()) + "\"")
        }
        if !tokenCharacters.isEmpty {
            arguments.append("\"tokenchars=" + String(tokenCharacters.sorted()) + "\"")
        }
        return FTS3TokenizerDescriptor("unicode61", arguments: arguments)
    }
}
