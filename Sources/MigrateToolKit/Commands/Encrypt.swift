import ArgumentParser
import Foundation
import SecureStore

extension MigrateToolCommand {
    /// `encrypt SRC [--output DST]`: a plaintext SQLite file becomes an
    /// encrypted one.
    struct Encrypt: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Encrypt a plaintext SQLite file (in place, or into --output), keeping user_version and migration history.",
            discussion: "In place: \(WaitForCloseOptions.help)")

        @Argument(help: "The plaintext SQLite file.")
        var source: String

        @Option(name: .long, help: "Write the encrypted database here instead of replacing the source.")
        var output: String?

        @Flag(name: .customLong("keep-plaintext"), help: "When encrypting in place, keep the plaintext original as SOURCE.plaintext (beside the file a link names).")
        var keepPlaintext = false

        @OptionGroup var key: KeyOptions
        @OptionGroup var lock: LockOptions
        @OptionGroup var waiting: WaitForCloseOptions
        @OptionGroup var outputOptions: OutputOptions

        func run() throws {
            try Output.run(json: outputOptions.json) {
                guard let key = try key.resolve() else {
                    throw ToolError(.usage, "encrypt needs the key to encrypt with (--key-file, --key-env, --key-stdin or --key-fd)")
                }
                let destination = output ?? source
                if let output { try CipherRun.checkOutputIsNew(output) }
                let isPlaintext = Database.hasPlaintextHeader(path: source) || !FileManager.default.fileExists(atPath: source)
                return try CipherRun.run("encrypt", file: source, output: destination, json: outputOptions.json,
                                         lockTimeout: lock.seconds, access: output == nil ? .write : .read) { progress in
                    guard isPlaintext else {
                        // A retry of an in-place encrypt that finished: the
                        // key opens the file, so there is nothing to do.
                        let reason: String
                        do {
                            let summary = try Cipher.summary(at: source, key: key.key)
                            if output == nil {
                                throw AlreadyDone(summary: summary, note: "already encrypted with this key; nothing to do")
                            }
                            reason = "it is already encrypted with this key"
                        } catch let error as DatabaseError {
                            // The library's words: the settings tried, and
                            // what this SQLCipher line cannot read.
                            reason = error.message ?? "the given key does not open it"
                        }
                        throw ToolError(.notADatabase, "\(source) is not a plaintext SQLite file: \(reason)")
                    }
                    var kept: String?
                    if output == nil && keepPlaintext {
                        // A hard link, made by the replacement just before
                        // its rename, keeps the original inode.
                        let original = (FileReplacement.resolvedPath(source) ?? source) + ".plaintext"
                        if FileManager.default.fileExists(atPath: original) {
                            throw ToolError(.cannotCreate, "\(source): cannot keep the plaintext original at \(original): it exists already")
                        }
                        kept = original
                    }
                    let summary = try Cipher.encrypt(plaintextAt: source, to: destination, key: key.key,
                                                     replacing: waiting.replaceOptions(keepingReplacedAt: kept), progress: progress)
                    if let kept, let ownership = PrivateFile.ownership(of: kept) {
                        // The encrypted file took the name (and the mode);
                        // the plaintext left behind is made private.
                        var privateOwnership = ownership
                        privateOwnership.mode &= PrivateFile.privateMode
                        try PrivateFile.apply(privateOwnership, to: kept)
                    }
                    return CipherOutcome(summary: summary, backup: kept)
                }
            }
        }
    }

    /// `decrypt SRC --output DST --allow-plaintext`.
    struct Decrypt: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a PLAINTEXT copy of an encrypted database (never in place).")

        @Argument(help: "The encrypted database.")
        var source: String

        @Option(name: .long, help: "The plaintext file to write. It must not exist.")
        var output: String

        @Flag(name: .customLong("allow-plaintext"), help: "Acknowledge that the output is not encrypted.")
        var allowPlaintext = false

        @OptionGroup var key: KeyOptions
        @OptionGroup var lock: LockOptions
        @OptionGroup var outputOptions: OutputOptions

        func validate() throws {
            guard allowPlaintext else {
                throw ValidationError("decrypt writes an unencrypted file: add --allow-plaintext to confirm.")
            }
        }

        func run() throws {
            try Output.run(json: outputOptions.json) {
                guard let key = try key.resolve() else { throw ToolError(.usage, "decrypt needs the database's key") }
                try CipherRun.checkOutputIsNew(output)
                return try CipherRun.run("decrypt", file: source, output: output, json: outputOptions.json,
                                         lockTimeout: lock.seconds, access: .read) { progress in
                    CipherOutcome(summary: try Cipher.decrypt(at: source, key: key.key, to: output, progress: progress))
                }
            }
        }
    }

    /// `backup DB --output DST`: an encrypted copy, same key.
    struct Backup: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write an encrypted copy of a database with the same key (sqlcipher_export, never SQLite's backup API).")

        @Argument(help: "The database.")
        var database: String

        @Option(name: .long, help: "The copy to write. It must not exist.")
        var output: String

        @OptionGroup var key: KeyOptions
        @OptionGroup var lock: LockOptions
        @OptionGroup var outputOptions: OutputOptions

        func run() throws {
            try Output.run(json: outputOptions.json) {
                let key = try key.resolve()
                try CipherRun.checkOutputIsNew(output)
                return try CipherRun.run("backup", file: database, output: output, json: outputOptions.json,
                                         lockTimeout: lock.seconds, access: .read) { progress in
                    CipherOutcome(summary: try Cipher.backup(at: database, key: key?.key, to: output, progress: progress))
                }
            }
        }
    }
}
