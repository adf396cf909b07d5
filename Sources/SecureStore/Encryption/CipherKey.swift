import Foundation

/// A database key and the cipher settings it goes with.
///
/// ```swift
/// let key = CipherKey(passphrase: "secret")
/// let dbQueue = try DatabaseQueue(path: path, configuration: key.configuration())
/// ```
public struct CipherKey: Sendable, CustomStringConvertible {
    /// What the key is made of.
    public enum Material: Sendable {
        /// A passphrase: SQLCipher derives the key with PBKDF2.
        case passphrase(SecretBytes)
        /// A raw 256-bit key (32 bytes), or 48 bytes: key and salt.
        case rawKey(SecretBytes)
    }

    /// The passphrase or the raw key.
    public var material: Material
    /// Settings the file was (or will be) made with.
    public var settings: CipherSettings

    /// A key of this material and these cipher settings.
    public init(material: Material, settings: CipherSettings = CipherSettings()) {
        self.material = material
        self.settings = settings
    }

    /// A passphrase, derived with PBKDF2 by SQLCipher.
    public init(passphrase: String, settings: CipherSettings = CipherSettings()) {
        self.init(material: .passphrase(SecretBytes(passphrase.utf8)), settings: settings)
    }

    /// A raw 256-bit key (32 bytes), used as it is.
    public init(rawKey: Data, settings: CipherSettings = CipherSettings()) {
        self.init(material: .rawKey(SecretBytes(rawKey)), settings: settings)
    }

    /// True for a passphrase, which SQLCipher derives a key from; false
    /// for a raw key (also one spelled `x'<hex>'` as a passphrase).
    var derivesKey: Bool {
        guard case .passphrase(let secret) = material else { return false }
        return !secret.isRawKeyText
    }

    /// Keys a connection: call it from `prepareDatabase`.
    public func apply(to db: Database) throws {
        switch material {
        case .passphrase(let secret): try db.usePassphrase(secret)
        case .rawKey(let secret): try db.useRawKey(secret)
        }
    }

    /// A configuration whose connections use this key and settings.
    public func configuration(readonly: Bool = false) -> Configuration {
        var config = Configuration()
        config.readonly = readonly
        config.cipherSettings = settings
        let key = self
        config.prepareDatabase { db in try key.apply(to: db) }
        return config
    }

    /// The key as SQLCipher's `ATTACH ... KEY` reads it: the passphrase
    /// bytes, or `x'<hex>'` for a raw key.
    func attachKeyText() throws -> SecretBytes {
        switch material {
        case .passphrase(let secret):
            return secret
        case .rawKey(let secret):
            return try Database.rawKeyText(secret)
        }
    }

    /// The settings, never the key.
    public var description: String { "<key: \(settings)>" }
}
