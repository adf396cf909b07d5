import XCTest

final class MigrateToolSkeletonTests: MigrateToolTestCase {
    func testHelpDescribesTheTool() throws {
        let output = try run(["--help"])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertTrue(output.stdout.contains("USAGE: migrate-tool"), output.stdout)
        XCTAssertTrue(output.stdout.contains("encrypted"), output.stdout)
    }

    func testVersion() throws {
        let output = try run(["--version"])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertTrue(output.stdout.contains("migrate-tool"), output.stdout)
        XCTAssertTrue(output.stdout.contains("SQLCipher 3."), output.stdout)
    }

    func testUnknownOptionIsAUsageError() throws {
        let output = try run(["--no-such-option"])
        XCTAssertEqual(output.status, 64, output.stderr)
    }
}
