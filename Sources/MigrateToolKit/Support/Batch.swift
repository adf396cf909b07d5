import Foundation

/// The outcome of a command on one database file.
struct FileResult: Codable, Sendable {
    enum Status: String, Codable, Sendable {
        case applied, rolledBack = "rolled-back", rekeyed, alreadyRekeyed = "already-rekeyed"
        case upToDate = "up-to-date", planned, failed, skipped
    }

    var file: String
    var status: Status
    /// The migrations applied or rolled back (or, in a dry run, planned).
    var steps: [String] = []
    var dryRun = false
    var backup: String?
    /// Older backups removed after the run (`--keep-backups`).
    var removedBackups: [String] = []
    /// What was found instead of work to do ("already re-keyed").
    var note: String?
    var error: String?
    var exitCode: Int32 = 0

    static func failure(_ file: String, _ error: ToolError, steps: [String] = []) -> FileResult {
        FileResult(file: file, status: .failed, steps: steps, error: error.message, exitCode: error.code.rawValue)
    }
}

/// The files of a batch counted by outcome (`rekey --json`'s `summary`).
struct BatchSummary: Codable, Sendable, Equatable {
    var files: Int
    /// Re-keyed by this run.
    var rekeyed: Int
    /// Found on the new key already (a run stopped before): left alone.
    var alreadyRekeyed: Int
    var failed: Int
    /// Not started after a failure with `--fail-fast`.
    var skipped: Int

    init(_ results: [FileResult]) {
        func count(_ status: FileResult.Status) -> Int { results.filter { $0.status == status }.count }
        files = results.count
        rekeyed = count(.rekeyed)
        alreadyRekeyed = count(.alreadyRekeyed)
        failed = count(.failed)
        skipped = count(.skipped)
    }
}

/// `rekey --json` over several files: the counts, then one result per file
/// in argument order.
struct RekeyBatchJSON: Codable, Sendable {
    var summary: BatchSummary
    var results: [FileResult]
}

/// Runs `work` on each file, `jobs` at a time, keeping the results in the
/// order of the files. With `failFast`, files not started after a failure
/// are skipped.
enum Batch {
    static func run(
        files: [String], jobs: Int, failFast: Bool,
        progress: ProgressDisplay,
        _ work: @escaping @Sendable (String) -> FileResult
    ) -> [FileResult] {
        let state = BatchState(count: files.count)
        let group = DispatchGroup()
        for _ in 0..<min(jobs, files.count) {
            DispatchQueue.global().async(group: group) {
                while let index = state.nextIndex(stopping: failFast) {
                    progress.show("[\(state.finished + 1)/\(files.count)] \(files[index])")
                    let result = work(files[index])
                    state.store(result, at: index)
                }
            }
        }
        group.wait()
        progress.finish()
        return files.indices.map { state.result(at: $0) ?? FileResult(file: files[$0], status: .skipped) }
    }

    /// Text lines: one per file, then a summary.
    static func printText(_ results: [FileResult], verb: String) {
        for result in results {
            switch result.status {
            case .failed:
                Output.line("\(result.file): FAILED (exit \(result.exitCode)) \(result.error ?? "")")
            case .skipped:
                Output.line("\(result.file): skipped (--fail-fast)")
            case .upToDate:
                Output.line("\(result.file): " + (result.note ?? "up to date"))
            case .rekeyed:
                Output.line("\(result.file): re-keyed (verified)")
            case .alreadyRekeyed:
                Output.line("\(result.file): " + (result.note ?? "already re-keyed"))
            case .planned:
                let steps = result.steps.isEmpty ? "nothing to do" : result.steps.joined(separator: ", ")
                Output.line("\(result.file): would \(verb) \(steps) (dry run, nothing changed)")
            case .applied, .rolledBack:
                var text = "\(result.file): \(result.status == .applied ? "applied" : "rolled back") \(result.steps.joined(separator: ", "))"
                if let backup = result.backup { text += " (backup: \(backup))" }
                if !result.removedBackups.isEmpty { text += "; \(result.removedBackups.count) older backup(s) removed" }
                Output.line(text)
            }
        }
        guard results.count > 1 else { return }
        let summary = BatchSummary(results)
        if verb == "rekey" {
            Output.line("\(summary.files) file(s): \(summary.rekeyed) re-keyed, \(summary.alreadyRekeyed) already re-keyed, "
                        + "\(summary.failed) failed, \(summary.skipped) skipped")
        } else {
            Output.line("\(summary.files) file(s): \(summary.files - summary.failed - summary.skipped) ok, "
                        + "\(summary.failed) failed, \(summary.skipped) skipped")
        }
    }

    /// The exit code of the first failed file, in argument order.
    static func exitCode(_ results: [FileResult]) -> ToolExitCode {
        guard let failed = results.first(where: { $0.status == .failed }) else { return .success }
        return ToolExitCode(rawValue: failed.exitCode) ?? .internalError
    }
}

/// `@unchecked Sendable`: every property is behind `lock`.
private final class BatchState: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    private var results: [Int: FileResult] = [:]
    private var failed = false
    private let count: Int

    init(count: Int) { self.count = count }

    var finished: Int { lock.withLock { results.count } }

    func nextIndex(stopping failFast: Bool) -> Int? {
        lock.withLock {
            guard next < count, !(failFast && failed) else { return nil }
            defer { next += 1 }
            return next
        }
    }

    func store(_ result: FileResult, at index: Int) {
        lock.withLock {
            results[index] = result
            if result.status == .failed { failed = true }
        }
    }

    func result(at index: Int) -> FileResult? { lock.withLock { results[index] } }
}
