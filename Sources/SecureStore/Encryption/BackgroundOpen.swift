import Foundation

/// A connection opened on another thread, for work that the open can
/// overlap: an export opens its new file with the new key while it still
/// writes it, so that SQLCipher's key derivation (PBKDF2, most of the cost
/// of an open) runs beside the export instead of after it.
///
/// `@unchecked Sendable`: `result` is written once, on the opening thread,
/// before `opened` is signalled, and read only after waiting for it.
final class BackgroundOpen: @unchecked Sendable {
    private let opened = DispatchSemaphore(value: 0)
    private var result: Result<Database, any Error>?
    private var taken = false

    /// Starts opening `path` with `configuration` on a new thread.
    init(path: String, configuration: Configuration) {
        Thread.detachNewThread { [self] in
            result = Result { try Database(path: path, configuration: configuration) }
            opened.signal()
        }
    }

    /// Waits for the open, and returns the connection or throws its error.
    /// The caller closes it.
    func database() throws -> Database {
        opened.wait()
        opened.signal()
        taken = true
        return try result!.get()
    }

    /// Waits for the open, and closes the connection unless ``database()``
    /// handed it out: nothing is left open on a file about to be removed.
    func discard() {
        opened.wait()
        opened.signal()
        if !taken, case .success(let db) = result { try? db.close() }
    }
}
