import ArgumentParser
import Foundation
import Logging

/// Printing: text or JSON on stdout, errors on stderr, logs through
/// swift-log. Nothing printed here ever holds a key.
enum Output {
    static func json<T: Encodable>(_ value: T) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let data = (try? encoder.encode(value)) ?? Data("null".utf8)
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data(("error: " + text + "\n").utf8))
    }

    static func warning(_ text: String) {
        FileHandle.standardError.write(Data(("warning: " + text + "\n").utf8))
    }

    static func logger(verbose: Bool) -> Logger {
        var logger = Logger(label: ToolContext.commandName) { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = verbose ? .info : .warning
        return logger
    }

    /// Runs a command body; reports a thrown error once (text on stderr, and
    /// a JSON object on stdout with --json) and exits with its code. An
    /// error of the database names `file`, when the command has one.
    static func run(json: Bool, file: String = "", _ body: () throws -> ToolExitCode) throws {
        let code: ToolExitCode
        do {
            code = try body()
        } catch let exit as ExitCode {
            throw exit
        } catch {
            let toolError = ErrorMapping.toolError(error, file: file)
            Output.error(toolError.message)
            if json { Output.json(ErrorReport(error: toolError.message, exitCode: toolError.code.rawValue)) }
            throw ExitCode(toolError.code.rawValue)
        }
        if code != .success { throw ExitCode(code.rawValue) }
    }
}

struct ErrorReport: Codable {
    var error: String
    var exitCode: Int32
}

/// A one-line progress display on a terminal; silent otherwise.
final class ProgressDisplay: @unchecked Sendable {
    // @unchecked Sendable: all state is behind `lock`.
    private let lock = NSLock()
    private let enabled: Bool
    private var shown = false

    init(json: Bool) {
        enabled = !json && isatty(STDERR_FILENO) == 1
    }

    func show(_ text: String) {
        guard enabled else { return }
        lock.withLock {
            FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
            shown = true
        }
    }

    func finish() {
        guard enabled else { return }
        lock.withLock {
            if shown { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            shown = false
        }
    }
}
