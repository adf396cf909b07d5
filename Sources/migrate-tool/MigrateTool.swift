import ArgumentParser
import SecureStore

@main
struct MigrateTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate-tool",
        abstract: "Inspect, apply and roll back migrations on SQLCipher-encrypted databases.",
        version: versionText
    )

    static let version = "0.1.0"

    /// The tool's version and the SQLCipher and SQLite it runs on.
    static var versionText: String {
        let cipher = (try? DatabaseQueue().read { db in try db.cipherVersion }) ?? "unknown"
        return "migrate-tool \(version) (SQLCipher \(cipher), SQLite \(Database.sqliteLibVersion))"
    }
}
