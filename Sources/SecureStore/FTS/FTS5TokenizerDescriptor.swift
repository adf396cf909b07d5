/// The tokenizer of an ``FTS5`` table (`ascii`, `porter`, `unicode61`,
/// `trigram`), written as `tokenize='...'` when the table is created.
///
/// ```swift
/// try db.create(virtualTable: "book_ft", using: FTS5()) { t in
///     t.tokenizer = .porter(wrapping: .unicode61(diacritics: .remove))
///     t.column("body")
/// }
/// ```
///
/// ## Topics
///
/// ### Built-in tokenizers
///
/// - ``ascii(separators:tokenCharacters:)``
/// - ``porter(wrapping:)``
/// - ``unicode61(diacritics:categories:separators:tokenCharacters:)``
/// - ``trigram(caseSensitive:)``
public struct FTS5TokenizerDescriptor: Sendable {
    /// The tokenizer's name followed by its arguments.
    public let components: [String]

    /// A tokenizer from its name and arguments: `["unicode61", "remove_diacritics", "0"]`.
    public init(components: [String]) {
        precondition(!components.isEmpty, "a tokenizer needs a name")
        self.components = components
    }

    /// ASCII case folding; every non-ASCII character belongs to a token.
    ///
    /// - parameters:
    ///   - separators: more characters that separate tokens.
    ///   - tokenCharacters: more characters that belong to tokens.
    public static func ascii(separators: Set<Character> = [], tokenCharacters: Set<Character> = []) -> Self {
        FTS5TokenizerDescriptor(components: ["ascii"] + characterOptions(separators, tokenCharacters))
    }

    /// The Porter stemmer (English) over `base`, `unicode61` when nil.
    public static func porter(wrapping base: FTS5TokenizerDescriptor? = nil) -> Self {
        FTS5TokenizerDescriptor(components: ["porter"] + (base?.components ?? []))
    }

    /// Unicode case folding and word boundaries.
    ///
    /// - parameters:
    ///   - diacritics: kept, or removed as SQLite does by default.
    ///   - categories: the Unicode categories of token characters, when
    ///     not SQLite's `L* N* Co`.
    ///   - separators: more characters that separate tokens.
    ///   - tokenCharacters: more characters that belong to tokens.
    public static func unicode61(diacritics: FTS5.Diacritics = .removeLegacy, categories: String = "",
                                 separators: Set<Character> = [], tokenCharacters: Set<Character> = []) -> Self {
        var components = ["unicode61"]
        switch diacritics {
        case .removeLegacy: break
        case .keep: components += ["remove_diacritics", "0"]
        case .remove: components += ["remove_diacritics", "2"]
        }
        if !categories.isEmpty { components += ["categories", categories] }
        return FTS5TokenizerDescriptor(components: components + characterOptions(separators, tokenCharacters))
    }

    /// Every sequence of three characters is a token: substring search
    /// with `MATCH`, `LIKE` and `GLOB` (SQLite 3.34 or later).
    ///
    /// - parameter caseSensitive: true to keep case (`case_sensitive 1`).
    public static func trigram(caseSensitive: Bool = false) -> Self {
        FTS5TokenizerDescriptor(components: caseSensitive ? ["trigram", "case_sensitive", "1"] : ["trigram"])
    }

    private static func characterOptions(_ separators: Set<Character>, _ tokenCharacters: Set<Character>) -> [String] {
        var options: [String] = []
        if !separators.isEmpty { options += ["separators", String(separators.sorted())] }
        if !tokenCharacters.isEmpty { options += ["tokenchars", String(tokenCharacters.sorted())] }
        return options
    }
}
