import Foundation
internal import CSQLCipher

/// Ed25519 signatures (RFC 8032), for migrate-tool's signed migration
/// directories: OpenSSL's implementation, from the `libcrypto` that
/// SQLCipher itself links (the same library as ``SHA256Digest`` and the
/// key derivation), so that SecureStore and its tool depend on no other
/// cryptography package.
///
/// Keys and signatures are the standard raw encodings: a 32-byte private
/// key (the seed), a 32-byte public key, a 64-byte signature. Keys written
/// by earlier releases (with swift-crypto's `Curve25519.Signing`, the same
/// encodings) stay valid.
///
/// ```swift
/// let key = try Ed25519.PrivateKey()
/// let signature = try key.signature(for: Data("migrations.sum".utf8))
/// key.publicKey.isValidSignature(signature, for: Data("migrations.sum".utf8))   // true
/// ```
///
/// ## Topics
///
/// ### Keys
///
/// - ``PrivateKey``
/// - ``PublicKey``
package enum Ed25519 {
    /// A private key, kept in protected memory (``SecretBytes``).
    package struct PrivateKey: Sendable {
        private let seed: SecretBytes
        /// The matching public key.
        package let publicKey: PublicKey

        /// A new random key, from OpenSSL's generator.
        package init() throws {
            let seed = SecretBytes(capacity: 32) { buffer in
                RAND_bytes(buffer.bindMemory(to: UInt8.self).baseAddress, 32) == 1 ? 32 : 0
            }
            guard seed.count == 32 else { throw Ed25519.failure("cannot draw a random key") }
            try self.init(seed: seed)
        }

        /// The key of 32 raw bytes; nil for another length.
        package init?(rawRepresentation: Data) {
            guard rawRepresentation.count == 32 else { return nil }
            try? self.init(seed: SecretBytes(rawRepresentation))
        }

        private init(seed: SecretBytes) throws {
            self.seed = seed
            let key = try Ed25519.privateKey(seed)
            defer { EVP_PKEY_free(key) }
            var raw = [UInt8](repeating: 0, count: 32)
            var length = 32
            guard EVP_PKEY_get_raw_public_key(key, &raw, &length) == 1, length == 32 else {
                throw Ed25519.failure("cannot derive the public key")
            }
            publicKey = PublicKey(raw: raw)
        }

        /// The 32 raw bytes, for a key file.
        package var rawRepresentation: Data {
            seed.withUnsafeBytes { Data($0) }
        }

        /// The 64-byte signature of `message`.
        package func signature(for message: Data) throws -> Data {
            let key = try Ed25519.privateKey(seed)
            defer { EVP_PKEY_free(key) }
            guard let context = EVP_MD_CTX_new() else { throw Ed25519.failure("cannot sign") }
            defer { EVP_MD_CTX_free(context) }
            var signature = [UInt8](repeating: 0, count: 64)
            var length = 64
            let signed = message.withUnsafeBytes { bytes in
                EVP_DigestSignInit(context, nil, nil, nil, key) == 1
                    && EVP_DigestSign(context, &signature, &length, bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count) == 1
            }
            guard signed, length == 64 else { throw Ed25519.failure("cannot sign") }
            return Data(signature)
        }
    }

    /// A public key.
    package struct PublicKey: Sendable, Hashable {
        private let raw: [UInt8]

        fileprivate init(raw: [UInt8]) { self.raw = raw }

        /// The key of 32 raw bytes; nil for another length, or bytes that
        /// are no Ed25519 key.
        package init?(rawRepresentation: Data) {
            guard rawRepresentation.count == 32 else { return nil }
            raw = Array(rawRepresentation)
            guard let key = evpKey() else { return nil }
            EVP_PKEY_free(key)
        }

        /// The 32 raw bytes.
        package var rawRepresentation: Data { Data(raw) }

        /// True when `signature` is this key's signature of `message`.
        package func isValidSignature(_ signature: Data, for message: Data) -> Bool {
            guard signature.count == 64, let key = evpKey() else { return false }
            defer { EVP_PKEY_free(key) }
            guard let context = EVP_MD_CTX_new() else { return false }
            defer { EVP_MD_CTX_free(context) }
            return signature.withUnsafeBytes { signatureBytes in
                message.withUnsafeBytes { messageBytes in
                    EVP_DigestVerifyInit(context, nil, nil, nil, key) == 1
                        && EVP_DigestVerify(context, signatureBytes.bindMemory(to: UInt8.self).baseAddress, 64,
                                            messageBytes.bindMemory(to: UInt8.self).baseAddress, messageBytes.count) == 1
                }
            }
        }

        private func evpKey() -> OpaquePointer? {
            EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, raw, raw.count)
        }
    }

    /// OpenSSL's key for a 32-byte seed; the caller frees it.
    private static func privateKey(_ seed: SecretBytes) throws -> OpaquePointer {
        let key = seed.withUnsafeBytes { bytes in
            EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count)
        }
        guard let key else { throw failure("the private key is not an Ed25519 key") }
        return key
    }

    private static func failure(_ what: String) -> DatabaseError {
        DatabaseError(resultCode: .SQLITE_ERROR, message: "Ed25519: \(what) (OpenSSL)")
    }
}
