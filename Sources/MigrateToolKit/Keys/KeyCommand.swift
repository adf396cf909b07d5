import Foundation
import SecureStore

/// A key printed by a command of the operator's (`pass show app/db`, `vault
/// kv get -field=key secret/app`, `sops -d key.enc`, a KMS or TPM helper):
/// run without a shell, with a timeout, its standard output read as the
/// key (one trailing newline stripped). The output is never logged; the
/// command's environment is the tool's, less the variables that held
/// another key of this run.
struct KeyCommand {
    /// The words of the command: quotes group words, as a shell would, and
    /// nothing else of a shell applies (no variables, globs or pipes).
    let arguments: [String]
    let timeout: Double
    /// Where the command was given, for messages: `--key-command`, or the
    /// key file and key.
    let label: String

    init(_ text: String, timeout: Double, label: String = "--key-command") throws {
        self.label = label
        var words: [String] = []
        var current = ""
        var quote: Character?
        var inWord = false
        for character in text {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                inWord = true
            } else if character.isWhitespace {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(character)
                inWord = true
            }
        }
        guard quote == nil else { throw ToolError(.usage, "\(label): a quote is not closed") }
        if inWord { words.append(current) }
        guard !words.isEmpty else { throw ToolError(.usage, "\(label) is empty") }
        arguments = words
        self.timeout = timeout
    }

    /// The command's output, the key's bytes, read from the pipe straight
    /// into protected memory. Variables taken out of the environment for a
    /// key of this run (see ``SecretInput``) are gone from the environment
    /// the command inherits.
    func run() throws -> SecretBytes {
        let name = arguments[0]
        guard let executable = Self.locate(name) else {
            throw ToolError(.configuration, "\(label): no executable \(name) (give a path, or put it in PATH)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = Array(arguments.dropFirst())
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw ToolError(.configuration, "\(label): cannot run \(executable): \(error.localizedDescription)")
        }
        /// The output, read on another thread so that the wait can time out.
        final class Output: @unchecked Sendable { var bytes: Result<SecretBytes, any Error>? }
        let read = Output()
        let finished = DispatchSemaphore(value: 0)
        let descriptor = output.fileHandleForReading.fileDescriptor
        let what = label
        DispatchQueue.global().async {
            read.bytes = Result { try SecretInput.read(descriptor: descriptor, what: what) }
            finished.signal()
        }
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw ToolError(.configuration, "\(label): \(name) did not finish within \(Int(timeout)) seconds")
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ToolError(.configuration, "\(label): \(name) exited with status \(process.terminationStatus)")
        }
        guard let bytes = try read.bytes?.get() else { throw ToolError(.configuration, "\(label): \(name)'s output was not read") }
        guard !bytes.isEmpty else { throw ToolError(.configuration, "\(label): \(name) printed no key") }
        return bytes
    }

    private static func locate(_ name: String) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
