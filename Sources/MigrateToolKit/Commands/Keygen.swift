import ArgumentParser
import Foundation

extension MigrateToolCommand {
    /// `keygen NAME`: an Ed25519 key pair that signs migration directories.
    struct Keygen: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a new Ed25519 key pair for signing migration directories: NAME.key (private, 0600) and NAME.pub (public).",
            discussion: """
                Keep NAME.key where migrations are released (CI's secret store) and sign with `hash DIR --sign NAME.key`; \
                give NAME.pub to the hosts, which run apply, rollback, status, test and rehearse with --trusted-key NAME.pub. \
                Existing files are never replaced (exit 73).
                """)

        @Argument(help: "The path and name of the key pair, without extension (e.g. keys/release-2026).")
        var name: String

        @OptionGroup var output: OutputOptions

        func run() throws {
            try Output.run(json: output.json) {
                let privatePath = name + ".key", publicPath = name + ".pub"
                let id = try SigningKey.generate(privatePath: privatePath, publicPath: publicPath,
                                                 name: (name as NSString).lastPathComponent)
                if output.json {
                    Output.json(KeygenReport(privateKey: privatePath, publicKey: publicPath, keyId: id))
                } else {
                    Output.line("\(privatePath): private key \(id) (mode 0600): keep it secret; sign with `hash DIR --sign \(privatePath)`")
                    Output.line("\(publicPath): public key \(id): give it to hosts (--trusted-key \(publicPath))")
                }
                return .success
            }
        }
    }
}

/// The JSON of `keygen`; never the key itself.
struct KeygenReport: Codable {
    var privateKey: String
    var publicKey: String
    var keyId: String
}
