import Foundation

// What SQLCipher tells about itself, its license and its logs, with GRDB's
// names.
extension Database {
    /// Where SQLCipher writes its logs (`PRAGMA cipher_log`).
    public struct SQLCipherLogTarget: Sendable {
        /// The value of the pragma: `device`, `stdout`, `stderr` or a path.
        public var rawValue: String

        /// A target from the pragma's value.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The standard output.
        public static let stdout = Self(rawValue: "stdout")
        /// The standard error.
        public static let stderr = Self(rawValue: "stderr")
        /// The system log of the device.
        public static let device = Self(rawValue: "device")
        /// A file, created by SQLCipher if needed.
        public static func file(_ path: String) -> Self { Self(rawValue: path) }
    }

    /// How much SQLCipher logs (`PRAGMA cipher_log_level`), from ``none``
    /// to ``trace``; ``debug`` and ``trace`` log a lot.
    ///
    /// ## Topics
    ///
    /// ### Levels
    ///
    /// - ``none``
    /// - ``error``
    /// - ``warn``
    /// - ``info``
    /// - ``debug``
    /// - ``trace``
    public struct SQLCipherLogLevel: RawRepresentable, Sendable {
        /// The value of the pragma, such as `DEBUG`.
        public var rawValue: String

        /// A level from the pragma's value.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// No log.
        public static let none = Self(rawValue: "NONE")
        /// Errors only.
        public static let error = Self(rawValue: "ERROR")
        /// Errors and warnings.
        public static let warn = Self(rawValue: "WARN")
        /// Errors, warnings and information.
        public static let info = Self(rawValue: "INFO")
        /// Debugging details too.
        public static let debug = Self(rawValue: "DEBUG")
        /// Everything.
        public static let trace = Self(rawValue: "TRACE")
    }

    /// `1` when SQLCipher runs in FIPS mode, `0` otherwise (`PRAGMA
    /// cipher_fips_status`); known once the connection is keyed.
    ///
    /// ```swift
    /// let fips = try dbQueue.read { db in try db.cipherFipsStatus }   // "0"
    /// ```
    public var cipherFipsStatus: String? {
        get throws { try String.fetchOne(self, sql: "PRAGMA cipher_fips_status") }
    }

    /// The crypto library SQLCipher uses, such as `openssl` on Debian
    /// (`PRAGMA cipher_provider`); known once the connection is keyed.
    public var cipherProvider: String? {
        get throws { try String.fetchOne(self, sql: "PRAGMA cipher_provider") }
    }

    /// The version of the crypto library, such as `OpenSSL 3.0.3 3 May
    /// 2022` (`PRAGMA cipher_provider_version`); known once the connection
    /// is keyed.
    public var cipherProviderVersion: String? {
        get throws { try String.fetchOne(self, sql: "PRAGMA cipher_provider_version") }
    }

    /// Gives the license code of a commercial SQLCipher edition (`PRAGMA
    /// cipher_license`), in ``Configuration/prepareDatabase(_:)``. The
    /// community edition, Debian's, ignores it.
    public func applySQLCipherLicense(_ license: String) throws {
        try execute(sql: "PRAGMA cipher_license = \(Self.quotedLiteral(license))")
    }

    /// Turns SQLCipher's logs on (`PRAGMA cipher_log` and
    /// `cipher_log_level`).
    ///
    /// ```swift
    /// try db.enableCipherLogging(logLevel: .error, target: .stderr)
    /// ```
    ///
    /// - throws: An error naming the missing feature on SQLCipher before
    ///   4.0, which has no such logs (SQLCipher 3 would ignore the pragmas).
    public func enableCipherLogging(logLevel: SQLCipherLogLevel = .debug, target: SQLCipherLogTarget = .device) throws {
        try requireCipherLogging()
        try execute(sql: "PRAGMA cipher_log = \(Self.quotedLiteral(target.rawValue))")
        try execute(sql: "PRAGMA cipher_log_level = \(Self.quotedLiteral(logLevel.rawValue.uppercased()))")
    }

    /// Turns SQLCipher's logs off (`PRAGMA cipher_log_level = NONE`).
    ///
    /// - throws: An error naming the missing feature on SQLCipher before 4.0.
    public func disableCipherLogging() throws {
        try requireCipherLogging()
        try execute(sql: "PRAGMA cipher_log_level = NONE")
    }

    private func requireCipherLogging() throws {
        try SQLCipherLibrary.line.require("PRAGMA cipher_log and cipher_log_level", since: 4)
    }

    /// `text` as an SQL string literal, for pragmas, which take no arguments.
    private static func quotedLiteral(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
