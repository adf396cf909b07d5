import Foundation

/// The plurals and singulars that name associations: `book` ↔ `books`,
/// `category` ↔ `categories`, `person` ↔ `people`.
///
/// Only the last word of a name changes (`bookAuthor` → `bookAuthors`,
/// `book_author` → `book_authors`), and trailing digits stay
/// (`book2` → `books2`). Rules are regular expressions, tried from the most
/// recently added; the first that matches the last word replaces what it
/// matched with its template.
///
/// ```swift
/// // How the app's own words inflect, before associations are defined:
/// Inflections.default.irregularSuffix("cactus", "cacti")
/// Inflections.default.uncountableWords(["metadata", "HTTP"])
/// "cactus".pluralized    // used for association keys: "cacti"
/// ```
///
/// ## Topics
///
/// ### The rules in use
///
/// - ``default``
///
/// ### Making rules
///
/// - ``init()``
/// - ``plural(_:options:_:)``
/// - ``singular(_:options:_:)``
/// - ``irregularSuffix(_:_:)``
/// - ``uncountableWords(_:)``
///
/// ### Inflecting
///
/// - ``pluralize(_:)``
/// - ``singularize(_:)``
public struct Inflections: Sendable {
    /// A compiled rule. `@unchecked`: the expression is never mutated.
    private struct Rule: @unchecked Sendable {
        let expression: NSRegularExpression
        let template: String
    }

    private var pluralRules: [Rule] = []
    private var singularRules: [Rule] = []
    /// Lowercased words that are their own plural and singular.
    private var uncountableSet: Set<String> = []

    /// The uncountable words, lowercased.
    var uncountables: Set<String> { uncountableSet }

    /// No rules: every word stays as it is until rules are added.
    public init() {}

    /// Adds a plural rule: when `pattern` matches the last word, its match
    /// becomes `template` (`$1` names a group).
    ///
    /// ```swift
    /// var inflections = Inflections()
    /// inflections.plural("$", "s")
    /// inflections.pluralize("player")   // "players"
    /// ```
    public mutating func plural(_ pattern: String, options: NSRegularExpression.Options = [.caseInsensitive], _ template: String) {
        pluralRules.append(Self.rule(pattern, options, template))
    }

    /// Adds a singular rule (see ``plural(_:options:_:)``).
    ///
    /// ```swift
    /// var inflections = Inflections()
    /// inflections.singular("s$", "")
    /// inflections.singularize("players")   // "player"
    /// ```
    public mutating func singular(_ pattern: String, options: NSRegularExpression.Options = [.caseInsensitive], _ template: String) {
        singularRules.append(Self.rule(pattern, options, template))
    }

    /// Makes words their own plural and singular (`equipment`, `HTTP`),
    /// whatever their case.
    public mutating func uncountableWords(_ words: [String]) {
        for word in words { uncountableSet.insert(word.lowercased()) }
    }

    /// Adds a pair of forms for words that end like `singular` and
    /// `plural` (`person` → `people`, so `salesperson` → `salespeople`),
    /// keeping the case of their first letter.
    public mutating func irregularSuffix(_ singular: String, _ plural: String) {
        addIrregular(singular, plural, wholeWord: false)
    }

    /// Rules for an irregular pair: a word that ends like either form (or,
    /// with `wholeWord`, is either form) takes the other, with the case of
    /// its first letter kept (`Person` → `People`).
    mutating func addIrregular(_ singular: String, _ plural: String, wholeWord: Bool) {
        for form in [singular, plural] {
            guard let first = form.first else { continue }
            let rest = NSRegularExpression.escapedPattern(for: String(form.dropFirst()))
            for uppercase in [true, false] {
                func cased(_ word: String) -> String {
                    (uppercase ? word.prefix(1).uppercased() : word.prefix(1).lowercased()) + word.dropFirst()
                }
                // The first letter in its case, the rest in any case.
                let pattern = (wholeWord ? "^" : "") + NSRegularExpression.escapedPattern(for: cased(String(first)))
                    + "(?i)" + rest + "$"
                self.plural(pattern, options: [], cased(plural))
                self.singular(pattern, options: [], cased(singular))
            }
        }
    }

    /// The plural of the last word of `string`.
    ///
    /// ```swift
    /// Inflections.default.pluralize("bookAuthor")   // "bookAuthors"
    /// ```
    public func pluralize(_ string: String) -> String {
        inflect(string, with: pluralRules)
    }

    /// The singular of the last word of `string`.
    public func singularize(_ string: String) -> String {
        inflect(string, with: singularRules)
    }

    // MARK: Applying rules

    private static func rule(_ pattern: String, _ options: NSRegularExpression.Options, _ template: String) -> Rule {
        do {
            return Rule(expression: try NSRegularExpression(pattern: pattern, options: options), template: template)
        } catch {
            preconditionFailure("invalid inflection pattern \(pattern): \(error)")
        }
    }

