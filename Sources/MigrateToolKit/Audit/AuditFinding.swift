import SecureStore

/// One thing `audit` found about a database file or what lies beside it.
///
/// Codes: `weak-kdf`, `loose-mode`, `loose-directory`, `leftover-temporary`,
/// `history-drift`, `stray-plaintext` (warnings); `plaintext-database`,
/// `wrong-key`, `plaintext-copy`, `backup-plaintext`, `backup-wrong-key`
/// (errors).
struct AuditFinding: Codable, Equatable, CustomStringConvertible {
    typealias Severity = MigrationLintFinding.Severity

    var severity: Severity
    var code: String
    /// The file (or directory) the finding is about.
    var path: String
    /// What is wrong, and what to do; never a key.
    var message: String

    /// `error   plaintext-copy      /var/lib/app/app.db.plaintext: ...`.
    var description: String {
        "\(severity.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0))"
            + "\(code.padding(toLength: 20, withPad: " ", startingAt: 0))\(path): \(message)"
    }
}

/// The JSON of `audit`.
struct AuditReport: Codable {
    /// True when a finding is at or above `--fail-on`.
    var failed: Bool
    /// The databases audited, in argument order (globs expanded).
    var files: [String]
    var findings: [AuditFinding]
}
