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

    /// True for a raw key, which skips the key derivation.
    var isRawKey: Bool {
        if case .rawKey = key.material { return true }
        return false
    }

    /// The cipher settings the key opens files with.
    public var cipherSettings: CipherSettings {
        get { key.settings }
        set { key.settings = newValue }
    }

    /// A passphrase, or a raw key when the text is SQLCipher's
    /// `x'<64 hex digits>'` form. The text stays in its protected memory
    /// (a passphrase), or is decoded into new protected memory (a raw key).
    static func fromText(_ text: SecretBytes, origin: String) throws -> DatabaseKey {
        guard !text.isEmpty else { throw ToolError(.configuration, "\(origin): the key is empty") }
        if let raw = text.withUnsafeBytes({ rawKey(fromBlobLiteral: $0) }) {
            return DatabaseKey(key: CipherKey(material: .rawKey(raw)), origin: origin)
        }
        return DatabaseKey(key: CipherKey(material: .passphrase(text)), origin: origin)
    }

    /// `x'...'` with 64 hex digits, as SQLCipher spells raw keys, decoded
    /// into protected memory.
    static func rawKey(fromBlobLiteral text: UnsafeRawBufferPointer) -> SecretBytes? {
        guard text.count == 67, text[0] == UInt8(ascii: "x") || text[0] == UInt8(ascii: "X"),
              text[1] == UInt8(ascii: "'"), text[66] == UInt8(ascii: "'")
        else { return nil }
        return hexKey(UnsafeRawBufferPointer(rebasing: text[2..<66]))
    }

    /// 64 hex digits as a 32-byte key in protected memory, or nil.
    static func hexKey(_ digits: UnsafeRawBufferPointer) -> SecretBytes? {
        guard digits.count == 64 else { return nil }
        var valid = true
        let key = SecretBytes(capacity: 32) { bytes in
            for index in 0..<32 {
                guard let high = hexValue(digits[2 * index]), let low = hexValue(digits[2 * index + 1]) else {
                    valid = false
                    return 0
                }
                bytes[index] = high << 4 | low
            }
            return 32
        }
        return valid ? key : nil
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
    /// On SQLCipher 4, with `cipher_memory_security` on: SQLCipher wipes
    /// the memory it frees (on SQLCipher 3 it always does).
    public func configuration(readonly: Bool = false) -> Configuration {
        var configuration = key.configuration(readonly: readonly)
        configuration.cipherMemorySecurity = SQLCipherLibrary.majorVersion >= 4
        return configuration
    }

    /// Where the key came from, never the key.
    public var description: String { "key from \(origin)" }
}
