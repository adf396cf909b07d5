import ArgumentParser
import Foundation
import SecureStore

extension MigrateToolCommand {
    /// `inspect DB`: what is in a database file, read-only.
    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a database: encryption, cipher settings, pages, migrations, tables and row counts.")

        @Argument(help: "The database file.")
        var database: String

        @Flag(name: .long, help: "Run PRAGMA integrity_check (reads every page).")
        var integrity = false

        @Flag(name: .long, help: "After the report, print the schema and every row IN CLEAR (Database.dumpContent). Not with --json.")
        var dump = false

        @Option(name: .customLong("dump-format"), help: ArgumentHelp(
            "The format of --dump: debug (default), list, quote, line or json.", valueName: "format"))
        var dumpFormat: DumpFormatName = .debug

        @OptionGroup var migrations: MigrationsOptions
        @OptionGroup var key: KeyOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if dump && output.json { throw ValidationError("--dump prints text: it does not go with --json.") }
        }

        func run() throws {
            try Output.run(json: output.json, file: database) {
                try DatabaseFile.check(database, for: .read)
                let key = try key.resolve()
                let migrator = try migrations.migrator(required: false)
                let dbQueue = try DatabaseFile.open(database, key: key, readonly: true, busyTimeout: 5)
                defer { try? dbQueue.close() }
                let report = try dbQueue.read { db in
                    try InspectReport(db: db, path: database, key: key, migrator: migrator, integrity: integrity)
                }
                if output.json { Output.json(report) } else { report.printText() }
                if dump {
                    Output.line("")
                    try dbQueue.read { db in try dumpFormat.dumpContent(db) }
                }
                return .success
            }
        }
    }
}

struct InspectReport: Codable {
    struct Table: Codable {
        var name: String
        var rows: Int
    }

    struct Migration: Codable {
        var identifier: String
        var appliedAt: Date?
        var checksum: String?
        var source: String
    }

    struct Migrations: Codable {
        var applied: [Migration]
        var pending: [String]?
        var superseded: [String]?
        var checksumMismatches: [String]?
        var schemaDrift: Bool?
    }

    var file: String
    var sizeBytes: Int64
    var encrypted: Bool
    var sqlcipherVersion: String
    var sqliteVersion: String
    var cipherSettings: CipherSettingsReport?
    /// The key derivation against OWASP's guidance; nil without a key.
    var keyDerivation: KeyDerivationReport?
    var pageCount: Int
    var pageSize: Int
    var userVersion: Int
    var journalMode: String
    var migrations: Migrations
    var tables: [Table]
    var integrity: String?

    init(db: Database, path: String, key: DatabaseKey?, migrator: DatabaseMigrator?, integrity: Bool) throws {
        file = path
        sizeBytes = DatabaseFile.size(path)
        encrypted = !Database.hasPlaintextHeader(path: path)
        sqlcipherVersion = try db.cipherVersion
        sqliteVersion = Database.sqliteLibVersion
        cipherSettings = try CipherSettingsReport(db)
        if let settings = try db.cipherSettings {
            keyDerivation = KeyDerivationReport(settings, rawKey: key?.isRawKey ?? false, database: path)
        }
        pageCount = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
        pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0
        userVersion = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        journalMode = try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? ""
        let history = try (migrator ?? DatabaseMigrator()).history(db)
        migrations = Migrations(applied: history.map {
            Migration(identifier: $0.identifier, appliedAt: $0.appliedAt, checksum: $0.checksum, source: $0.source)
        })
        if let migrator {
            let validation = try migrator.validate(db)
            migrations.pending = validation.pending
            migrations.superseded = validation.superseded
            migrations.checksumMismatches = validation.checksumMismatches.map(\.identifier)
            migrations.schemaDrift = validation.schemaDrift != nil
        }
        let names = try String.fetchAll(db, sql: """
            SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name
            """)
        tables = try names.map { name in
            Table(name: name, rows: try Int.fetchOne(db, sql: "SELECT count(*) FROM \(name.quotedDatabaseIdentifier)") ?? 0)
        }
        if integrity {
            self.integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "\n")
        }
    }

    func printText() {
        Output.line("file:           \(file) (\(sizeBytes) bytes)")
        Output.line("encrypted:      \(encrypted ? "yes" : "NO (plaintext SQLite header)")")
        Output.line("SQLCipher:      \(sqlcipherVersion) on SQLite \(sqliteVersion)")
        if let cipherSettings {
            Output.line("cipher:         \(cipherSettings.text)")
        }
        if let keyDerivation {
            Output.line("key derivation: \(keyDerivation.summary)")
        }
        Output.line("pages:          \(pageCount) x \(pageSize) bytes, journal \(journalMode), user_version \(userVersion)")
        Output.line("migrations:     \(migrations.applied.count) applied")
        let formatter = ISO8601DateFormatter()
        for migration in migrations.applied {
            let date = migration.appliedAt.map(formatter.string(from:)) ?? "(adopted from \(migration.source))"
            let checksum = migration.checksum.map { " sha256:\($0.prefix(12))" } ?? ""
            Output.line("  \(migration.identifier)  \(date)\(checksum)")
        }
        if let pending = migrations.pending {
            Output.line("pending:        \(pending.isEmpty ? "none" : pending.joined(separator: ", "))")
        }
        if let superseded = migrations.superseded, !superseded.isEmpty {
            Output.line("superseded:     \(superseded.joined(separator: ", ")) (unknown to these migrations)")
        }
        if let mismatches = migrations.checksumMismatches, !mismatches.isEmpty {
            Output.line("changed files:  \(mismatches.joined(separator: ", ")) (edited after they were applied)")
        }
        if migrations.schemaDrift == true {
            Output.line("schema drift:   the schema changed outside migrations")
        }
        Output.line("tables:         \(tables.count)")
        for table in tables { Output.line("  \(table.name): \(table.rows) row(s)") }
        if let integrity { Output.line("integrity:      \(integrity)") }
    }
}

/// The formats of `inspect --dump`.
enum DumpFormatName: String, ExpressibleByArgument, CaseIterable {
    case debug, list, quote, line, json

    /// Prints the database's schema and rows on standard output.
    func dumpContent(_ db: Database) throws {
        switch self {
        case .debug: try db.dumpContent(format: .debug())
        case .list: try db.dumpContent(format: .list())
        case .quote: try db.dumpContent(format: .quote())
        case .line: try db.dumpContent(format: .line())
        case .json: try db.dumpContent(format: .json())
        }
    }
}
