import Foundation
import SecureStore

/// A key file: named keys, so that keys can be rotated. See keys.example.
///
/// ```
/// # comments start with #
/// [current]
/// passphrase = correct horse battery staple
/// kdf_iter = 64000
///
/// [previous]
/// raw = 2dd29ca851e7b56e4697b0e1f08507293d761a05ce4d1b628663f411a8086d99
///
/// [from-environment]
/// env = APP_DB_PASSPHRASE
/// page_size = 4096
///
/// [from-a-secret-manager]
/// command = vault kv get -field=key secret/app/db
/// command_timeout = 10
/// ```
///
/// Each key has exactly one of `passphrase`, `raw` (64 hex digits), `env`
/// (the name of an environment variable holding the passphrase) or
/// `command` (run without a shell, as `--key-command` is; its output is the
/// passphrase, or `x'<64 hex>'` for a raw key), and optionally `kdf_iter`,
/// `page_size`, `compatibility` (1 to 4: the settings of that SQLCipher
/// version) and `command_timeout` (seconds, default 30). A value may be put in double
/// quotes to keep spaces at its ends. The first key is the default.
public struct KeyFile: Sendable {
    struct Entry: Sendable {
        var name: String
        var line: Int
        /// In protected memory, as the file's bytes were read.
        var passphrase: SecretBytes?
        /// The 32 bytes of `raw`, decoded into protected memory.
        var rawKey: SecretBytes?
        var environmentVariable: String?
        var command: String?
        var commandTimeout: Double = 30
        var settings = CipherSettings()

        var sourceCount: Int {
            [passphrase != nil, rawKey != nil, environmentVariable != nil, command != nil].filter { $0 }.count
        }
    }

    let path: String
    let entries: [Entry]

    /// The names of the keys, in file order.
    public var keyNames: [String] { entries.map(\.name) }

    /// Reads a key file, refusing one that group or others can read (as ssh
    /// does with private keys). The file is read straight into protected
    /// memory (`SecretBytes`), and each key is copied from there into
    /// protected memory of its own.
    public static func load(path: String) throws -> KeyFile {
        try parse(try SecretInput.readPrivateFile(path, what: "key file"), path: path)
    }

    /// Parses key file text. Errors name the line, never a value.
    static func parse(_ bytes: [UInt8], path: String) throws -> KeyFile {
        try parse(SecretBytes(bytes), path: path)
    }

    /// Parses key file text kept in protected memory.
    static func parse(_ text: SecretBytes, path: String) throws -> KeyFile {
        try text.withUnsafeBytes { try Parser(text: $0, path: path).parse() }
    }

    /// The named key, or the first one.
    public func key(named name: String?) throws -> DatabaseKey {
        let entry: Entry
        if let name {
            guard let found = entries.first(where: { $0.name == name }) else {
                throw ToolError(.configuration,
                                "key file \(path) has no key [\(name)] (it has: \(keyNames.joined(separator: ", ")))")
            }
            entry = found
        } else {
            entry = entries[0]
        }
        let origin = "key file \(path), key [\(entry.name)]"
        var key: DatabaseKey
        if let passphrase = entry.passphrase {
            key = DatabaseKey(key: CipherKey(material: .passphrase(passphrase)), origin: origin)
        } else if let raw = entry.rawKey {
            key = DatabaseKey(key: CipherKey(material: .rawKey(raw)), origin: origin)
        } else if let variable = entry.environmentVariable {
            guard let value = SecretInput.environmentVariable(variable), !value.isEmpty else {
                throw ToolError(.configuration, "\(origin): environment variable \(variable) is not set")
            }
            key = try DatabaseKey.fromText(value, origin: origin)
        } else if let command = entry.command {
            key = try DatabaseKey.fromText(try KeyCommand(command, timeout: entry.commandTimeout, label: "\(origin): command").run(),
                                           origin: origin)
        } else {
            throw ToolError(.configuration, "\(origin) has no key material")
        }
        key.cipherSettings = entry.settings
        return key
    }
}

/// The parser of a key file's bytes, which it reads in place: a value is
/// copied only into protected memory (a passphrase or raw key) or, for the
/// settings that are not secret, into a string.
private struct Parser {
    let text: UnsafeRawBufferPointer
    let path: String

