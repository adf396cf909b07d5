import Foundation

/// The bookkeeping table, `securestore_migrations`, and the adoption of a
/// GRDB history (`grdb_migrations`).
///
/// The table is created inside the first migration's transaction, so a
/// failed first migration leaves no trace. When `grdb_migrations` exists it
/// is kept in step, so that an app can still go back to GRDB.
package enum MigrationHistory {
    static let tableName = "securestore_migrations"
    static let grdbTableName = "grdb_migrations"

    /// The applied migrations, in the order they were applied. A GRDB history
    /// not adopted yet is read as applied migrations with source "grdb",
    /// ordered as this migrator registers them, then by insertion.
    static func read(_ db: Database, registered: [String] = []) throws -> [AppliedMigration] {
        if try db.tableExists(tableName) {
            return try Row.fetchAll(db, sql: """
                SELECT identifier, applied_order, applied_at, checksum, schema_fingerprint, down_sql, source
                FROM \(tableName) ORDER BY applied_order
                """).map { row in
                AppliedMigration(identifier: row["identifier"], order: row["applied_order"],
                                 appliedAt: row["applied_at"], checksum: row["checksum"],
                                 schemaFingerprint: row["schema_fingerprint"], downSQL: row["down_sql"],
                                 source: row["source"])
            }
        }
        guard try db.tableExists(grdbTableName) else { return [] }
        let identifiers = try String.fetchAll(db, sql: "SELECT identifier FROM \(grdbTableName) ORDER BY rowid")
        let rank = Dictionary(registered.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let ordered = identifiers.enumerated().sorted { lhs, rhs in
            (rank[lhs.element] ?? Int.max, lhs.offset) < (rank[rhs.element] ?? Int.max, rhs.offset)
        }
        return ordered.enumerated().map { index, element in
            AppliedMigration(identifier: element.element, order: index + 1, appliedAt: nil, checksum: nil,
                             schemaFingerprint: nil, downSQL: nil, source: "grdb")
        }
    }

    /// Creates the table if needed, adopting a GRDB history. Call inside the
    /// transaction of a migration step. The audit trail
    /// (``MigrationAuditLog``) is created too, filled from this history.
    static func prepareForWrite(_ db: Database, registered: [String]) throws {
        if try !db.tableExists(tableName) { try create(db, adopting: registered) }
        try MigrationAuditLog.prepareForWrite(db)
    }

    /// The tables of the bookkeeping, left out of schema snapshots and fingerprints.
    package static let internalTableNames = [tableName, grdbTableName, MigrationAuditLog.tableName]

    private static func create(_ db: Database, adopting registered: [String]) throws {
        let adopted = try read(db, registered: registered)
        try db.execute(sql: """
            CREATE TABLE \(tableName) (
                identifier TEXT NOT NULL PRIMARY KEY,
                applied_order INTEGER NOT NULL,
                applied_at TEXT,
                checksum TEXT,
                schema_fingerprint TEXT,
                down_sql TEXT,
                source TEXT NOT NULL)
            """)
        for migration in adopted { try insert(db, migration) }
    }

    static func record(_ db: Database, _ migration: AppliedMigration) throws {
        try insert(db, migration)
        if try db.tableExists(grdbTableName) {
            try db.execute(sql: "INSERT OR IGNORE INTO \(grdbTableName) (identifier) VALUES (?)",
                           arguments: [migration.identifier])
        }
    }

    static func remove(_ db: Database, identifier: String) throws {
        try db.execute(sql: "DELETE FROM \(tableName) WHERE identifier = ?", arguments: [identifier])
        if try db.tableExists(grdbTableName) {
            try db.execute(sql: "DELETE FROM \(grdbTableName) WHERE identifier = ?", arguments: [identifier])
        }
    }

    static func nextOrder(_ db: Database) throws -> Int {
        try (Int.fetchOne(db, sql: "SELECT MAX(applied_order) FROM \(tableName)") ?? 0) + 1
    }

    private static func insert(_ db: Database, _ migration: AppliedMigration) throws {
        try db.execute(sql: """
            INSERT INTO \(tableName)
                (identifier, applied_order, applied_at, checksum, schema_fingerprint, down_sql, source)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, arguments: [migration.identifier, migration.order, migration.appliedAt, migration.checksum,
                             migration.schemaFingerprint, migration.downSQL, migration.source])
    }
}
