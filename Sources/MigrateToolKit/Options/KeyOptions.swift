import ArgumentParser
import Foundation
import SecureStore

/// Where the key comes from. No option takes the key itself: a key on the
/// command line would show in `ps` and shell history.
public struct KeyOptions: ParsableArguments {
    @Option(name: .customLong("key-file"), help: "Read the key from this key file (see keys.example). It must be private (chmod 600).")
    var keyFile: String?

    @Option(name: .customLong("key-name"), help: "The key to use from the key file (default: the first one).")
    var keyName: String?

    @Option(name: .customLong("key-env"), help: "Read the key from this environment variable.")
    var keyEnvironmentVariable: String?

    @Flag(name: .customLong("key-stdin"), help: "Read the key from the first line of standard input.")
    var keyFromStandardInput = false

    @Option(name: .customLong("key-fd"), help: "Read the key from this open file descriptor (until end of file).")
    var keyFileDescriptor: Int32?

    @Option(name: .customLong("key-command"), help: ArgumentHelp(
        "Run this command (no shell; quotes group words) and read the key from its output, e.g. \"pass show app/db\".",
        valueName: "command"))
    var keyCommand: String?

    @Option(name: .customLong("key-command-timeout"), help: ArgumentHelp("Seconds --key-command may take.", valueName: "seconds"))
    var keyCommandTimeout: Double = 30

    @Option(name: .customLong("kdf-iter"), help: ArgumentHelp(
        "SQLCipher kdf_iter the file was (or is to be) made with (default: \(LibraryDefaults.kdfIterations)).", valueName: "n"))
    var kdfIterations: Int?

    @Option(name: .customLong("page-size"), help: ArgumentHelp(
        "SQLCipher cipher_page_size the file was made with (default: \(LibraryDefaults.pageSize)).", valueName: "bytes"))
    var pageSize: Int?

    @Option(name: .customLong("cipher-compatibility"), help: ArgumentHelp(
        "Open the file with the settings of SQLCipher 1, 2, 3 or 4 (\(LibraryDefaults.compatibilityHelp)).", valueName: "n"))
    var compatibility: Int?

    /// The options with their defaults, for ArgumentParser to fill.
    public init() {}

    /// Checks the options together, before the command runs.
    public func validate() throws {
        let sources = [keyFile != nil, keyEnvironmentVariable != nil, keyFromStandardInput, keyFileDescriptor != nil, keyCommand != nil]
        guard sources.filter({ $0 }).count <= 1 else {
            throw ValidationError("Give at most one of --key-file, --key-env, --key-stdin, --key-fd and --key-command.")
        }
        guard keyCommandTimeout > 0 else { throw ValidationError("--key-command-timeout must be more than zero seconds.") }
        if keyName != nil && keyFile == nil {
            throw ValidationError("--key-name goes with --key-file.")
        }
        if let kdfIterations, kdfIterations <= 0 {
            throw ValidationError("--kdf-iter must be a positive number.")
        }
        if let pageSize, !(512...65536).contains(pageSize) || pageSize & (pageSize - 1) != 0 {
            throw ValidationError("--page-size must be a power of two from 512 to 65536.")
        }
        if let compatibility, !(1...4).contains(compatibility) {
            throw ValidationError("--cipher-compatibility must be 1, 2, 3 or 4.")
        }
    }

    var hasKeySource: Bool {
        keyFile != nil || keyEnvironmentVariable != nil || keyFromStandardInput || keyFileDescriptor != nil || keyCommand != nil
    }

    /// The key file's other keys (all but the one ``resolve()`` reads),
    /// with the options' cipher settings, for telling which key opens a
    /// file; keys read by a command are left out (their command is not
    /// run for that). Empty without `--key-file`.
    func otherKeysInFile() throws -> [DatabaseKey] {
        guard let keyFile else { return [] }
        let file = try KeyFile.load(path: keyFile)
        let chosen = keyName ?? file.keyNames.first
        return try file.entries.filter { $0.name != chosen && $0.command == nil }.map { entry in
            var key = try file.key(named: entry.name)
            key.cipherSettings = CipherSettings(pageSize: pageSize, kdfIterations: kdfIterations, compatibility: compatibility)
                .resolved(over: key.cipherSettings)
            return key
        }
    }

