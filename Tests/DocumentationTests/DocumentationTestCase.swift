import Foundation
import XCTest

/// A test case whose examples run on files in a temporary folder of its
/// own, removed after each test.
class DocumentationTestCase: XCTestCase {
    /// The test's temporary folder.
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("DocumentationTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    /// The path of a file named `name` in the test's folder.
    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
}