    private func inflect(_ string: String, with rules: [Rule]) -> String {
        let start = Self.startIndexOfLastWord(string)
        let end = max(start, Self.endIndexOfDigitlessRadical(string))
        let word = String(string[start..<end])
        guard !word.isEmpty, !uncountableSet.contains(word.lowercased()) else { return string }
        return String(string[..<start]) + inflectWord(word, with: rules) + String(string[end...])
    }

    private func inflectWord(_ word: String, with rules: [Rule]) -> String {
        let range = NSRange(word.startIndex..., in: word)
        for rule in rules.reversed() {
            guard let match = rule.expression.firstMatch(in: word, range: range),
                  let matched = Range(match.range, in: word) else { continue }
            let replacement = rule.expression.replacementString(for: match, in: word, offset: 0, template: rule.template)
            return word.replacingCharacters(in: matched, with: replacement)
        }
        return word
    }

    /// Where the last word of `string` begins: after the last space or
    /// other non-word character, after the last underscore, or at the last
    /// capital run of camelCase (`playerScore` → `Score`, `PLAYER_SCORE` →
    /// `SCORE`). The whole string when there is no boundary.
    static func startIndexOfLastWord(_ string: String) -> String.Index {
        let characters = Array(string)
        func isWordCharacter(_ character: Character) -> Bool { character.isLetter || character.isNumber || character == "_" }
        func isASCIIUpper(_ character: Character) -> Bool { ("A"..."Z").contains(character) }
        func isTail(_ character: Character) -> Bool { ("a"..."z").contains(character) || ("1"..."9").contains(character) }
        var candidates: [Int] = []
        // A run of word characters at the end, after a non-word one.
        var wordStart = characters.count
        while wordStart > 0, isWordCharacter(characters[wordStart - 1]) { wordStart -= 1 }
        if wordStart < characters.count { candidates.append(wordStart) }
        // After the last underscore, when something follows it.
        if let underscore = characters.lastIndex(of: "_"), underscore < characters.count - 1 {
            candidates.append(underscore + 1)
        }
        // camelCase: capitals then lowercase letters or digits at the end,
        // after a character that is not a capital.
        var tailStart = characters.count
        while tailStart > 0, isTail(characters[tailStart - 1]) { tailStart -= 1 }
        var capitalsStart = tailStart
        while capitalsStart > 0, isASCIIUpper(characters[capitalsStart - 1]) { capitalsStart -= 1 }
        if tailStart < characters.count, capitalsStart < tailStart, capitalsStart > 0 {
            candidates.append(capitalsStart)
        }
        let offset = candidates.max() ?? 0
        return string.index(string.startIndex, offsetBy: offset)
    }

    /// Where the trailing digits of `string` begin (its end when none).
    static func endIndexOfDigitlessRadical(_ string: String) -> String.Index {
        var end = string.endIndex
        while end > string.startIndex {
            let previous = string.index(before: end)
            guard ("0"..."9").contains(string[previous]) else { break }
            end = previous
        }
        return end
    }
}

extension Inflections {
    /// The default rules, and what they answered so far: association keys
    /// are inflected each time a request is built, and a regular
    /// expression costs a few hundred allocations.
    private struct Current {
        var inflections: Inflections
        var plurals: [String: String] = [:]
        var singulars: [String: String] = [:]
    }

    private static let current = LockedValue(Current(inflections: .english))

    /// The rules of association keys and of everything else that inflects
    /// names: English, unless the app changes them (before it defines its
    /// associations).
    public static var `default`: Inflections {
        get { current.withLock { $0.inflections } }
        set { current.withLock { $0 = Current(inflections: newValue) } }
    }

    /// `word` inflected by the default rules, remembered.
    fileprivate static func inflectedByDefault(_ word: String, plural: Bool) -> String {
        current.withLock { current in
            if let known = plural ? current.plurals[word] : current.singulars[word] { return known }
            let inflected = plural ? current.inflections.pluralize(word) : current.inflections.singularize(word)
            // Names of tables and keys: few. A runaway caller cannot grow it without bound.
            if current.plurals.count + current.singulars.count > 4096 {
                current.plurals.removeAll()
                current.singulars.removeAll()
            }
            if plural { current.plurals[word] = inflected } else { current.singulars[word] = inflected }
            return inflected
        }
    }
}

extension String {
    /// The plural of the last word: `book` → `books`.
    var pluralized: String { Inflections.inflectedByDefault(self, plural: true) }

    /// The singular of the last word: `books` → `book`.
    var singularized: String { Inflections.inflectedByDefault(self, plural: false) }

    /// `player12` → `player`: the name without its trailing digits.
    var digitlessRadical: String { String(self[..<Inflections.endIndexOfDigitlessRadical(self)]) }
}
