import Foundation
import SecureStore
import XCTest

final class SQLMigrationFileTests: SecureStoreTestCase {
    private func folder(_ files: [String: String]) throws -> URL {
        let url = directory.appendingPathComponent("m-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        for (name, text) in files {
            try Data(text.utf8).write(to: url.appendingPathComponent(name))
        }
        return url
    }

    private func assertMalformed(
        _ files: [String: String], file expectedFile: String, line expectedLine: Int, reason: String,
        sourceFile: StaticString = #filePath, sourceLine: UInt = #line
    ) throws {
        XCTAssertThrowsError(try SQLMigrationFile.load(directory: folder(files)), file: sourceFile, line: sourceLine) { error in
            guard case let .malformedFile(path, line, message)? = error as? MigrationError else {
                return XCTFail("\(error)", file: sourceFile, line: sourceLine)
            }
            XCTAssertTrue(path.hasSuffix(expectedFile), path, file: sourceFile, line: sourceLine)
            XCTAssertEqual(line, expectedLine, file: sourceFile, line: sourceLine)
            XCTAssertTrue(message.contains(reason), message, file: sourceFile, line: sourceLine)
        }
    }

    func testLoadsTheExampleDirectory() throws {
        let files = try SQLMigrationFile.load(directory: ZaloraMigrations.directory)
        XCTAssertEqual(files.map(\.identifier), ["Zalora-v1", "Zalora-v2", "Zalora-v3"])
        XCTAssertEqual(files.map(\.number), [1, 2, 3])
        XCTAssertTrue(files.allSatisfy { $0.downSQL != nil })
        XCTAssertEqual(files[0].checksum.count, 64)
    }

    func testOrderIsNumericAndGapsAndOtherFilesAreFine() throws {
        let files = try SQLMigrationFile.load(directory: folder([
            "10_ten.up.sql": "CREATE TABLE ten (a);",
            "2_two.up.sql": "CREATE TABLE two (a);",
            "README.md": "not a migration",
            ".hidden.sql": "ignored",
        ]))
        XCTAssertEqual(files.map(\.identifier), ["two", "ten"])
        XCTAssertNil(files[0].downSQL)
    }

    func testMalformedDirectoriesAreErrorsNamingTheFile() throws {
        try assertMalformed(["1_a.sql": "SELECT 1;"], file: "1_a.sql", line: 0, reason: "does not follow")
        try assertMalformed(["x_a.up.sql": "SELECT 1;"], file: "x_a.up.sql", line: 0, reason: "does not follow")
        try assertMalformed(["1_a.down.sql": "SELECT 1;"], file: "1_a.down.sql", line: 0, reason: "down file without an up file")
        try assertMalformed(["1_a.up.sql": "SELECT 1;", "1_b.up.sql": "SELECT 1;"], file: "1_b.up.sql", line: 0, reason: "duplicate migration number 1")
        try assertMalformed(["1_a.up.sql": "SELECT 1;", "2_a.up.sql": "SELECT 1;"], file: "2_a.up.sql", line: 0, reason: "duplicate identifier \"a\"")
        try assertMalformed(["1_a.up.sql": "  -- only a comment\n/* and another */\n"], file: "1_a.up.sql", line: 1, reason: "no SQL statement")
        try assertMalformed(["1_a.up.sql": ""], file: "1_a.up.sql", line: 1, reason: "no SQL statement")
        try assertMalformed(["1_a.up.sql": "SELECT 1;", "1_b.down.sql": "SELECT 1;"], file: "1_b.down.sql", line: 0, reason: "names \"a\" in its up file")
        XCTAssertThrowsError(try SQLMigrationFile.load(directory: directory.appendingPathComponent("missing"))) { error in
            XCTAssertTrue("\(error)".contains("no such migrations directory"), "\(error)")
        }
    }

    func testNonUTF8FileIsAnError() throws {
        let url = try folder([:])
        try Data([0xFF, 0xFE, 0x00, 0x41]).write(to: url.appendingPathComponent("1_a.up.sql"))
        XCTAssertThrowsError(try SQLMigrationFile.load(directory: url)) { error in
            XCTAssertTrue("\(error)".contains("not UTF-8"), "\(error)")
        }
    }
}
