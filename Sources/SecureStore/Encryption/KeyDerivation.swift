import Foundation
internal import CSQLCipher

/// SQLCipher 3's key derivation, done once per pool instead of once per
/// connection: PBKDF2-HMAC-SHA1(passphrase, file salt, kdf_iter) → 32 bytes.
/// A connection keyed with `x'<key><salt>'` skips the derivation.
enum KeyDerivation {
    static func sqlcipherKey(passphrase: Data, salt: Data, iterations: Int) -> Data? {
        var key = Data(count: 32)
        let ok = key.withUnsafeMutableBytes { out in
            passphrase.withUnsafeBytes { pass in
                salt.withUnsafeBytes { saltBytes in
                    PKCS5_PBKDF2_HMAC_SHA1(
                        pass.baseAddress?.assumingMemoryBound(to: CChar.self), CInt(pass.count),
                        saltBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), CInt(saltBytes.count),
                        CInt(iterations), 32, out.baseAddress?.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
        return ok == 1 ? key : nil
    }
}

/// Keys derived for the connections of one pool, by passphrase.
///
/// `@unchecked Sendable`: all state is behind `lock`. The derived keys are
/// as sensitive as the passphrases they come from, and live as long as the
/// pool, in this process only.
final class DerivedKeyCache: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(passphrase: Data, iterations: Int, keyAndSalt: Data)] = []
    /// Passphrases replaced by `DatabasePool.changePassphrase`: connections
    /// that still give the old one get the new key.
    private var replacements: [(old: Data, new: Data)] = []
    private(set) var derivationCount = 0
    /// The `kdf_iter` that `prepareDatabase` sets after the key, when it
    /// sets one (GRDB's way: `PRAGMA kdf_iter` after `usePassphrase`): keys
    /// are derived with it from then on.
    private var observedIterations: Int?

    /// The iterations to derive keys with: those `prepareDatabase` was seen
    /// to set, or `configured`.
    func iterations(configured: Int) -> Int {
        lock.withLock { observedIterations ?? configured }
    }

    /// Remembers the `kdf_iter` a connection ended its `prepareDatabase` with.
    func observe(iterations: Int) {
        lock.withLock { observedIterations = iterations }
    }

    deinit {
        for index in entries.indices {
            entries[index].passphrase.resetBytes(in: 0..<entries[index].passphrase.count)
            entries[index].keyAndSalt.resetBytes(in: 0..<entries[index].keyAndSalt.count)
        }
    }

    /// The raw key and salt (48 bytes) for this passphrase and file, or nil
    /// when the file has no salt yet (new) or is not encrypted.
    func keyAndSalt(passphrase: Data, path: String, iterations: Int) -> Data? {
        lock.withLock {
            let effective = replacements.last { $0.old == passphrase }?.new ?? passphrase
            if let entry = entries.first(where: { $0.passphrase == effective && $0.iterations == iterations }) {
                return entry.keyAndSalt
            }
            guard let salt = Self.salt(path: path),
                  let key = KeyDerivation.sqlcipherKey(passphrase: effective, salt: salt, iterations: iterations)
            else { return nil }
            derivationCount += 1
            entries.append((effective, iterations, key + salt))
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

    /// The first 16 bytes of an encrypted file: SQLCipher's salt.
    private static func salt(path: String) -> Data? {
        guard path != ":memory:", !path.isEmpty, let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let salt = try? handle.read(upToCount: 16), salt.count == 16,
              salt != Data("SQLite format 3\0".utf8)
        else { return nil }
        return salt
    }
}
