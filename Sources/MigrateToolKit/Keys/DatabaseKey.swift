import Foundation
import SecureStore

/// A key for a database file, with the cipher settings it goes with.
public struct DatabaseKey: Sendable, CustomStringConvertible {
    public enum Material: Sendable {
        /// A passphrase: SQLCipher derives the key with PBKDF2.
        case passphrase(SecretBytes)
        /// A raw 32-byte key.
        case raw(SecretBytes)
    }

    public var material: Material
    public var cipherSettings: CipherSettings
    /// Where the key came from, for messages: "key file keys.conf, key current".
    public var origin: String

    public init(material: Material, cipherSettings: CipherSettings = CipherSettings(), origin: String) {
        self.material = material
        self.cipherSettings = cipherSettings
        self.origin = origin
    }

    /// A passphrase, or a raw key when the text is SQLCipher's
    /// `x'<64 hex digits>'` form.
    static func fromText(_ text: [UInt8], origin: String) throws -> DatabaseKey {
        guard !text.isEmpty else { throw ToolError(.configuration, "\(origin): the key is empty") }
        if let raw = rawKey(fromBlobLiteral: text) {
            return DatabaseKey(material: .raw(SecretBytes(raw)), origin: origin)
        }
        return DatabaseKey(material: .passphrase(SecretBytes(text)), origin: origin)
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
        var config = Configuration()
        config.readonly = readonly
        config.cipherSettings = cipherSettings
        let material = self.material
        config.prepareDatabase { db in
            switch material {
            case .passphrase(let secret): try secret.withData { try db.usePassphrase($0) }
            case .raw(let secret): try secret.withData { try db.useRawKey($0) }
            }
        }
        return config
    }

    public var description: String { "key from \(origin)" }
}
