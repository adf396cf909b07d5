/// How a file's passphrase derivation compares with current guidance.
///
/// OWASP's Password Storage Cheat Sheet (2023) gives the PBKDF2 iteration
/// counts that keep a stolen file as slow to attack as its other advice:
/// 1,300,000 for PBKDF2-HMAC-SHA1 (the only KDF of SQLCipher 3),
/// 600,000 for SHA-256 and 210,000 for SHA-512 (SQLCipher 4's default is
/// 256,000). A file keyed with a raw key has no derivation to weigh: its
/// strength is the key's.
///
/// ```swift
/// let strength = KeyDerivationStrength(try db.cipherSettings!)
/// if strength.isWeak { print(strength) }
/// // weak: PBKDF2-HMAC-SHA1, 64,000 iterations; guidance 1,300,000
/// ```
///
/// ## Topics
///
/// ### Assessing Settings
///
/// - ``init(_:)``
/// - ``guidance(for:)``
/// - ``recommendedIterations(for:)``
/// - ``isWeak``
public struct KeyDerivationStrength: Hashable, Sendable, CustomStringConvertible {
    /// The hash of PBKDF2.
    public var algorithm: CipherSettings.Algorithm
    /// The file's iteration count.
    public var iterations: Int
    /// The guidance's minimum for ``algorithm``.
    public var guidance: Int

    /// The derivation of these settings, resolved over the library's
    /// defaults (what `kdf_iter` and `cipher_kdf_algorithm` were left
    /// unset as).
    public init(_ settings: CipherSettings) {
        let resolved = settings.resolved()
        algorithm = resolved.kdfAlgorithm ?? .sha1
        iterations = resolved.kdfIterations ?? 0
        guidance = Self.guidance(for: algorithm)
    }

    /// OWASP's minimum PBKDF2 iterations for a hash.
    public static func guidance(for algorithm: CipherSettings.Algorithm) -> Int {
        switch algorithm {
        case .sha1: return 1_300_000
        case .sha256: return 600_000
        case .sha512: return 210_000
        }
    }

    /// The iteration count SecureStore gives new files: the guidance,
    /// or SQLCipher 4's default 256,000 for SHA-512 (above its guidance).
    ///
    /// ```swift
    /// KeyDerivationStrength.recommendedIterations(for: .sha1)   // 1_300_000
    /// ```
    public static func recommendedIterations(for algorithm: CipherSettings.Algorithm) -> Int {
        algorithm == .sha512 ? 256_000 : guidance(for: algorithm)
    }

    /// True below the guidance.
    public var isWeak: Bool { iterations < guidance }

    /// `weak: PBKDF2-HMAC-SHA1, 64,000 iterations; guidance 1,300,000`, or
    /// `meets the guidance: PBKDF2-HMAC-SHA512, 256,000 iterations
    /// (guidance 210,000)`.
    public var description: String {
        let kdf = "PBKDF2-HMAC-\(algorithm), \(Self.grouped(iterations)) iterations"
        return isWeak ? "weak: \(kdf); guidance \(Self.grouped(guidance))"
            : "meets the guidance: \(kdf) (guidance \(Self.grouped(guidance)))"
    }

    /// `1300000` as `1,300,000`, whatever the locale.
    static func grouped(_ number: Int) -> String {
        let digits = Array(String(number.magnitude))
        var groups: [String] = []
        var end = digits.count
        while end > 0 {
            groups.insert(String(digits[max(0, end - 3)..<end]), at: 0)
            end -= 3
        }
        return (number < 0 ? "-" : "") + groups.joined(separator: ",")
    }
}
