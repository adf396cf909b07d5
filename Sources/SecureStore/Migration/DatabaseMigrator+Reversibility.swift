/// What ``DatabaseMigrator/verifyReversibility(in:seed:)`` found, migration
/// by migration.
public struct ReversibilityReport: Sendable, Codable {
    /// The rows of a table at the three points of a step.
    public struct RowCounts: Sendable, Codable, Equatable {
        /// The table.
        public var table: String
        /// Before the up step (nil: the table did not exist).
        public var beforeUp: Int?
        /// After the up step.
        public var afterUp: Int?
        /// After the down step.
        public var afterDown: Int?

        /// Counts of `table`.
        public init(table: String, beforeUp: Int?, afterUp: Int?, afterDown: Int?) {
            (self.table, self.beforeUp, self.afterUp, self.afterDown) = (table, beforeUp, afterUp, afterDown)
        }
    }

    /// One migration: up, down, and up again.
    public struct Step: Sendable, Codable {
        /// The migration.
        public var identifier: String
        /// False when the migration has no down step.
        public var hasDownStep: Bool
        /// How the schema after the down step differs from the schema
        /// before the up step (empty: restored).
        public var schemaNotRestored: [String] = []
        /// How the schema after the second up step differs from the first.
        public var upNotRepeatable: [String] = []
        /// Tables whose rows the down step did not give back as they were
        /// before the up step: fewer rows, or other values.
        public var dataNotRestored: [String] = []
        /// Row counts per table, when the check ran with seed data.
        public var rowCounts: [RowCounts] = []
        /// The error of a step that failed: the check stops there.
        public var error: String?

        /// True when the down step restores the schema and the rows, and
        /// the up step can run again.
        public var isReversible: Bool {
            hasDownStep && error == nil && schemaNotRestored.isEmpty && upNotRepeatable.isEmpty && dataNotRestored.isEmpty
        }
    }

    /// Every migration checked, in order.
    public var steps: [Step]

    /// True when every migration is reversible (`allowingIrreversible`:
    /// migrations without a down step are let through).
    public func passed(allowingIrreversible: Bool = false) -> Bool {
        steps.allSatisfy { $0.isReversible || (allowingIrreversible && !$0.hasDownStep && $0.error == nil) }
    }
}

extension DatabaseMigrator {
    /// Checks that each migration's down step undoes its up step, on a
    /// scratch database (never the app's file): for each migration in order,
    /// the schema is recorded, the migration applied, rolled back (the
    /// schema must equal the one before, and every table its rows), and
    /// applied again (the schema must equal the first up). `seed` runs
    /// before each migration, with its identifier, to put data in: a down
    /// step that loses rows, or an up step that fails on real data, shows.
    ///
    /// ```swift
    /// func testMigrationsAreReversible() throws {
    ///     let report = try AppDatabase.migrator.verifyReversibility(in: DatabaseQueue())
    ///     XCTAssertTrue(report.passed(), "\(report.steps.filter { !$0.isReversible })")
    /// }
    /// ```
    ///
    /// The check stops at a migration whose step fails (its `error` says
    /// why); a migration without a down step is applied and the check goes
    /// on.
    public func verifyReversibility(
        in writer: some DatabaseWriter,
        seed: ((_ db: Database, _ before: String) throws -> Void)? = nil
    ) throws -> ReversibilityReport {
        var steps: [ReversibilityReport.Step] = []
        for identifier in migrations {
            var step = ReversibilityReport.Step(identifier: identifier, hasDownStep: migration(named: identifier)?.rollback != nil)
            defer { steps.append(step) }
            do {
                if let seed { try writer.write { db in try seed(db, identifier) } }
                let before = try writer.read(TableContents.init)
                try migrate(writer, upTo: identifier)
                let afterUp = try writer.read(TableContents.init)
                guard step.hasDownStep else { continue }
                try rollback(writer, steps: 1)
                let afterDown = try writer.read(TableContents.init)
                step.schemaNotRestored = afterDown.schema.differences(from: before.schema)
                step.dataNotRestored = afterDown.changes(from: before)
                if seed != nil {
                    step.rowCounts = Set(before.counts.keys).union(afterUp.counts.keys).union(afterDown.counts.keys).sorted().map { table in
                        .init(table: table, beforeUp: before.counts[table], afterUp: afterUp.counts[table], afterDown: afterDown.counts[table])
                    }
                }
                try migrate(writer, upTo: identifier)
                step.upNotRepeatable = try writer.read { db in try db.schemaSnapshot() }.differences(from: afterUp.schema)
            } catch {
                step.error = "\(error)"
                break
            }
        }
        return ReversibilityReport(steps: steps)
    }

    /// ``verifyReversibility(in:seed:)`` with seed data as SQL: before each
    /// migration, each statement of `seedSQL` runs, except those that name
    /// a table or a column that does not exist yet (they run before the
    /// later migrations).
    ///
    /// ```swift
    /// let report = try migrator.verifyReversibility(in: DatabaseQueue(), seedSQL: """
    ///     INSERT INTO brand (name) VALUES ('Zalora');
    ///     INSERT INTO product (brandId, name) VALUES (1, 'Shirt');
    ///     """)
    /// ```
    public func verifyReversibility(in writer: some DatabaseWriter, seedSQL: String) throws -> ReversibilityReport {
        let statements = SQLText.statements(in: seedSQL)
        return try verifyReversibility(in: writer) { db, _ in
            for statement in statements {
                do {
                    try db.inSavepoint {
                        try db.execute(sql: statement)
                        return .commit
                    }
                } catch let error as DatabaseError
                    where error.message?.hasPrefix("no such table") == true || error.message?.hasPrefix("no such column") == true
                        || error.message?.contains("has no column named") == true {
                    continue   // for a later migration's schema
                }
            }
        }
    }

}

/// The schema, and the rows of each table (the migration history left out)
/// with a digest of their values.
private struct TableContents {
    var schema: SchemaSnapshot
    var counts: [String: Int] = [:]
    var digests: [String: String] = [:]

    init(_ db: Database) throws {
        schema = try db.schemaSnapshot()
        for table in schema.objects where table.type == "table" {
            var text = ""
            var count = 0
            // Every column sorts, so that equal tables list their rows alike.
            let order = (1...max(1, table.columns?.count ?? 1)).map(String.init).joined(separator: ", ")
            let rows = try Row.fetchCursor(db, sql: "SELECT * FROM \(table.name.quotedDatabaseIdentifier) ORDER BY \(order)")
            while let row = try rows.next() {
                count += 1
                text += row.description + "\n"
            }
            counts[table.name] = count
            digests[table.name] = SHA256Digest.hex(of: text)
        }
    }

    /// The tables of `before` whose rows are not the same here.
    func changes(from before: TableContents) -> [String] {
        before.counts.keys.sorted().compactMap { table in
            guard let count = counts[table], let was = before.counts[table] else { return nil }
            if count != was { return "\(table): \(was) rows before up, \(count) after down" }
            if digests[table] != before.digests[table] { return "\(table): the values of its \(count) rows changed" }
            return nil
        }
    }
}
