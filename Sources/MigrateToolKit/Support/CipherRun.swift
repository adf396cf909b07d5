import Foundation
import SecureStore

/// What the encryption commands print with --json.
struct CipherReport: Codable {
    var file: String
    var operation: String
    var output: String
    var rowCounts: [String: Int]
    var userVersion: Int
    var backup: String?
    /// Set when there was nothing to do (a retry after an interrupted or
    /// finished run): "already encrypted with this key".
    var note: String?
}

/// What an encryption command's body did.
struct CipherOutcome {
    var summary: Cipher.ExportSummary?
    var backup: String?
    /// What was found or done, shown after the report ("upgraded from
    /// SQLCipher 2").
    var note: String?
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
    /// display on a terminal.
    static func run(
        _ operation: String, file: String, output: String, json: Bool, lockTimeout: Double,
        access: DatabaseFile.Access,
        _ body: (_ progress: @escaping Cipher.Progress) throws -> CipherOutcome
    ) throws -> ToolExitCode {
        try DatabaseFile.check(file, for: access)
        let lock = try FileLock(path: file, timeout: lockTimeout)
        defer { withExtendedLifetime(lock) {} }
        let display = ProgressDisplay(json: json)
        defer { display.finish() }
        let outcome: CipherOutcome
        do {
            outcome = try body { fraction in display.show("\(operation) \(file): \(Int(fraction * 100))%") }
        } catch let done as AlreadyDone {
            outcome = CipherOutcome(summary: done.summary, note: done.note)
        } catch {
            throw ErrorMapping.toolError(error, file: file)
        }
        display.finish()
        let (summary, backup, note) = (outcome.summary, outcome.backup, outcome.note)
        let report = CipherReport(file: file, operation: operation, output: output,
                                  rowCounts: summary?.rowCounts ?? [:], userVersion: summary?.userVersion ?? 0,
                                  backup: backup, note: note)
        if json {
            Output.json(report)
        } else {
            let rows = report.rowCounts.values.reduce(0, +)
            var text = "\(operation): \(file)"
            if output != file { text += " -> \(output)" }
            if summary != nil { text += " (\(report.rowCounts.count) table(s), \(rows) row(s), user_version \(report.userVersion), verified)" }
            if let backup { text += " (backup: \(backup))" }
            if let note { text += ": \(note)" }
            Output.line(text)
        }
        return .success
    }
}
