import Foundation
import SecureStore

/// What `rekey` does with the backups of a database it re-keys, so that a
/// key rotation leaves nothing the old key opens: each backup that the old
/// key opens is re-keyed too, crash-safely (a temporary file renamed over
/// it); one that the new key opens already is left alone, so that running
/// the command again finishes a rotation that was stopped. With
/// `--keep-old-backups`, they are listed instead.
struct BackupRotation {
    /// What became of one backup.
    struct Outcome: Codable, Equatable {
        enum Status: String, Codable {
            /// Re-keyed by this run.
            case rekeyed
            /// The new key opens it already.
            case alreadyRekeyed = "already-rekeyed"
            /// The old key still opens it: `--keep-old-backups`, or a failure.
            case oldKey = "old-key"
            /// Neither key opens it (damaged, or an older key): left alone.
            case unreadable
        }

        var path: String
        var status: Status
        /// Why a backup stayed on the old key, or does not open.
        var error: String?
        /// The exit code of a failure that left it on the old key.
        var exitCode: Int32?
    }

    var store: BackupStore
    var keepOld: Bool

    /// Re-keys (or, keeping them, checks) every backup of the store.
    func run(from current: DatabaseKey, to next: DatabaseKey) -> [Outcome] {
        store.entries().map { entry in
            let path = entry.path
            guard !keepOld else {
                if (try? Cipher.summary(at: path, key: current.key)) != nil { return Outcome(path: path, status: .oldKey) }
                return opensWith(next, path) ? Outcome(path: path, status: .alreadyRekeyed) : Outcome(path: path, status: .unreadable)
            }
            do {
                try Cipher.rekey(at: path, from: current.key, to: next.key)
                return Outcome(path: path, status: .rekeyed)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
                if opensWith(next, path) { return Outcome(path: path, status: .alreadyRekeyed) }
                return Outcome(path: path, status: .unreadable, error: ErrorMapping.toolError(error, file: path).message)
            } catch {
                let failure = ErrorMapping.toolError(error, file: path)
                return Outcome(path: path, status: .oldKey, error: failure.message, exitCode: failure.code.rawValue)
            }
        }
    }

    private func opensWith(_ key: DatabaseKey, _ path: String) -> Bool {
        (try? Cipher.summary(at: path, key: key.key)) != nil
    }

    /// The lines printed after the database's: a count, then each backup
    /// left on the old key or unreadable, and how to finish.
    static func text(_ outcomes: [Outcome], directory: String) -> [String] {
        guard !outcomes.isEmpty else { return [] }
        func count(_ status: Outcome.Status) -> Int { outcomes.filter { $0.status == status }.count }
        var lines = ["backups in \(directory): \(count(.rekeyed)) re-keyed, \(count(.alreadyRekeyed)) on the new key already, "
                     + "\(count(.oldKey)) on the old key, \(count(.unreadable)) unreadable"]
        for outcome in outcomes where outcome.status == .oldKey {
            lines.append("  still opens with the OLD key: \(outcome.path)" + (outcome.error.map { " (\($0))" } ?? ""))
        }
        for outcome in outcomes where outcome.status == .unreadable {
            lines.append("  opens with neither key (damaged, or an older key), left as it is: \(outcome.path)")
        }
        if count(.oldKey) > 0 {
            lines.append("  to finish the rotation: run the same rekey again (without --keep-old-backups), or remove those files")
        }
        return lines
    }

    /// The exit code of a rotation that left a backup on the old key by a
    /// failure (not by `--keep-old-backups`): the first failure's.
    static func exitCode(_ outcomes: [Outcome]) -> ToolExitCode {
        outcomes.lazy.compactMap { $0.exitCode.flatMap(ToolExitCode.init(rawValue:)) }.first ?? .success
    }
}
