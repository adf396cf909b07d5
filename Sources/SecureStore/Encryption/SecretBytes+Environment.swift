import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension SecretBytes {
    /// Takes a secret out of the environment: copies the variable's value
    /// into protected memory, overwrites the value where the environment
    /// holds it with zeros, and removes the variable.
    ///
    /// Afterwards `/proc/PID/environ` shows the variable's name followed by
    /// zeros, `getenv` and `ProcessInfo` no longer see it, and processes
    /// started later do not inherit it. Call it before anything reads the
    /// whole environment (`ProcessInfo.processInfo.environment` copies
    /// every value into strings that are never zeroed).
    ///
    /// ```swift
    /// guard let passphrase = SecretBytes.takingEnvironmentVariable("APP_DB_PASSPHRASE") else {
    ///     throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "APP_DB_PASSPHRASE is not set")
    /// }
    /// ```
    ///
    /// - returns: nil when the variable is not set.
    public static func takingEnvironmentVariable(_ name: String) -> SecretBytes? {
        guard let value = getenv(name) else { return nil }
        let length = strlen(value)
        let secret = SecretBytes(capacity: length) { buffer in
            buffer.copyMemory(from: UnsafeRawBufferPointer(start: value, count: length))
            return length
        }
        explicit_bzero(value, length)
        unsetenv(name)
        return secret
    }
}