    /// Reads the key once; nil when no key source was given (a plaintext
    /// database). Options override the key file's cipher settings. An app
    /// that takes its key as the tool does (a service's own command line,
    /// see `Examples/notes-service`) calls it too:
    ///
    /// ```swift
    /// @OptionGroup var key: KeyOptions
    /// // ...
    /// guard let databaseKey = try key.resolve() else { throw ValidationError("Give the key.") }
    /// let pool = try DatabasePool(path: path, configuration: databaseKey.key.configuration())
    /// ```
    public func resolve() throws -> DatabaseKey? {
        try KeySources(file: keyFile, name: keyName, environmentVariable: keyEnvironmentVariable,
                       standardInput: keyFromStandardInput, descriptor: keyFileDescriptor,
                       command: try keyCommand.map { try KeyCommand($0, timeout: keyCommandTimeout) },
                       settings: CipherSettings(pageSize: pageSize, kdfIterations: kdfIterations,
                                                compatibility: compatibility)).resolve()
    }
}

/// One set of key sources: the current key's or, for rekey, the new key's.
struct KeySources {
    var file: String?
    var name: String?
    var environmentVariable: String?
    var standardInput: Bool
    var descriptor: Int32?
    var command: KeyCommand?
    /// Settings given on the command line, over the key file's.
    var settings = CipherSettings()

    var isEmpty: Bool { file == nil && environmentVariable == nil && !standardInput && descriptor == nil && command == nil }

    func resolve() throws -> DatabaseKey? {
        var key: DatabaseKey
        if let file {
            key = try KeyFile.load(path: file).key(named: name)
        } else if let variable = environmentVariable {
            guard let value = SecretInput.environmentVariable(variable), !value.isEmpty else {
                throw ToolError(.configuration, "environment variable \(variable) is not set or empty")
            }
            key = try DatabaseKey.fromText(value, origin: "environment variable \(variable)")
        } else if standardInput {
            let line = try SecretInput.read(descriptor: STDIN_FILENO, what: "standard input", line: true)
            guard !line.isEmpty else { throw ToolError(.configuration, "standard input is empty: no key") }
            key = try DatabaseKey.fromText(line, origin: "standard input")
        } else if let descriptor {
            let bytes = SecretInput.withoutTrailingNewline(
                try SecretInput.read(descriptor: descriptor, what: "--key-fd \(descriptor)"), all: true)
            key = try DatabaseKey.fromText(bytes, origin: "file descriptor \(descriptor)")
        } else if let command {
            key = try DatabaseKey.fromText(try command.run(), origin: "the output of \(command.arguments[0])")
        } else {
            return nil
        }
        key.cipherSettings = settings.resolved(over: key.cipherSettings)
        return key
    }
}

/// The defaults of the SQLCipher library the tool runs on, for help texts:
/// SQLCipher 4's on a 4.x library, SQLCipher 3's on 3.x.
enum LibraryDefaults {
    static var kdfIterations: String {
        let settings = CipherSettings.libraryDefaults
        let newFiles = CipherSettings.newFileDefaults
        let kdf = "\(settings.kdfIterations ?? 0), PBKDF2-HMAC-\(settings.kdfAlgorithm ?? .sha1)"
        guard newFiles.kdfIterations != settings.kdfIterations else { return kdf + ", on SQLCipher \(SQLCipherLibrary.version)" }
        return "\(newFiles.kdfIterations ?? 0) for new files with a passphrase; existing files are tried with \(kdf), "
            + "older formats, then \(newFiles.kdfIterations ?? 0), on SQLCipher \(SQLCipherLibrary.version)"
    }

    static var pageSize: String { "\(CipherSettings.libraryDefaults.pageSize ?? 0) on SQLCipher \(SQLCipherLibrary.version)" }

    static var compatibilityHelp: String {
        "default: SQLCipher \(SQLCipherLibrary.majorVersion)'s settings, then older formats until one reads"
    }
}
