import Foundation
import SecureStore

/// Reads key material straight into `SecretBytes`: from a descriptor, a
/// pipe, or the environment, with no copy in ordinary memory.
enum SecretInput {
    /// The most a key source may hold: a passphrase, a raw key, or a key
    /// file.
    static let capacity = 64 * 1024

    /// Everything `descriptor` gives until end of file (or, with
    /// `line`, until the first newline, read one byte at a time so that
    /// nothing after it is consumed); one trailing newline (and a carriage
    /// return before it) left out.
    static func read(descriptor: Int32, what: String, line: Bool = false) throws -> SecretBytes {
        var failure: Int32?
        var overflow = false
        let bytes = SecretBytes(capacity: capacity) { buffer in
            var count = 0
            while count < buffer.count {
                let want = line ? 1 : buffer.count - count
                let got = Foundation.read(descriptor, buffer.baseAddress! + count, want)
                if got < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return 0
                }
                if got == 0 { return count }
                count += got
                if line, buffer[count - 1] == UInt8(ascii: "\n") { return count }
            }
            overflow = true
            return 0
        }
        if let failure { throw ToolError(.configuration, "\(what): cannot read (\(String(cString: strerror(failure))))") }
        if overflow { throw ToolError(.configuration, "\(what): more than \(capacity) bytes, which is no key") }
        return withoutTrailingNewline(bytes)
    }

    /// The contents of a file that holds a secret (a key file, a signing
    /// key), refusing anything but a regular file that only its owner can
    /// read (as ssh does with private keys). `what` names it in errors.
    static func readPrivateFile(_ path: String, what: String) throws -> SecretBytes {
        // O_NONBLOCK: opening a FIFO must not wait for a writer (it is
        // refused below, as anything but a regular file is).
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            if errno == ENOENT { throw ToolError(.configuration, "\(what) \(path): no such file") }
            throw ToolError(.configuration, "\(what) \(path): cannot be read (\(String(cString: strerror(errno))))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw ToolError(.configuration, "\(what) \(path): not a regular file")
        }
        if info.st_mode & 0o077 != 0 {
            let mode = String(info.st_mode & 0o777, radix: 8)
            throw ToolError(.configuration,
                            "\(what) \(path) is readable by group or others (mode \(mode)); it must be private: run chmod 600 \(path)")
        }
        return try read(descriptor: descriptor, what: "\(what) \(path)")
    }

    /// The bytes less one trailing `\n` and a `\r` before it, or any
    /// trailing newlines with `all`, in new protected memory.
    static func withoutTrailingNewline(_ bytes: SecretBytes, all: Bool = false) -> SecretBytes {
        bytes.withUnsafeBytes { buffer in
            var end = buffer.count
            repeat {
                let before = end
                if end > 0, buffer[end - 1] == UInt8(ascii: "\n") { end -= 1 }
                if end > 0, buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                if end == before { break }
            } while all
            guard end < buffer.count else { return bytes }
            return SecretBytes(buffer[0..<end])
        }
    }

    /// Secrets taken out of the environment, by variable name: a variable
    /// is read once, then removed (see `SecretBytes.takingEnvironmentVariable(_:)`),
    /// and a second reader of the same run gets the same secret.
    nonisolated(unsafe) private static var taken: [String: SecretBytes] = [:]
    private static let lock = NSLock()

    /// The value of an environment variable, taken out of the environment.
    static func environmentVariable(_ name: String) -> SecretBytes? {
        lock.withLock {
            if let secret = taken[name] { return secret }
            let secret = SecretBytes.takingEnvironmentVariable(name)
            taken[name] = secret
            return secret
        }
    }
}
