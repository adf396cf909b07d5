import Foundation
import SecureStore

/// A key for a database file, and where it came from (for messages).
public struct DatabaseKey: Sendable, CustomStringConvertible {
    /// The key and its cipher settings.
    public var key: CipherKey
    /// "key file keys.conf, key [current]"; never the key itself.
    public var origin: String

    /// A key, and where it came from (for messages; never its value).
    public init(key: CipherKey, origin: String) {
        self.key = key
        self.origin = origin
    }

    /// The cipher settings the key opens files with.
    public var cipherSettings: CipherSettings {
        get { key.settings }
        set { key.settings = newValue }
    }

    /// A passphrase, or a raw key when the text is SQLCipher's
    /// `x'<64 hex digits>'` form.
    static func fromText(_ text: [UInt8], origin: String) throws -> DatabaseKey {
        guard !text.isEmpty else { throw ToolError(.configuration, "\(origin): the key is empty") }
        if let raw = rawKey(fromBlobLiteral: text) {
            return DatabaseKey(key: CipherKey(material: .rawKey(SecretBytes(raw))), origin: origin)
        }
        return DatabaseKey(key: CipherKey(material: .passphrase(SecretBytes(text))), origin: origin)
    }

    /// `x'...'` with 64 hex digits, as SQLCipher spells raw keys.
    static func rawKey(fromBlobLiteral text: [UInt8]) -> [UInt8]? {
        guard text.count == 67, text[0] == UInt8(ascii: "x") || text[0] == UInt8(ascii: "X"),
              text[1] == UInt8(ascii: "'"), text[66] == UInt8(ascii: "'")
        else { return nil }
        return hexBytes(Array(text[2..<66]))
    }

    /// 64 hex digits as 32 bytes, or nil.
    static func hexBytes(_ digits: [UInt8]) -> [UInt8]? {
        guard digits.count == 64 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for pairStart in stride(from: 0, to: 64, by: 2) {
            guard let high = hexValue(digits[pairStart]), let low = hexValue(digits[pairStart + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// A configuration that keys every connection with this key.
    public func configuration(readonly: Bool = false) -> Configuration {
        key.configuration(readonly: readonly)
    }

    /// Where the key came from, never the key.
    public var description: String { "key from \(origin)" }
}
