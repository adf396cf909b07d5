import ArgumentParser
import SecureStore

@main
struct MigrateTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate-tool",
        abstract: "Inspect, apply and roll back migrations on SQLCipher-encrypted databases.",
        version: MigrateTool.version
    )

    static let version = "0.1.0"
}
