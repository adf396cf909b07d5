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

    /// The raw key SQLCipher would derive, followed by the salt: the 48
    /// bytes of `x'<key><salt>'`, in protected memory.
    static func sqlcipherKeyAndSalt(passphrase: SecretBytes, salt: Data, parameters: Parameters) -> SecretBytes? {
        guard let digest = digest(parameters.algorithm), parameters.iterations > 0, salt.count == 16 else { return nil }
        var derived = false
        let keyAndSalt = passphrase.withUnsafeBytes { pass in
            salt.withUnsafeBytes { saltBytes in
                SecretBytes(capacity: 48) { out in
                    derived = PKCS5_PBKDF2_HMAC(
                        pass.baseAddress?.assumingMemoryBound(to: CChar.self), CInt(pass.count),
                        saltBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), CInt(saltBytes.count),
                        CInt(clamping: parameters.iterations), digest, 32, out.baseAddress?.assumingMemoryBound(to: UInt8.self)) == 1
                    UnsafeMutableRawBufferPointer(rebasing: out[32..<48]).copyMemory(from: saltBytes)
                    return 48
                }
            }
        }
        return derived ? keyAndSalt : nil
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
    /// Passphrases and keys in ``SecretBytes``: locked in RAM, out of core
    /// dumps, zeroed when the pool goes.
    private var entries: [(passphrase: SecretBytes, parameters: KeyDerivation.Parameters, keyAndSalt: SecretBytes)] = []
    /// Passphrases replaced by `DatabasePool.changePassphrase`: connections
    /// that still give the old one get the new key.
    private var replacements: [(old: SecretBytes, new: SecretBytes)] = []
    private var derivations = 0
    /// The KDF that `prepareDatabase` leaves connections with, when it
    /// changes it after the key (GRDB's way: `PRAGMA kdf_iter` or
    /// `cipher_compatibility` after `usePassphrase`): keys are derived with
    /// it from then on.
    private var observedParameters: KeyDerivation.Parameters?
    private var format: CipherSettings?

    /// How many times a key was derived from a passphrase.
    var derivationCount: Int { lock.withLock { derivations } }

    /// The file format (a `cipher_compatibility` level, an iteration count)
    /// the pool's connections open the file in, once one connection found
    /// it or made the file.
    var detectedFormat: CipherSettings? { lock.withLock { format } }

    /// Remembers the format a connection found.
    func remember(format: CipherSettings) {
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

    /// The raw key and salt (48 bytes) for this passphrase and file, or nil
    /// when the salt is unknown: a new file (no salt yet), a plaintext one,
    /// or a file with a plaintext header whose salt the settings do not
    /// give. SQLCipher then derives the key itself.
    func keyAndSalt(passphrase: SecretBytes, fileSalt: () -> Data?, parameters: KeyDerivation.Parameters,
                    settings: CipherSettings) -> SecretBytes? {
        lock.withLock {
            let effective = replacement(of: passphrase) ?? passphrase
            if let entry = entries.first(where: { $0.passphrase.hasSameBytes(as: effective) && $0.parameters == parameters }) {
                return entry.keyAndSalt
            }
            let salt = settings.salt ?? ((settings.plaintextHeaderSize ?? 0) > 0 ? nil : fileSalt())
            guard let salt,
                  let keyAndSalt = KeyDerivation.sqlcipherKeyAndSalt(passphrase: effective, salt: salt, parameters: parameters)
            else { return nil }
            derivations += 1
            entries.append((effective, parameters, keyAndSalt))
            return keyAndSalt
        }
    }

    /// After a rekey: forget the old key; connections keyed with the old
    /// passphrase get the new one.
    func replace(_ old: SecretBytes, with new: SecretBytes) {
        lock.withLock {
            entries.removeAll()
            replacements.append((old, new))
        }
    }

    /// The passphrase a connection should really use.
    func effectivePassphrase(_ passphrase: SecretBytes) -> SecretBytes {
        lock.withLock { replacement(of: passphrase) ?? passphrase }
    }

    /// The latest new passphrase for `passphrase`; call it under the lock.
    private func replacement(of passphrase: SecretBytes) -> SecretBytes? {
        replacements.last { $0.old.hasSameBytes(as: passphrase) }?.new
    }
}
