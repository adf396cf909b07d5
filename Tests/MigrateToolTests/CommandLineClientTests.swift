import Foundation
import TestSupport
import XCTest

/// The runner of real executables that the tests use: it kills a child that
/// outlives its timeout, and it leaves no descriptor open behind it.
final class CommandLineClientTests: XCTestCase {
    private func openDescriptorCount() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
    }

    func testAChildThatOutlivesItsTimeoutIsKilled() throws {
        let result = try CommandLineClient.run("/bin/sleep", ["60"], timeout: 1)
        XCTAssertEqual(result.status, -1)
        XCTAssertTrue(result.stderr.contains("killed after 1 s"), result.stderr)
    }

    /// Each run opens six pipe descriptors. They used to stay open as long
    /// as the run's watchdog was scheduled (300 s): over a suite, more than
    /// a thousand, on which Foundation's `Process.run()` of Swift 6.3.1
    /// crashed.
    func testRunsLeaveNoDescriptorOpen() throws {
        _ = try CommandLineClient.run("/bin/true", [])
        let before = try openDescriptorCount()
        for _ in 0..<20 {
            XCTAssertEqual(try CommandLineClient.run("/bin/true", []).status, 0)
        }
        // A descriptor or two may come and go with the runtime's own threads.
        XCTAssertLessThanOrEqual(try openDescriptorCount(), before + 2)
    }
}
