import Foundation
@testable import SecureStore
import XCTest

/// `Inflections`: the English defaults that name associations, and the
/// rules an app adds (`Inflections.default`), as in GRDB 7.10.
final class InflectionsTests: XCTestCase {
    private var saved: Inflections!

    override func setUp() {
        super.setUp()
        saved = Inflections.default
    }

    override func tearDown() {
        Inflections.default = saved
        super.tearDown()
    }

    func testEnglishDefaults() {
        let pairs = [
            ("book", "books"), ("category", "categories"), ("person", "people"), ("box", "boxes"),
            ("class", "classes"), ("status", "statuses"), ("bookAuthor", "bookAuthors"),
            ("book_author", "book_authors"), ("book2", "books2"), ("Person", "People"), ("key", "keys"),
            ("human", "humans"), ("soliloquy", "soliloquies"), ("analysis", "analyses"),
        ]
        for (singular, plural) in pairs {
            XCTAssertEqual(singular.pluralized, plural, singular)
            XCTAssertEqual(plural.singularized, singular, plural)
            XCTAssertEqual(plural.pluralized, plural, "a plural stays plural: \(plural)")
            XCTAssertEqual(singular.singularized, singular, "a singular stays singular: \(singular)")
        }
        for word in ["equipment", "Metadata", "SHEEP"] {
            XCTAssertEqual(word.pluralized, word)
            XCTAssertEqual(word.singularized, word)
        }
        XCTAssertEqual("".pluralized, "")
        XCTAssertEqual("123".pluralized, "123")
    }

    func testLastWordAndDigits() {
        func lastWord(_ string: String) -> String { String(string[Inflections.startIndexOfLastWord(string)...]) }
        XCTAssertEqual(lastWord("player"), "player")
        XCTAssertEqual(lastWord("best player score"), "score")
        XCTAssertEqual(lastWord("BEST_PLAYER_SCORE"), "SCORE")
        XCTAssertEqual(lastWord("bestPlayerScore1"), "Score1")
        XCTAssertEqual(lastWord("PLAYER"), "PLAYER")
        XCTAssertEqual(lastWord("_"), "_")
        XCTAssertEqual("player123".digitlessRadical, "player")
        XCTAssertEqual("".digitlessRadical, "")
    }

    func testCustomRulesApplyToAssociationKeys() throws {
        Inflections.default.irregularSuffix("cactus", "cactuses")
        Inflections.default.uncountableWords(["HTTP"])
        XCTAssertEqual("cactus".pluralized, "cactuses")
        XCTAssertEqual("bigCactus".pluralized, "bigCactuses")
        XCTAssertEqual("cactuses".singularized, "cactus")
        XCTAssertEqual("HTTP".pluralized, "HTTP")
        XCTAssertEqual("sponsor".pluralized, "sponsors")

        var rules = Inflections()
        XCTAssertEqual(rules.pluralize("player"), "player", "no rules, no change")
        rules.plural("$", "s")
        rules.singular("s$", "")
        XCTAssertEqual(rules.pluralize("player"), "players")
        XCTAssertEqual(rules.singularize("players"), "player")
        rules.uncountableWords(["ors"])
        XCTAssertEqual(rules.pluralize("sponsor"), "sponsors", "an uncountable word is a whole word")

        // An association named by the table takes the app's plural.
        struct Cactus: TableRecord { static let databaseTableName = "cactus" }
        struct Garden: TableRecord { static let cacti = hasMany(Cactus.self) }
        XCTAssertEqual(Garden.cacti._sqlAssociation.keyPath, ["cactuses"])
    }
}
