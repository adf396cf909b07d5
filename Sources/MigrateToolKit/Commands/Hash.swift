import ArgumentParser
import Foundation
import SecureStore

extension MigrateToolCommand {
    /// `hash DIR`: the directory's integrity file.
    struct Hash: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the migrations directory's integrity file (migrations.sum); commit it with the migrations.",
            discussion: """
                Once it exists, apply, status, test and lint refuse the directory (exit 4) when a file was edited, \
                removed, added without running hash again, or added with a number below migrations already in it \
                (two branches that both added the same number), naming the file; --no-integrity overrides.
                """)

        @Argument(help: "The migrations directory.")
        var directory: String

        @Option(help: ArgumentHelp(
            "Sign migrations.sum with this private key (keygen's .key, mode 0600): writes migrations.sum.sig, which hosts check with --trusted-key.",
            valueName: "key"))
        var sign: String?

        @OptionGroup var output: OutputOptions

        func run() throws {
            try Output.run(json: output.json) {
                let folder = URL(fileURLWithPath: directory)
                // The key is read first: a bad key changes nothing.
                let key = try sign.map(SigningKey.readPrivate)
                let lines = try MigrationIntegrityFile.write(directory: folder)
                let path = folder.appendingPathComponent(MigrationIntegrityFile.fileName).path
                let signaturePath = folder.appendingPathComponent(MigrationSignature.fileName).path
                var report = HashReport(file: path, files: lines.count)
                if let key {
                    report.signedBy = try MigrationSignature.sign(directory: folder, with: key)
                    report.signature = signaturePath
                } else if FileManager.default.fileExists(atPath: signaturePath) {
                    // It signed the old migrations.sum: hosts would refuse it.
                    try FileManager.default.removeItem(atPath: signaturePath)
                    report.removedSignature = signaturePath
                }
                if output.json {
                    Output.json(report)
                } else {
                    Output.line("\(path): \(lines.count) files")
                    if let id = report.signedBy { Output.line("\(signaturePath): signed by key \(id)") }
                    if report.removedSignature != nil {
                        Output.line("\(signaturePath): removed (it signed the old \(MigrationIntegrityFile.fileName)); sign again with --sign")
                    }
                }
                return .success
            }
        }
    }
}

/// The JSON of `hash`.
struct HashReport: Codable {
    var file: String
    var files: Int
    /// With --sign: the signature file and the key id.
    var signature: String?
    var signedBy: String?
    /// Without --sign: a signature of the old migrations.sum, removed.
    var removedSignature: String?
}
