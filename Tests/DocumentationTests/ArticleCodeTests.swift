import Foundation
import SecureStore
import XCTest

/// The articles of SecureStore.docc show code that compiles and runs: every
/// ```swift block of an article appears, line for line (indentation aside),
/// in one of this folder's example files, which the tests below run on
/// encrypted files.
final class ArticleCodeTests: XCTestCase {
    private static let testsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    private static let catalog = testsFolder.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/SecureStore/SecureStore.docc")

    private static func normalized(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    /// The ```swift blocks of a Markdown file.
    static func swiftBlocks(in markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
            } else if current != nil, trimmed == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    func testEveryArticleBlockIsCompiledHere() throws {
        let examples = try FileManager.default.contentsOfDirectory(atPath: Self.testsFolder.path)
            .filter { $0.hasSuffix("Examples.swift") }
            .map { try Self.normalized(String(contentsOf: Self.testsFolder.appendingPathComponent($0), encoding: .utf8)) }
        XCTAssertGreaterThanOrEqual(examples.count, 5)
        let articles = try FileManager.default.contentsOfDirectory(atPath: Self.catalog.path).filter { $0.hasSuffix(".md") }
        XCTAssertGreaterThanOrEqual(articles.count, 6, "the landing page and five articles")
        var checked = 0
        for article in articles {
            let text = try String(contentsOf: Self.catalog.appendingPathComponent(article), encoding: .utf8)
            for block in Self.swiftBlocks(in: text) {
                let lines = Self.normalized(block)
                let found = examples.contains { source in
                    source.indices.contains { start in
                        start + lines.count <= source.count && Array(source[start..<(start + lines.count)]) == lines
                    }
                }
                XCTAssertTrue(found, "\(article): this block is not in Tests/DocumentationTests/*Examples.swift:\n\(block)")
                checked += 1
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 12)
    }

    func testTheBlockFinderSeesBlocks() {
        let blocks = Self.swiftBlocks(in: "text\n```swift\nlet a = 1\n```\n```sh\nls\n```\n")
        XCTAssertEqual(blocks, ["let a = 1"])
    }
}
