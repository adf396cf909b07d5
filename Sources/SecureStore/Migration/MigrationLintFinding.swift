/// A finding of ``DatabaseMigrator/lint()``: what, how bad, and where.
///
/// ```swift
/// for finding in try migrator.lint() where finding.severity == .error {
///     print(finding)   // 0004_Cleanup.up.sql:3: error drop-table: migration "Cleanup" drops table product
/// }
/// ```
///
/// A finding is silenced by a comment on the line before its statement:
/// `-- lint: allow drop-table` (the code), or `-- lint: allow destructive`
/// for `drop-table`, `drop-column` and `unfiltered-write`.
public struct MigrationLintFinding: Sendable, Codable, Hashable, CustomStringConvertible {
    /// How bad a finding is.
    public enum Severity: String, Sendable, Codable, Hashable, Comparable, CaseIterable {
        /// Worth a look: data may be lost on purpose.
        case warning
        /// The migration breaks something: it fails, cannot be undone, or breaks its transaction.
        case error

        /// Warnings before errors.
        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs == .warning && rhs == .error }
    }

    /// The stable code: `drop-table`, `drop-column`, `unfiltered-write`,
    /// `savepoint`, `not-null-without-default`, `breaks-transaction`, `fails`,
    /// `missing-down`, `down-not-restoring`, `case-mismatch`.
    public var code: String
    /// How bad it is.
    public var severity: Severity
    /// The migration.
    public var identifier: String
    /// The file, for SQL migrations.
    public var path: String?
    /// The 1-based line of the statement (0: the whole migration).
    public var line: Int
    /// What was found, in words.
    public var message: String

    /// `file:line: severity code: message`.
    public var description: String {
        "\(path ?? identifier):\(line): \(severity.rawValue) \(code): \(message)"
    }

    /// The codes that `-- lint: allow destructive` silences.
    static let destructiveCodes: Set<String> = ["drop-table", "drop-column", "unfiltered-write"]
}
