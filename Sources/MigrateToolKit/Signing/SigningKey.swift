import Foundation
import SecureStore

/// The Ed25519 key pair that signs migration directories: a private key
/// file (`NAME.key`, 0600, kept by whoever releases migrations, e.g. CI)
/// and a public key file (`NAME.pub`, given to hosts with `--trusted-key`).
///
/// Both are one line of text after comments: `private-key ed25519 <base64>`
/// and `public-key ed25519 <base64> <name>`. A key is named by its id: the
/// first 16 hex digits of SHA-256 of the raw public key.
enum SigningKey {
    static let privateTag = "private-key ed25519 "
    static let publicTag = "public-key ed25519 "

    /// The id of a public key, as signatures and messages name it.
    static func id(of key: Ed25519.PublicKey) -> String {
        String(SHA256Digest.hex(of: key.rawRepresentation).prefix(16))
    }

    /// Writes a new key pair; neither file may exist. Returns the key id.
    static func generate(privatePath: String, publicPath: String, name: String) throws -> String {
        for path in [privatePath, publicPath] where FileManager.default.fileExists(atPath: path) {
            throw ToolError(.cannotCreate, "\(path) exists already; keygen never replaces a key (remove it, or choose another name)")
        }
        let key: Ed25519.PrivateKey
        do {
            key = try Ed25519.PrivateKey()
        } catch {
            throw ToolError(.internalError, "cannot make a signing key: \(error)")
        }
        let id = id(of: key.publicKey)
        let privateText = """
            # migrate-tool signing key \(id) (Ed25519, PRIVATE): it signs migration directories \
            (hash --sign). Keep it secret, in CI's secret store; never commit it.
            \(privateTag)\(key.rawRepresentation.base64EncodedString())

            """
        let publicText = """
            # migrate-tool signing key \(id) (Ed25519, public): hosts trust it with --trusted-key.
            \(publicTag)\(key.publicKey.rawRepresentation.base64EncodedString()) \(name)

            """
        try writeNew(privatePath, privateText)
        do {
            try writeNew(publicPath, publicText)
        } catch {
            unlink(privatePath)
            throw error
        }
        return id
    }

    /// Reads a private key file: a regular file that only its owner can
    /// read, as key files are.
    static func readPrivate(_ path: String) throws -> Ed25519.PrivateKey {
        let text = try SecretInput.readPrivateFile(path, what: "signing key").withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        guard let key = decode(value(in: text, tag: privateTag), Ed25519.PrivateKey.init(rawRepresentation:)) else {
            throw ToolError(.configuration, "signing key \(path) is not a private key written by keygen")
        }
        return key
    }

    /// Reads a public key file.
    static func readPublic(_ path: String) throws -> Ed25519.PublicKey {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file"
            throw ToolError(.configuration, "trusted key \(path): \(reason)")
        }
        let text = String(decoding: data, as: UTF8.self)
        if value(in: text, tag: privateTag) != nil {
            throw ToolError(.configuration, "trusted key \(path) is a PRIVATE key: give hosts the .pub file keygen wrote beside it")
        }
        guard let key = decode(value(in: text, tag: publicTag), Ed25519.PublicKey.init(rawRepresentation:)) else {
            throw ToolError(.configuration, "trusted key \(path) is not a public key written by keygen")
        }
        return key
    }

    /// A key from the text after its tag: base64 of its raw bytes.
    private static func decode<Key>(_ value: String?, _ make: (Data) -> Key?) -> Key? {
        guard let base64 = value?.split(separator: " ").first, let raw = Data(base64Encoded: String(base64)) else { return nil }
        return make(raw)
    }

    /// The public keys of `--trusted-key` arguments: files, or directories
    /// whose `*.pub` files are read.
    static func trusted(_ arguments: [String]) throws -> [String: Ed25519.PublicKey] {
        var keys: [String: Ed25519.PublicKey] = [:]
        for argument in arguments {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory), isDirectory.boolValue {
                let files = try FileManager.default.contentsOfDirectory(atPath: argument).filter { $0.hasSuffix(".pub") }.sorted()
                guard !files.isEmpty else { throw ToolError(.configuration, "trusted keys \(argument): no *.pub file in it") }
                for file in files {
                    let key = try readPublic((argument as NSString).appendingPathComponent(file))
                    keys[id(of: key)] = key
                }
            } else {
                let key = try readPublic(argument)
                keys[id(of: key)] = key
            }
        }
        return keys
    }

    /// The text after `tag` on the first line of `text` that starts with it.
    private static func value(in text: String, tag: String) -> String? {
        text.split(separator: "\n").first { $0.hasPrefix(tag) }
            .map { String($0.dropFirst(tag.count)).trimmingCharacters(in: .whitespaces) }
    }

    /// A new private file (0600, `O_EXCL`) with `text`, synced.
    private static func writeNew(_ path: String, _ text: String) throws {
        var written = false
        do {
            try PrivateFile.write(to: path) { _ in
                defer { written = true }
                return written ? Data() : Data(text.utf8)
            }
        } catch {
            throw ToolError(.cannotCreate, "cannot create \(path): \(error)")
        }
    }
}
