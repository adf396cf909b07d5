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
        var passphrase: [UInt8]?
        var rawHex: [UInt8]?
        var environmentVariable: String?
        var command: String?
        var commandTimeout: Double = 30
        var settings = CipherSettings()

        var sourceCount: Int {
            [passphrase != nil, rawHex != nil, environmentVariable != nil, command != nil].filter { $0 }.count
        }
    }

    let path: String
    let entries: [Entry]

    /// The names of the keys, in file order.
    public var keyNames: [String] { entries.map(\.name) }

    /// Reads a key file, refusing one that group or others can read (as ssh
    /// does with private keys).
    public static func load(path: String) throws -> KeyFile {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw ToolError(.configuration, "key file \(path): no such file")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw ToolError(.configuration, "key file \(path): not a regular file")
        }
        let loosePermissions = info.st_mode & 0o077
        if loosePermissions != 0 {
            let mode = String(info.st_mode & 0o777, radix: 8)
            throw ToolError(.configuration,
                            "key file \(path) is readable by group or others (mode \(mode)); it must be private: run chmod 600 \(path)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ToolError(.configuration, "key file \(path): cannot be read")
        }
        var bytes = [UInt8](data)
        defer { for index in bytes.indices { bytes[index] = 0 } }
        return try parse(bytes, path: path)
    }

    /// Parses key file text. Errors name the line, never a value.
    static func parse(_ bytes: [UInt8], path: String) throws -> KeyFile {
        var entries: [Entry] = []
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        for (index, rawLine) in lines.enumerated() {
            let lineNumber = index + 1
            let line = trim(Array(rawLine))
            func fail(_ reason: String) -> ToolError {
                ToolError(.configuration, "key file \(path):\(lineNumber): \(reason)")
            }
            if line.isEmpty || line.first == UInt8(ascii: "#") { continue }
            if line.first == UInt8(ascii: "[") {
                guard line.last == UInt8(ascii: "]"), line.count > 2 else { throw fail("a key name is written [name]") }
                let name = String(decoding: trim(Array(line.dropFirst().dropLast())), as: UTF8.self)
                guard !name.isEmpty, !name.contains(where: { $0.isWhitespace }) else {
                    throw fail("a key name cannot be empty or hold spaces")
                }
                guard !entries.contains(where: { $0.name == name }) else { throw fail("key [\(name)] is defined twice") }
                entries.append(Entry(name: name, line: lineNumber))
                continue
            }
            guard let equals = line.firstIndex(of: UInt8(ascii: "=")) else {
                throw fail("expected `setting = value` or `[name]`")
            }
            guard !entries.isEmpty else { throw fail("a setting comes before the first [name]") }
            let setting = String(decoding: trim(Array(line[..<equals])), as: UTF8.self)
            let value = unquote(trim(Array(line[(equals + 1)...])))
            guard !value.isEmpty else { throw fail("a setting has no value") }
            var entry = entries.removeLast()
            switch setting {
            case "passphrase":
                entry.passphrase = value
            case "raw":
                guard DatabaseKey.hexBytes(value) != nil else { throw fail("raw must be 64 hex digits (a 256-bit key)") }
                entry.rawHex = value
            case "env":
                entry.environmentVariable = String(decoding: value, as: UTF8.self)
            case "command":
                let text = String(decoding: value, as: UTF8.self)
                do {
                    _ = try KeyCommand(text, timeout: 1, label: "command")
                } catch let error as ToolError {
                    throw fail(error.message)
                }
                entry.command = text
            case "command_timeout":
                guard let seconds = Double(String(decoding: value, as: UTF8.self)), seconds > 0 else {
                    throw fail("command_timeout must be a positive number of seconds")
                }
                entry.commandTimeout = seconds
            case "kdf_iter":
                guard let number = Int(String(decoding: value, as: UTF8.self)), number > 0 else {
                    throw fail("kdf_iter must be a positive number")
                }
                entry.settings.kdfIterations = number
            case "page_size":
                guard let number = Int(String(decoding: value, as: UTF8.self)), number >= 512, number <= 65536,
                      number & (number - 1) == 0
                else { throw fail("page_size must be a power of two from 512 to 65536") }
                entry.settings.pageSize = number
            case "compatibility":
                guard let number = Int(String(decoding: value, as: UTF8.self)), (1...4).contains(number) else {
                    throw fail("compatibility must be 1, 2, 3 or 4 (the SQLCipher version whose settings the file has)")
                }
                entry.settings.compatibility = number
            default:
                // Echo the name only when it looks like one: a line such as
                // `my secret = x` must not put its left side in a log.
                let looksLikeAName = setting.count <= 32 && setting.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
                let shown = looksLikeAName ? "\"\(setting)\"" : "on this line"
                throw fail("unknown setting \(shown) (expected passphrase, raw, env, command, command_timeout, kdf_iter, page_size or compatibility)")
            }
            guard entry.sourceCount <= 1 else { throw fail("key [\(entry.name)] has more than one of passphrase, raw, env and command") }
            entries.append(entry)
        }
        for entry in entries where entry.sourceCount == 0 {
            throw ToolError(.configuration, "key file \(path):\(entry.line): key [\(entry.name)] has no passphrase, raw, env or command")
        }
        guard !entries.isEmpty else { throw ToolError(.configuration, "key file \(path): no key in the file") }
        return KeyFile(path: path, entries: entries)
    }

    /// The named key, or the first one.
    public func key(named name: String?, environment: [String: String]) throws -> DatabaseKey {
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
            key = DatabaseKey(key: CipherKey(material: .passphrase(SecretBytes(passphrase))), origin: origin)
        } else if let rawHex = entry.rawHex, let raw = DatabaseKey.hexBytes(rawHex) {
            key = DatabaseKey(key: CipherKey(material: .rawKey(SecretBytes(raw))), origin: origin)
        } else if let variable = entry.environmentVariable {
            guard let value = environment[variable], !value.isEmpty else {
                throw ToolError(.configuration, "\(origin): environment variable \(variable) is not set")
            }
            key = try DatabaseKey.fromText(Array(value.utf8), origin: origin)
        } else if let command = entry.command {
            var bytes = try KeyCommand(command, timeout: entry.commandTimeout, label: "\(origin): command").run()
            defer { for index in bytes.indices { bytes[index] = 0 } }
            key = try DatabaseKey.fromText(bytes, origin: origin)
        } else {
            throw ToolError(.configuration, "\(origin) has no key material")
        }
        key.cipherSettings = entry.settings
        return key
    }

    private static func trim(_ bytes: [UInt8]) -> [UInt8] {
        let isSpace: (UInt8) -> Bool = { $0 == 32 || $0 == 9 || $0 == 13 }
        guard let start = bytes.firstIndex(where: { !isSpace($0) }),
              let end = bytes.lastIndex(where: { !isSpace($0) }) else { return [] }
        return Array(bytes[start...end])
    }

    private static func unquote(_ bytes: [UInt8]) -> [UInt8] {
        if bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\"") {
            return Array(bytes.dropFirst().dropLast())
        }
        return bytes
    }
}
