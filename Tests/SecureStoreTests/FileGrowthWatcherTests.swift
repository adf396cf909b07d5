import Foundation
@testable import SecureStore
import TestSupport
import XCTest

/// The watcher that an export's progress report and its page cache advice
/// follow the new file with, on a real file.
final class FileGrowthWatcherTests: SecureStoreTestCase {
    func testTheHandlerSeesTheFileGrowAndNothingWhileItIsMissing() throws {
        let file = path("growing.db")
        let seen = Recorder()
        let watcher = FileGrowthWatcher(path: file, every: .milliseconds(20)) { seen.record($0) }
        defer { watcher.stop() }
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertEqual(seen.sizes, [], "no call while the file does not exist")

        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data(count: 1000)))
        try waitUntil { seen.sizes.contains(1000) }
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: file))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(count: 4000))
        try handle.close()
        try waitUntil { seen.sizes.contains(5000) }
        XCTAssertEqual(seen.sizes.filter { $0 != 1000 && $0 != 5000 }, [], "only the file's sizes: \(seen.sizes)")
    }

    func testStopWaitsForARunningCallAndNoneFollows() throws {
        let file = path("copy.db")
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data(count: 10)))
        let seen = Recorder()
        let watcher = FileGrowthWatcher(path: file, every: .milliseconds(10)) { size in
            seen.begin()
            Thread.sleep(forTimeInterval: 0.3)
            seen.record(size)
        }
        try waitUntil { seen.begun > 0 }
        watcher.stop()
        let callsAtStop = seen.sizes.count
        XCTAssertEqual(seen.begun, callsAtStop, "stop() returned while a call was running")
        watcher.stop()
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(seen.begun, callsAtStop, "no call after stop()")
        XCTAssertEqual(seen.sizes.count, callsAtStop, "no call after stop()")
    }

    private func waitUntil(_ condition: () -> Bool) throws {
        let deadline = Date() + 10
        while !condition() {
            guard Date() < deadline else { return XCTFail("timed out") }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    private final class Recorder: @unchecked Sendable {
        private let lock = NSLock()
        private var started = 0
        private var recorded: [Int] = []
        func begin() { lock.withLock { started += 1 } }
        func record(_ size: Int) { lock.withLock { recorded.append(size) } }
        var begun: Int { lock.withLock { started } }
        var sizes: [Int] { lock.withLock { recorded } }
    }
}
