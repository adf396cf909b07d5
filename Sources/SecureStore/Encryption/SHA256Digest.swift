internal import CSQLCipher

/// SHA-256, for migration checksums, schema fingerprints and integrity
/// files: OpenSSL's implementation, from the `libcrypto` that SQLCipher
/// itself links.
///
/// The digests are those of any SHA-256 (`sha256sum` prints the same): the
/// checksums written by earlier releases stay valid, which a test checks
/// against a database recorded by release 0.1.
package enum SHA256Digest {
    /// The digest of `bytes`, as 64 lowercase hex digits.
    package static func hex(of bytes: some Collection<UInt8>) -> String {
        let hexDigits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in digest(of: bytes) {
            text.append(hexDigits[Int(byte >> 4)])
            text.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The digest of a string's UTF-8 bytes, as hex.
    package static func hex(of string: String) -> String {
        hex(of: Array(string.utf8))
    }

    /// The 32-byte digest of `bytes`.
    package static func digest(of bytes: some Collection<UInt8>) -> [UInt8] {
        let message = Array(bytes)
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let status = message.withUnsafeBytes { input in
            digest.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, EVP_sha256(), nil)
            }
        }
        // EVP_Digest fails only when OpenSSL cannot allocate its context.
        precondition(status == 1 && length == 32, "OpenSSL's SHA-256 failed")
        return Array(digest.prefix(32))
    }
}
