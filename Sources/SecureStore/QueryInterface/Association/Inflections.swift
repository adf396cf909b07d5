import Foundation

/// English plurals and singulars of association keys: `book` ↔ `books`,
/// `category` ↔ `categories`, `person` ↔ `people`. Only the last word of a
/// camelCase or snake_case name changes (`bookAuthor` → `bookAuthors`), and
/// trailing digits are kept (`book2` → `books2`).
enum Inflections {
    /// Words that are the same in both numbers.
    private static let uncountables: Set<String> = [
        "equipment", "information", "rice", "money", "species", "series", "fish", "sheep", "jeans", "police",
        "news", "data", "metadata", "feedback", "software", "hardware", "staff", "deer", "moose", "aircraft",
    ]

    /// Irregular (singular, plural) pairs.
    private static let irregulars: [(String, String)] = [
        ("person", "people"), ("man", "men"), ("woman", "women"), ("child", "children"), ("sex", "sexes"),
        ("move", "moves"), ("zombie", "zombies"), ("ox", "oxen"), ("foot", "feet"), ("tooth", "teeth"),
        ("goose", "geese"), ("mouse", "mice"), ("quiz", "quizzes"), ("leaf", "leaves"), ("life", "lives"),
        ("wife", "wives"), ("knife", "knives"), ("wolf", "wolves"), ("half", "halves"), ("shelf", "shelves"),
        ("index", "indices"), ("matrix", "matrices"), ("vertex", "vertices"), ("status", "statuses"),
        ("alias", "aliases"), ("bus", "buses"), ("axis", "axes"), ("crisis", "crises"), ("analysis", "analyses"),
        ("medium", "media"), ("datum", "data"), ("criterion", "criteria"), ("cactus", "cacti"),
        ("octopus", "octopi"), ("virus", "viruses"), ("hero", "heroes"), ("potato", "potatoes"),
        ("tomato", "tomatoes"), ("echo", "echoes"), ("movie", "movies"), ("basis", "bases"), ("thesis", "theses"),
        ("diagnosis", "diagnoses"), ("synopsis", "synopses"), ("campus", "campuses"),
    ]

    /// Suffix rules, tried in order: (suffix, replacement).
    private static let pluralRules: [(String, String)] = [
        ("quy", "quies"), ("ay", "ays"), ("ey", "eys"), ("iy", "iys"), ("oy", "oys"), ("uy", "uys"), ("y", "ies"),
        ("ss", "sses"), ("sh", "shes"), ("ch", "ches"), ("x", "xes"), ("z", "zes"), ("us", "uses"),
        ("sis", "ses"), ("s", "s"),
    ]

    private static let singularRules: [(String, String)] = [
        ("quies", "quy"), ("ies", "y"), ("sses", "ss"), ("shes", "sh"), ("ches", "ch"), ("xes", "x"),
        ("zzes", "zz"), ("ss", "ss"), ("us", "us"), ("is", "is"), ("s", ""),
    ]

    static func pluralize(_ word: String) -> String {
        inflect(word) { last in
            if let plural = irregulars.first(where: { $0.0 == last })?.1 { return plural }
            if irregulars.contains(where: { $0.1 == last }) { return last }
            for (suffix, replacement) in pluralRules where last.hasSuffix(suffix) {
                return String(last.dropLast(suffix.count)) + replacement
            }
            return last + "s"
        }
    }

    static func singularize(_ word: String) -> String {
        inflect(word) { last in
            if let singular = irregulars.first(where: { $0.1 == last })?.0 { return singular }
            if irregulars.contains(where: { $0.0 == last }) { return last }
            for (suffix, replacement) in singularRules where last.hasSuffix(suffix) {
                return String(last.dropLast(suffix.count)) + replacement
            }
            return last
        }
    }

    /// Applies `transform` to the last word (lowercased for matching),
    /// keeping the case of its first letter, the words before it and the
    /// trailing digits.
    private static func inflect(_ word: String, _ transform: (String) -> String) -> String {
        let digits = String(word.reversed().prefix { $0.isNumber }.reversed())
        let body = String(word.dropLast(digits.count))
        guard !body.isEmpty else { return word }
        // The last word starts after the last "_" or at the last capital.
        var start = body.startIndex
        for index in body.indices {
            if body[index] == "_" {
                start = body.index(after: index)
            } else if body[index].isUppercase, index != body.startIndex, !body[body.index(before: index)].isUppercase {
                start = index
            }
        }
        let prefix = String(body[..<start])
        let last = String(body[start...])
        guard !last.isEmpty else { return word }
        let lowered = last.lowercased()
        if uncountables.contains(lowered) { return word }
        var result = transform(lowered)
        if last.first?.isUppercase == true { result = result.prefix(1).uppercased() + result.dropFirst() }
        return prefix + result + digits
    }
}

extension String {
    /// The English plural of the last word: `book` → `books`.
    var pluralized: String { Inflections.pluralize(self) }

    /// The English singular of the last word: `books` → `book`.
    var singularized: String { Inflections.singularize(self) }
}
