import Foundation

/// Ends the test process when one test runs longer than it may: a test that
/// waits forever for something that never comes fails, with its name, and
/// the run goes on to report it, instead of hanging CI.
///
/// The allowance is `SECURESTORE_TEST_TIMEOUT` seconds (default 600),
/// far above the slowest test (the crash harness's, about a minute).
public final class TestWatchdog: @unchecked Sendable {
    // @unchecked Sendable: `item` is set in init and only cancelled later.
    private let item: DispatchWorkItem

    /// Starts watching the test named `name`.
    public init(name: String) {
        let seconds = Double(ProcessInfo.processInfo.environment["SECURESTORE_TEST_TIMEOUT"] ?? "") ?? 600
        item = DispatchWorkItem {
            let message = "error: \(name) : TestWatchdog: the test is still running after \(Int(seconds)) s; it hangs. Stopping the test process.\n"
            FileHandle.standardError.write(Data(message.utf8))
            FileHandle.standardOutput.write(Data(message.utf8))
            exit(70)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: item)
    }

    /// The test ended.
    public func cancel() {
        item.cancel()
    }
}
