import ArgumentParser
import Foundation
import SecureStore

/// The new key of `rekey`: the same sources as the current key, prefixed
/// with `new-`.
public struct NewKeyOptions: ParsableArguments {
    @Option(name: .customLong("new-key-file"), help: "Read the new key from this key file.")
    var keyFile: String?

    @Option(name: .customLong("new-key-name"), help: "The new key's name in its key file (default: the first).")
    var keyName: String?

    @Option(name: .customLong("new-key-env"), help: "Read the new key from this environment variable.")
    var keyEnvironmentVariable: String?

    @Option(name: .customLong("new-key-fd"), help: "Read the new key from this open file descriptor.")
    var keyFileDescriptor: Int32?

    @Option(name: .customLong("new-key-command"), help: ArgumentHelp(
        "Run this command (no shell) and read the new key from its output.", valueName: "command"))
    var keyCommand: String?

    @Option(name: .customLong("new-kdf-iter"), help: ArgumentHelp(
        "kdf_iter for the re-encrypted file (default: the new key's, else the file's).", valueName: "n"))
    var kdfIterations: Int?

    @Option(name: .customLong("new-page-size"), help: ArgumentHelp(
        "cipher_page_size for the re-encrypted file (default: the new key's, else the file's).", valueName: "bytes"))
    var pageSize: Int?

    /// The options with their defaults, for ArgumentParser to fill.
    public init() {}

    /// Checks the options together, before the command runs.
    public func validate() throws {
        let sources = [keyFile != nil, keyEnvironmentVariable != nil, keyFileDescriptor != nil, keyCommand != nil]
        guard sources.filter({ $0 }).count <= 1 else {
            throw ValidationError("Give at most one of --new-key-file, --new-key-env, --new-key-fd and --new-key-command.")
        }
        if keyName != nil && keyFile == nil { throw ValidationError("--new-key-name goes with --new-key-file.") }
        if let kdfIterations, kdfIterations <= 0 { throw ValidationError("--new-kdf-iter must be a positive number.") }
        if let pageSize, !(512...65536).contains(pageSize) || pageSize & (pageSize - 1) != 0 {
            throw ValidationError("--new-page-size must be a power of two from 512 to 65536.")
        }
    }

    /// The new key. Without a new key source, the current key with the new
    /// settings (a settings-only change).
    func resolve(current: DatabaseKey) throws -> DatabaseKey {
        let sources = KeySources(file: keyFile, name: keyName, environmentVariable: keyEnvironmentVariable,
                                 standardInput: false, descriptor: keyFileDescriptor,
                                 command: try keyCommand.map { try KeyCommand($0, timeout: 30) },
                                 settings: CipherSettings(pageSize: pageSize, kdfIterations: kdfIterations))
        if var key = try sources.resolve() {
            key.origin = "new " + key.origin
            return key
        }
        guard kdfIterations != nil || pageSize != nil else {
            throw ToolError(.usage, "rekey needs a new key (--new-key-file, --new-key-env, --new-key-fd, --new-key-command) or new settings (--new-kdf-iter, --new-page-size)")
        }
        var key = current
        if let kdfIterations { key.cipherSettings.kdfIterations = kdfIterations }
        if let pageSize { key.cipherSettings.pageSize = pageSize }
        return key
    }
}
