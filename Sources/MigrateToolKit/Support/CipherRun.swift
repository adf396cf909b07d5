import Foundation
import SecureStore

/// What the encryption commands print with --json.
struct CipherReport: Codable {
    var file: String
    var operation: String
    var output: String
    var rowCounts: [String: Int]
    var userVersion: Int
    /// The settings the new file was written with (encrypt, rekey,
    /// upgrade, backup); nil for a plaintext output or nothing written.
    var cipherSettings: CipherSettingsReport?
    var backup: String?
    /// Set when there was nothing to do (a retry after an interrupted or
    /// finished run): "already encrypted with this key".
    var note: String?
    /// The file replaced, when `file` is a symbolic link to it.
    var replacedFile: String?
    /// `rekey`: what became of the database's backups.
    var backups: [BackupRotation.Outcome]?
    /// The folder of those backups.
    var backupDirectory: String?
    /// True when the result was opened and counted after the operation.
    var verified = false

    private enum CodingKeys: String, CodingKey {
        case file, operation, output, rowCounts, userVersion, cipherSettings, backup, note, replacedFile, backups
    }
}

/// What an encryption command's body did.
struct CipherOutcome {
    var summary: Cipher.ExportSummary?
    var backup: String?
    /// What was found or done, shown after the report ("upgraded from
    /// SQLCipher 2").
    var note: String?
    /// `rekey`: what became of the database's backups, and their folder.
    var backups: (outcomes: [BackupRotation.Outcome], directory: String)?
}

/// Thrown by a command's body when the file is already in the state asked
/// for, so that a deploy script's retry succeeds without manual steps.
struct AlreadyDone: Error {
    var summary: Cipher.ExportSummary?
    var note: String
}

/// Shared steps of the encryption commands: file checks, the lock, a
/// progress display, and a report.
enum CipherRun {
    static func checkOutputIsNew(_ output: String) throws {
        if FileManager.default.fileExists(atPath: output) {
            throw ToolError(.cannotCreate, "\(output) exists already; it is never overwritten")
        }
    }

    /// Runs `body` on `file` under the database lock, with a progress
    /// display on a terminal, and prints the report.
    static func run(
        _ operation: String, file: String, output: String, json: Bool, lockTimeout: Double,
        access: DatabaseFile.Access,
        _ body: (_ progress: @escaping Cipher.Progress) throws -> CipherOutcome
    ) throws -> ToolExitCode {
        let display = ProgressDisplay(json: json)
        defer { display.finish() }
        let report = try perform(operation, file: file, output: output, lockTimeout: lockTimeout, access: access) { fraction in
            display.show("\(operation) \(file): \(Int(fraction * 100))%")
        } body: { try body($0) }
        display.finish()
        if json { Output.json(report) } else { Output.line(report.text) }
        return BackupRotation.exitCode(report.backups ?? [])
    }

    /// Runs `body` on `file` under the database lock and returns its report;
    /// errors are tool errors that name the file.
    static func perform(
        _ operation: String, file: String, output: String, lockTimeout: Double, access: DatabaseFile.Access,
        progress: @escaping Cipher.Progress = { _ in },
        body: (_ progress: @escaping Cipher.Progress) throws -> CipherOutcome
    ) throws -> CipherReport {
        try DatabaseFile.check(file, for: access)
        let lock = try FileLock(path: file, timeout: lockTimeout)
        defer { withExtendedLifetime(lock) {} }
        let outcome: CipherOutcome
        do {
            outcome = try body(progress)
        } catch let done as AlreadyDone {
            outcome = CipherOutcome(summary: done.summary, note: done.note)
        } catch {
            throw ErrorMapping.toolError(error, file: file)
        }
        let real = output == file ? FileReplacement.resolvedPath(file) : nil
        return CipherReport(file: file, operation: operation, output: output,
                            rowCounts: outcome.summary?.rowCounts ?? [:], userVersion: outcome.summary?.userVersion ?? 0,
                            cipherSettings: outcome.summary?.cipherSettings.map(CipherSettingsReport.init),
                            backup: outcome.backup, note: outcome.note,
                            replacedFile: real == URL(fileURLWithPath: file).standardizedFileURL.path ? nil : real,
                            backups: outcome.backups?.outcomes, backupDirectory: outcome.backups?.directory,
                            verified: outcome.summary != nil)
    }
}

extension CipherReport {
    /// The line printed without --json.
    var text: String {
        let rows = rowCounts.values.reduce(0, +)
        var text = "\(operation): \(file)"
        if let replacedFile { text += " (the file \(replacedFile))" }
        if output != file { text += " -> \(output)" }
        if verified { text += " (\(rowCounts.count) table(s), \(rows) row(s), user_version \(userVersion), verified)" }
        if let cipherSettings { text += " [\(cipherSettings.text)]" }
        if let backup { text += " (backup: \(backup))" }
        if let note { text += ": \(note)" }
        if let backups, let backupDirectory {
            text += BackupRotation.text(backups, directory: backupDirectory).map { "\n" + $0 }.joined()
        }
        return text
    }
}
