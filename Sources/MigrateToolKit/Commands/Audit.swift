import ArgumentParser
import Foundation
import SecureStore

extension MigrateToolCommand {
    /// `audit DB...`: what an operator should fix about encrypted files:
    /// weak key derivation, loose modes, plaintext copies, leftovers,
    /// backups the key does not open, history drift. Read-only.
    struct Audit: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Audit databases and what lies beside them: key derivation, file modes, plaintext copies, leftovers, backups, history.",
            discussion: """
                One line per finding: severity, code, file, what to do. Warnings: weak-kdf, loose-mode, \
                loose-directory, leftover-temporary, stray-plaintext, history-drift (with --migrations). Errors: \
                plaintext-database, wrong-key, plaintext-copy, backup-plaintext, backup-wrong-key. A quoted \
                pattern ('/var/lib/app/*.db') is expanded by the tool. Nothing is changed.
                """)

        @Argument(help: "The database files, or quoted patterns.")
        var databases: [String]

        @Option(name: .customLong("fail-on"), help: "Exit 9 for findings of this severity or worse: warning or error.")
        var failOn: AuditFinding.Severity = .error

        @OptionGroup var backups: BackupDirectoryOptions
        @OptionGroup var migrations: MigrationsOptions
        @OptionGroup var key: KeyOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            try Output.run(json: output.json) {
                let files = try Self.expand(databases)
                let key = try key.resolve()
                let migrator = try migrations.migrator(required: false)
                var findings: [AuditFinding] = []
                for file in files {
                    try DatabaseFile.check(file, for: .read)
                    var audit = DatabaseAudit(database: file, key: key, migrator: migrator, backups: backups.store(for: file))
                    audit.run()
                    // What databases share (their folder, a plaintext file
                    // in it) is reported once, for the first.
                    findings += audit.findings.filter { found in
                        !findings.contains { $0.code == found.code && $0.path == found.path }
                    }
                }
                let failing = findings.contains { $0.severity >= failOn }
                if output.json {
                    Output.json(AuditReport(failed: failing, files: files, findings: findings))
                } else {
                    findings.forEach { Output.line($0.description) }
                    let errors = findings.filter { $0.severity == .error }.count
                    Output.line("\(files.count) database(s): \(errors) errors, \(findings.count - errors) warnings")
                }
                return failing ? .lintFindings : .success
            }
        }

        /// The paths, with patterns (`*`, `?`, `[`) expanded in order; a
        /// pattern that matches nothing is an error.
        static func expand(_ arguments: [String]) throws -> [String] {
            var files: [String] = []
            for argument in arguments {
                guard argument.contains(where: { "*?[".contains($0) }) else {
                    files.append(argument)
                    continue
                }
                var matches = glob_t()
                defer { globfree(&matches) }
                guard glob(argument, 0, nil, &matches) == 0 else {
                    throw ToolError(.noSuchFile, "\(argument): no file matches")
                }
                for index in 0..<Int(matches.gl_pathc) {
                    if let path = matches.gl_pathv[index] { files.append(String(cString: path)) }
                }
            }
            return files
        }
    }
}
