import Foundation
internal import CSQLCipher

/// SQLCipher's key derivation, done once per pool instead of once per
/// connection: PBKDF2-HMAC-<algorithm>(passphrase, file salt, kdf_iter) →
/// 32 bytes, with the algorithm and count the connection really uses
/// (SHA-1 and 64,000 for SQLCipher 3 files, SHA-512 and 256,000 for
/// SQLCipher 4's defaults). A connection keyed with `x'<key><salt>'` skips
/// the derivation.
enum KeyDerivation {
    /// A KDF: PBKDF2 with this hash and this many iterations.
    struct Parameters: Hashable, Sendable, CustomStringConvertible {
        var algorithm: CipherSettings.Algorithm
        var iterations: Int

        /// `PBKDF2-HMAC-SHA512, 256000 iterations`.
        var description: String { "PBKDF2-HMAC-\(algorithm), \(iterations) iterations" }
    }

    static func sqlcipherKey(passphrase: Data, salt: Data, parameters: Parameters) -> Data? {
        guard let digest = digest(parameters.algorithm), parameters.iterations > 0 else { return nil }
        var key = Data(count: 32)
        let ok = key.withUnsafeMutableBytes { out in
            passphrase.withUnsafeBytes { pass in
                salt.withUnsafeBytes { saltBytes in
                    PKCS5_PBKDF2_HMAC(
                        pass.baseAddress?.assumingMemoryBound(to: CChar.self), CInt(pass.count),
                        saltBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), CInt(saltBytes.count),
                        CInt(clamping: parameters.iterations), digest, 32, out.baseAddress?.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
        return ok == 1 ? key : nil
    }

    private static func digest(_ algorithm: CipherSettings.Algorithm) -> OpaquePointer? {
        switch algorithm {
        case .sha1: return EVP_sha1()
        case .sha256: return EVP_sha256()
        case .sha512: return EVP_sha512()
        }
    }
}

/// Keys derived for the connections of one pool, by passphrase and KDF,
/// and the file format its writer found.
///
/// `@unchecked Sendable`: all state is behind `lock`. The derived keys are
/// as sensitive as the passphrases they come from, and live as long as the
/// pool, in this process only.
final class DerivedKeyCache: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(passphrase: Data, parameters: KeyDerivation.Parameters, keyAndSalt: Data)] = []
    /// Passphrases replaced by `DatabasePool.changePassphrase`: connections
    /// that still give the old one get the new key.
    private var replacements: [(old: Data, new: Data)] = []
    private var derivations = 0
    /// The KDF that `prepareDatabase` leaves connections with, when it
    /// changes it after the key (GRDB's way: `PRAGMA kdf_iter` or
    /// `cipher_compatibility` after `usePassphrase`): keys are derived with
    /// it from then on.
    private var observedParameters: KeyDerivation.Parameters?
    private var format: Int?

    /// How many times a key was derived from a passphrase.
    var derivationCount: Int { lock.withLock { derivations } }

    /// The older file format (a `cipher_compatibility` level) the pool's
    /// connections open the file in, once one connection found it.
    var detectedFormat: Int? { lock.withLock { format } }

    /// Remembers the format a connection found.
    func remember(format: Int) {
        lock.withLock { self.format = format }
    }

    /// The KDF to derive keys with: the one `prepareDatabase` was seen to
    /// leave connections with, or `configured`.
    func keyDerivation(configured: KeyDerivation.Parameters) -> KeyDerivation.Parameters {
        lock.withLock { observedParameters ?? configured }
    }

    /// Remembers the KDF a connection ended its `prepareDatabase` with.
    func observe(_ parameters: KeyDerivation.Parameters) {
        lock.withLock { observedParameters = parameters }
    }

    deinit {
        for index in entries.indices {
            entries[index].passphrase.resetBytes(in: 0..<entries[index].passphrase.count)
            entries[index].keyAndSalt.resetBytes(in: 0..<entries[index].keyAndSalt.count)
        }
    }

    /// The raw key and salt (48 bytes) for this passphrase and file, or nil
    /// when the salt is unknown: a new file (no salt yet), a plaintext one,
    /// or a file with a plaintext header whose salt the settings do not
    /// give. SQLCipher then derives the key itself.
    func keyAndSalt(passphrase: Data, fileSalt: () -> Data?, parameters: KeyDerivation.Parameters,
                    settings: CipherSettings) -> Data? {
        lock.withLock {
            let effective = replacements.last { $0.old == passphrase }?.new ?? passphrase
            if let entry = entries.first(where: { $0.passphrase == effective && $0.parameters == parameters }) {
                return entry.keyAndSalt
            }
            let salt = settings.salt ?? ((settings.plaintextHeaderSize ?? 0) > 0 ? nil : fileSalt())
            guard let salt,
                  let key = KeyDerivation.sqlcipherKey(passphrase: effective, salt: salt, parameters: parameters)
            else { return nil }
            derivations += 1
            entries.append((effective, parameters, key + salt))
            return key + salt
        }
    }

    /// After a rekey: forget the old key; connections keyed with the old
    /// passphrase get the new one.
    func replace(_ old: Data, with new: Data) {
        lock.withLock {
            entries.removeAll()
            replacements.append((old, new))
        }
    }

    /// The passphrase a connection should really use.
    func effectivePassphrase(_ passphrase: Data) -> Data {
        lock.withLock { replacements.last { $0.old == passphrase }?.new ?? passphrase }
    }
}
