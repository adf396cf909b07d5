import Foundation
import SecureStore

/// The detached signature of a migrations directory, `migrations.sum.sig`:
/// an Ed25519 signature over the bytes of its `migrations.sum`, which holds
/// a checksum of every migration file. A host that trusts the signer's
/// public key knows that the files are the ones the signer released.
enum MigrationSignature {
    static let fileName = MigrationIntegrityFile.fileName + ".sig"
    private static let tag = "signature ed25519 "

    /// Signs the directory's `migrations.sum` (crash-safe write); returns
    /// the key id.
    static func sign(directory: URL, with key: Ed25519.PrivateKey) throws -> String {
        let sum = directory.appendingPathComponent(MigrationIntegrityFile.fileName).path
        guard let data = FileManager.default.contents(atPath: sum) else {
            throw ToolError(.ioError, "\(sum) cannot be read")
        }
        let id = SigningKey.id(of: key.publicKey)
        let signature = try key.signature(for: data)
        let text = """
            # Written by `migrate-tool hash --sign`: an Ed25519 signature over \(MigrationIntegrityFile.fileName) by key \(id).
            \(tag)\(id) \(signature.base64EncodedString())

            """
        try PrivateFile.replace(directory.appendingPathComponent(fileName).path, with: Data(text.utf8))
        return id
    }

    /// Why a directory is not signed by a trusted key; nil when it is.
    static func problem(directory: URL, trusted: [String: Ed25519.PublicKey]) -> String? {
        let folder = directory.path
        guard let sum = FileManager.default.contents(atPath: directory.appendingPathComponent(MigrationIntegrityFile.fileName).path) else {
            return "\(folder) is not signed: it has no \(MigrationIntegrityFile.fileName) (run `hash \(folder) --sign KEY` where migrations are released)"
        }
        guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(fileName).path) else {
            return "\(folder) is not signed: it has no \(fileName) (run `hash \(folder) --sign KEY` where migrations are released)"
        }
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(tag) }
        let fields = line.map { $0.dropFirst(tag.count).split(separator: " ").map(String.init) } ?? []
        guard fields.count == 2, let signature = Data(base64Encoded: fields[1]) else {
            return "\(folder): \(fileName) is not a signature written by `hash --sign`"
        }
        let signer = fields[0]
        guard let key = trusted[signer] else {
            return "\(folder) is signed by key \(signer), which is not trusted (trusted: \(trusted.keys.sorted().joined(separator: ", ")))"
        }
        guard key.isValidSignature(signature, for: sum) else {
            return "\(folder): the signature of key \(signer) does not match \(MigrationIntegrityFile.fileName): it changed after it was signed"
        }
        return nil
    }
}