    func parse() throws -> KeyFile {
        var entries: [Entry] = []
        var lineStart = 0
        var lineNumber = 0
        while lineStart <= text.count {
            let lineEnd = text[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? text.count
            lineNumber += 1
            try read(line: trim(lineStart..<lineEnd), number: lineNumber, into: &entries)
            lineStart = lineEnd + 1
        }
        for entry in entries where entry.sourceCount == 0 {
            throw ToolError(.configuration, "key file \(path):\(entry.line): key [\(entry.name)] has no passphrase, raw, env or command")
        }
        guard !entries.isEmpty else { throw ToolError(.configuration, "key file \(path): no key in the file") }
        return KeyFile(path: path, entries: entries)
    }

    typealias Entry = KeyFile.Entry

    private func read(line: Range<Int>, number lineNumber: Int, into entries: inout [Entry]) throws {
        func fail(_ reason: String) -> ToolError {
            ToolError(.configuration, "key file \(path):\(lineNumber): \(reason)")
        }
        if line.isEmpty || text[line.lowerBound] == UInt8(ascii: "#") { return }
        if text[line.lowerBound] == UInt8(ascii: "[") {
            guard text[line.upperBound - 1] == UInt8(ascii: "]"), line.count > 2 else { throw fail("a key name is written [name]") }
            let name = string(trim(line.lowerBound + 1..<line.upperBound - 1))
            guard !name.isEmpty, !name.contains(where: { $0.isWhitespace }) else {
                throw fail("a key name cannot be empty or hold spaces")
            }
            guard !entries.contains(where: { $0.name == name }) else { throw fail("key [\(name)] is defined twice") }
            entries.append(Entry(name: name, line: lineNumber))
            return
        }
        guard let equals = text[line].firstIndex(of: UInt8(ascii: "=")) else {
            throw fail("expected `setting = value` or `[name]`")
        }
        guard !entries.isEmpty else { throw fail("a setting comes before the first [name]") }
        let setting = trim(line.lowerBound..<equals)
        let value = unquote(trim(equals + 1..<line.upperBound))
        guard !value.isEmpty else { throw fail("a setting has no value") }
        var entry = entries.removeLast()
        switch settingName(setting) {
        case "passphrase":
            entry.passphrase = SecretBytes(text[value])
        case "raw":
            guard let key = DatabaseKey.hexKey(UnsafeRawBufferPointer(rebasing: text[value])) else {
                throw fail("raw must be 64 hex digits (a 256-bit key)")
            }
            entry.rawKey = key
        case "env":
            entry.environmentVariable = string(value)
        case "command":
            let command = string(value)
            do {
                _ = try KeyCommand(command, timeout: 1, label: "command")
            } catch let error as ToolError {
                throw fail(error.message)
            }
            entry.command = command
        case "command_timeout":
            guard let seconds = Double(string(value)), seconds > 0 else {
                throw fail("command_timeout must be a positive number of seconds")
            }
            entry.commandTimeout = seconds
        case "kdf_iter":
            guard let number = Int(string(value)), number > 0 else { throw fail("kdf_iter must be a positive number") }
            entry.settings.kdfIterations = number
        case "page_size":
            guard let number = Int(string(value)), number >= 512, number <= 65536, number & (number - 1) == 0 else {
                throw fail("page_size must be a power of two from 512 to 65536")
            }
            entry.settings.pageSize = number
        case "compatibility":
            guard let number = Int(string(value)), (1...4).contains(number) else {
                throw fail("compatibility must be 1, 2, 3 or 4 (the SQLCipher version whose settings the file has)")
            }
            entry.settings.compatibility = number
        case let name:
            // Echo the name only when it looks like one: a line such as
            // `my secret = x` must not put its left side in a log.
            let shown = name.map { "\"\($0)\"" } ?? "on this line"
            throw fail("unknown setting \(shown) (expected passphrase, raw, env, command, command_timeout, kdf_iter, page_size or compatibility)")
        }
        guard entry.sourceCount <= 1 else { throw fail("key [\(entry.name)] has more than one of passphrase, raw, env and command") }
        entries.append(entry)
    }

    /// The setting's name when it looks like one (32 ASCII letters, digits
    /// or underscores at most), else nil: the left side of a mistyped line
    /// may be a secret, and is never made a string.
    private func settingName(_ range: Range<Int>) -> String? {
        guard !range.isEmpty, range.count <= 32, text[range].allSatisfy({ byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
        }) else { return nil }
        return string(range)
    }

    private func string(_ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: text[range]), as: UTF8.self)
    }

    private func trim(_ range: Range<Int>) -> Range<Int> {
        let isSpace: (UInt8) -> Bool = { $0 == 32 || $0 == 9 || $0 == 13 }
        guard let start = text[range].firstIndex(where: { !isSpace($0) }),
              let end = text[range].lastIndex(where: { !isSpace($0) }) else { return range.lowerBound..<range.lowerBound }
        return start..<end + 1
    }

    private func unquote(_ range: Range<Int>) -> Range<Int> {
        if range.count >= 2, text[range.lowerBound] == UInt8(ascii: "\""), text[range.upperBound - 1] == UInt8(ascii: "\"") {
            return range.lowerBound + 1..<range.upperBound - 1
        }
        return range
    }
}
