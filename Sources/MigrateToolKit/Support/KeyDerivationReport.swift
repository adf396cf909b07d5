import SecureStore

/// How strong a file's key derivation is, for `inspect` (and its JSON):
/// the PBKDF2 hash and iterations against OWASP's guidance, or a raw key,
/// which skips the derivation.
struct KeyDerivationReport: Codable, Equatable {
    /// `weak`, `meets-guidance`, or `raw-key`.
    var verdict: String
    /// `PBKDF2_HMAC_SHA1`... as in ``CipherSettingsReport``.
    var algorithm: String
    var iterations: Int
    /// The guidance's minimum iterations for the algorithm.
    var guidance: Int
    /// What to do about a weak derivation; nil otherwise.
    var advice: String?
    /// The verdict in words: `weak: PBKDF2-HMAC-SHA1, 64,000 iterations;
    /// guidance 1,300,000; strengthen with: ...`.
    var summary: String

    /// The derivation of the settings a connection opened the file with.
    init(_ settings: CipherSettings, rawKey: Bool, database: String) {
        let strength = KeyDerivationStrength(settings)
        algorithm = "PBKDF2_HMAC_\(strength.algorithm)"
        iterations = strength.iterations
        guidance = strength.guidance
        if rawKey {
            verdict = "raw-key"
            summary = "raw key: no passphrase derivation (the file's kdf_iter \(strength.iterations) is not used)"
        } else if strength.isWeak {
            verdict = "weak"
            let advice = "strengthen with: migrate-tool rekey \(database) --new-kdf-iter \(strength.guidance) (and kdf_iter = \(strength.guidance) in the key file)"
            self.advice = advice
            summary = "\(strength); \(advice)"
        } else {
            verdict = "meets-guidance"
            summary = strength.description
        }
    }
}
