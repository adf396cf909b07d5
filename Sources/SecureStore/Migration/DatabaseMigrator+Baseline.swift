import Foundation

extension DatabaseMigrator {
    /// Adopts a database that was never migrated by this migrator (made by
    /// hand, by an older app, by the `sqlcipher` shell): records the
    /// migrations up to `identifier` as applied (source `baseline`), in one
    /// transaction, without running them.
    ///
    /// The database's schema must first equal the schema these migrations
    /// produce on a scratch database; when it does not, nothing is recorded
    /// and ``MigrationError/baselineMismatch(identifier:differences:)`` says
    /// how they differ. `force` records without the check. A database that
    /// has a history already is refused.
    ///
    /// ```swift
    /// try migrator.baseline(dbQueue, at: "Zalora-v2")
    /// try migrator.migrate(dbQueue)   // Zalora-v3 and later
    /// ```
    public func baseline(_ writer: some DatabaseWriter, at identifier: String, force: Bool = false) throws {
        guard let last = migrations.firstIndex(of: identifier) else { throw MigrationError.unknownMigration(identifier) }
        let adopted = Array(migrations[...last])
        // The schema each migration leaves, replayed on a scratch database.
        let scratch = try DatabaseQueue()
        var fingerprints: [String: String] = [:]
        for step in adopted {
            try migrate(scratch, upTo: step)
            fingerprints[step] = try scratch.read { db in try db.schemaFingerprint() }
        }
        let expected = try scratch.read { db in try db.schemaSnapshot() }
        try writer.barrierWriteWithoutTransaction { db in
            let started = Date()
            try db.inTransaction(.immediate) {
                guard try history(db).isEmpty else { throw MigrationError.baselineOfMigratedDatabase }
                if !force {
                    let differences = try db.schemaSnapshot().differences(from: expected)
                    if !differences.isEmpty { throw MigrationError.baselineMismatch(identifier: identifier, differences: differences) }
                }
                try MigrationHistory.prepareForWrite(db, registered: migrations)
                for step in adopted {
                    let migration = migration(named: step)
                    try MigrationHistory.record(db, AppliedMigration(
                        identifier: step, order: try MigrationHistory.nextOrder(db), appliedAt: Date(),
                        checksum: migration?.checksum, schemaFingerprint: fingerprints[step],
                        downSQL: migration?.downSQL, source: "baseline"))
                    try MigrationAuditLog.record(db, identifier: step, action: .baseline, outcome: "baselined",
                                                 source: "baseline", process: auditedProcess, started: started)
                }
                return .commit
            }
        }
    }

    /// After a reviewed edit of an applied migration file, or a reviewed
    /// change of the schema outside migrations: records the files' current
    /// checksums (and down steps), and the current schema's fingerprint on
    /// the last applied migration, so that ``validate(_:)`` reports nothing.
    /// Returns what it changed, one line each (empty: nothing to repair).
    ///
    /// ```swift
    /// for change in try migrator.repair(dbQueue) { print(change) }
    /// // Zalora-v2: checksum 64b41f8c… → 1d0e9a7b…
    /// // Zalora-v3: schema fingerprint updated: index brand_on_name: new
    /// ```
    @discardableResult
    public func repair(_ writer: some DatabaseWriter) throws -> [String] {
        let validation = try writer.read { db in try validate(db) }
        var changes: [String] = []
        var schemaChanges: [String] = []
        if let drift = validation.schemaDrift {
            let scratch = try DatabaseQueue()
            try migrate(scratch, upTo: drift.lastMigration)
            let expected = try scratch.read { db in try db.schemaSnapshot() }
            schemaChanges = try writer.read { db in try db.schemaSnapshot().differences(from: expected) }
        }
        try writer.barrierWriteWithoutTransaction { db in
            let started = Date()
            try db.inTransaction(.immediate) {
                for mismatch in validation.checksumMismatches {
                    let migration = migration(named: mismatch.identifier)
                    try db.execute(sql: "UPDATE \(MigrationHistory.tableName) SET checksum = ?, down_sql = ? WHERE identifier = ?",
                                   arguments: [mismatch.current, migration?.downSQL, mismatch.identifier])
                    changes.append("\(mismatch.identifier): checksum \(mismatch.recorded.prefix(8))… → \(mismatch.current.prefix(8))…")
                }
                if let drift = validation.schemaDrift {
                    try db.execute(sql: "UPDATE \(MigrationHistory.tableName) SET schema_fingerprint = ? WHERE identifier = ?",
                                   arguments: [try db.schemaFingerprint(), drift.lastMigration])
                    changes.append("\(drift.lastMigration): schema fingerprint updated"
                                   + (schemaChanges.isEmpty ? "" : ": " + schemaChanges.joined(separator: "; ")))
                }
                if !changes.isEmpty { try MigrationHistory.prepareForWrite(db, registered: migrations) }
                for change in changes {
                    let identifier = String(change.prefix { $0 != ":" })
                    try MigrationAuditLog.record(db, identifier: identifier, action: .repair, outcome: "repaired" + change.dropFirst(identifier.count),
                                                 source: "repair", process: auditedProcess, started: started)
                }
                return .commit
            }
        }
        return changes
    }
}
