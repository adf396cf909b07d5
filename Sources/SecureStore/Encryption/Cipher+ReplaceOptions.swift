import Foundation

extension Cipher {
    /// How an operation that replaces a database file (``Cipher/rekey(at:from:to:replacing:progress:)``,
    /// ``Cipher/encrypt(plaintextAt:to:key:replacing:progress:)`` in place,
    /// ``Cipher/upgrade(at:key:newSettings:replacing:progress:)``) treats those who
    /// have the file open.
    ///
    /// A replacement never happens under a connection: while a
    /// ``DatabaseQueue``, a ``DatabasePool`` or a snapshot of this process,
    /// or another process (a SecureStore app, the `sqlcipher` shell, any
    /// SQLite client), has the file open, it throws
    /// ``ResultCode/SECURESTORE_BUSY_IN_USE``, naming them, and changes
    /// nothing. It replaces the file a symbolic link names, and refuses a
    /// file with other hard links (``ResultCode/SECURESTORE_CANTOPEN_HARD_LINKS``).
    ///
    /// ```swift
    /// try dbPool.close()
    /// try Cipher.rekey(at: path, from: oldKey, to: newKey,
    ///                  replacing: Cipher.ReplaceOptions(waitingForClose: 30))
    /// ```
    public struct ReplaceOptions: Sendable, Hashable {
        /// Seconds to wait for the connections and processes that have the
        /// file open to close it, before the replacement is refused. 0 (the
        /// default) refuses at once.
        public var waitingForClose: TimeInterval
        /// Keeps the replaced file under this name: a hard link to it,
        /// made just before the new file takes its place (migrate-tool's
        /// `encrypt --keep-plaintext`). Nil (the default): the old file
        /// is gone with the replacement.
        public var keepingReplacedAt: String?

        /// Options with the given waiting time and kept file.
        public init(waitingForClose: TimeInterval = 0, keepingReplacedAt: String? = nil) {
            self.waitingForClose = waitingForClose
            self.keepingReplacedAt = keepingReplacedAt
        }
    }
}
