import Foundation
import TestSupport
import XCTest

/// Examples/library: a library catalogue on an encrypted file, read with
/// associations, a request extension, SQL literals and a subquery.
final class LibraryExampleTests: MigrateToolTestCase {
    private let expected = """
        Chinua Achebe (NG): Arrow of God, Things Fall Apart
        Italo Calvino (IT): If on a Winter's Night a Traveler, Invisible Cities
        Toni Morrison (US): Beloved, Song of Solomon
        books since 1970: Chinua Achebe 0, Italo Calvino 2, Toni Morrison 2
        Beloved by Toni Morrison: 3 reviews, 4.67 stars
        Things Fall Apart by Chinua Achebe: 2 reviews, 4.50 stars
        Song of Solomon by Toni Morrison: 1 reviews, 4.00 stars
        Invisible Cities by Italo Calvino: 2 reviews, 3.50 stars
        If on a Winter's Night a Traveler by Italo Calvino: 1 reviews, 3.00 stars
        Arrow of God by Chinua Achebe: 0 reviews, - stars
        titles with "of": Arrow of God, Song of Solomon
        the 1960s: Arrow of God
        five-star authors: Chinua Achebe, Toni Morrison
        Toni Morrison's reviews: 4 4 5 5

        """

    func testTheCatalogueReportOnAnEncryptedFile() throws {
        let environment = ["LIBRARY_PASSPHRASE": passphrase]
        let first = try tool([path("library.db")], environment: environment, binary: "library-example", umask: 0o022)
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(first.stdout, expected)
        // Run again: the catalogue is read back, not seeded twice.
        let second = try tool([path("library.db")], environment: environment, binary: "library-example")
        XCTAssertEqual(second.stdout, expected, second.stderr)

        // Encrypted, private, and readable by the independent client with the key.
        XCTAssertEqual(try mode(path("library.db")), 0o600)
        XCTAssertNotEqual(try CommandLineClient.sqlite3(path("library.db"), sql: "SELECT count(*) FROM book;").status, 0)
        let counted = try CommandLineClient.sqlcipher(path("library.db"), preamble: "PRAGMA key = '\(passphrase)';" + Self.newFileKDFPragma,
                                                      sql: "SELECT count(*) FROM author; SELECT count(*) FROM book; SELECT count(*) FROM review;")
        XCTAssertEqual(counted.stdout, "3\n6\n9\n", counted.stderr)

        // No passphrase, a wrong one: clear errors, and the file is untouched.
        let before = try sha256OfFile(path("library.db"))
        let missing = try tool([path("library.db")], binary: "library-example")
        XCTAssertEqual(missing.status, 64)
        XCTAssertTrue(missing.stderr.contains("LIBRARY_PASSPHRASE"), missing.stderr)
        let wrong = try tool([path("library.db")], environment: ["LIBRARY_PASSPHRASE": "not the key"], binary: "library-example")
        XCTAssertEqual(wrong.status, 1)
        XCTAssertTrue(wrong.stderr.contains("the key is wrong"), wrong.stderr)
        XCTAssertFalse(wrong.stderr.contains("not the key"), "the passphrase is never printed")
        XCTAssertEqual(try sha256OfFile(path("library.db")), before)
    }
}
