import Foundation

extension DatabaseMigrator {
    /// Checks the migrations before they reach a database: statically (the
    /// text of SQL migrations) and by running them on a scratch in-memory
    /// database, in order.
    ///
    /// - `breaks-transaction` (error): a statement that would end the
    ///   migration's transaction, attach, vacuum or change the key.
    /// - `fails` (error): the migration fails on the SQLite in use (with the
    ///   statement's line for SQL files).
    /// - `not-null-without-default` (error): `ADD COLUMN ... NOT NULL` without a default.
    /// - `drop-table`, `drop-column` (warning): the migration removes a
    ///   table, or a column (a table rebuild that leaves one out).
    /// - `unfiltered-write` (warning): `DELETE` or `UPDATE` without `WHERE`.
    /// - `savepoint` (warning): `SAVEPOINT`, `RELEASE` or `ROLLBACK TO`
    ///   outside a trigger (allowed, but a partial rollback fails nothing).
    /// - `missing-down` (warning) and `down-not-restoring` (error): see
    ///   ``verifyReversibility(in:seed:)``.
    /// - `case-mismatch` (warning): a name written with another case than
    ///   the table or column it names (SQLite does not mind; readers do).
    ///
    /// ```swift
    /// XCTAssertEqual(try migrator.lint().filter { $0.severity == .error }, [])
    /// ```
    public func lint() throws -> [MigrationLintFinding] {
        var findings: [MigrationLintFinding] = []
        // Static checks of the SQL files.
        for identifier in migrations {
            guard let file = migration(named: identifier)?.file else { continue }
            findings += try file.forbiddenStatements().map {
                MigrationLintFinding(code: "breaks-transaction", severity: .error, identifier: identifier,
                                     path: $0.path, line: $0.line, message: "`\($0.statement)`: \($0.refusal.description)")
            }
            findings += Self.textFindings(in: file.upSQL, identifier: identifier, path: file.upURL.path)
        }
        // Running them: drops, failures, names, and reversibility.
        let scratch = try DatabaseQueue()
        var names: [String: String] = [:]   // lowercased -> as created
        for identifier in migrations {
            let file = migration(named: identifier)?.file
            let before = try scratch.read { db in try db.schemaSnapshot() }
            do {
                try migrate(scratch, upTo: identifier)
            } catch {
                findings.append(MigrationLintFinding(code: "fails", severity: .error, identifier: identifier,
                                                     path: file?.upURL.path, line: Self.failedLine(error), message: "\(error)"))
                break
            }
            let after = try scratch.read { db in try db.schemaSnapshot() }
            findings += Self.drops(from: before, to: after, identifier: identifier, file: file)
            if let file { findings += Self.caseMismatches(in: file.upSQL, names: names, identifier: identifier, path: file.upURL.path) }
            try scratch.read { db in
                for table in after.objects where table.type == "table" {
                    for column in try db.columns(in: table.name) { names[column.name.lowercased()] = column.name }
                }
            }
            for row in try scratch.read({ db in try Row.fetchAll(db, sql: "SELECT name FROM sqlite_master") }) {
                let name: String = row["name"]
                names[name.lowercased()] = name
            }
        }
        for identifier in migrations where migration(named: identifier)?.rollback == nil {
            findings.append(MigrationLintFinding(code: "missing-down", severity: .warning, identifier: identifier,
                                                 path: migration(named: identifier)?.file?.upURL.path, line: 0,
                                                 message: "migration \"\(identifier)\" has no down step"))
        }
        for step in try verifyReversibility(in: DatabaseQueue()).steps {
            let file = migration(named: step.identifier)?.file
            let broken = step.schemaNotRestored + step.upNotRepeatable
            if !broken.isEmpty {
                findings.append(MigrationLintFinding(code: "down-not-restoring", severity: .error, identifier: step.identifier,
                                                     path: file?.downURL?.path, line: 0,
                                                     message: "the down step does not restore the schema: " + broken.joined(separator: "; ")))
            }
        }
        return Self.unsuppressed(findings, files: migrations.compactMap { migration(named: $0)?.file })
    }

    // MARK: Static checks

    private static func textFindings(in sql: String, identifier: String, path: String) -> [MigrationLintFinding] {
        SQLText.numberedStatements(in: sql).compactMap { line, text in
            let words = text.uppercased().split(whereSeparator: { !$0.isLetter && $0 != "_" })
            if (words.first == "DELETE" || words.first == "UPDATE"), !words.contains("WHERE") {
                return MigrationLintFinding(code: "unfiltered-write", severity: .warning, identifier: identifier, path: path,
                                            line: line, message: "`\(text.prefix(80))` changes every row of its table")
            }
            if words.first == "SAVEPOINT" || words.first == "RELEASE" || words.starts(with: ["ROLLBACK", "TO"]) {
                return MigrationLintFinding(code: "savepoint", severity: .warning, identifier: identifier, path: path, line: line,
                                            message: "`\(text.prefix(80))`: the migration already runs in a transaction; a savepoint "
                                                + "rolled back in the file undoes part of it without failing it")
            }
            if words.starts(with: ["ALTER", "TABLE"]), words.contains("ADD"), words.contains("NOT"), words.contains("NULL"),
               !words.contains("DEFAULT") {
                return MigrationLintFinding(code: "not-null-without-default", severity: .error, identifier: identifier, path: path,
                                            line: line, message: "a column added NOT NULL needs a default (SQLite refuses it on a table with rows)")
            }
            return nil
        }
    }

    /// Names written with another case than their table or column.
    private static func caseMismatches(in sql: String, names: [String: String], identifier: String, path: String) -> [MigrationLintFinding] {
        var findings: [MigrationLintFinding] = []
        for (line, text) in SQLText.numberedStatements(in: sql) {
            var reported: Set<String> = []
            for word in text.split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "_" }).map(String.init) {
                guard let known = names[word.lowercased()], known != word, word.lowercased() != word.uppercased(),
                      word != word.uppercased(), reported.insert(word).inserted else { continue }
                findings.append(MigrationLintFinding(code: "case-mismatch", severity: .warning, identifier: identifier, path: path,
                                                     line: line, message: "`\(word)` names `\(known)`"))
            }
        }
        return findings
    }

    // MARK: Dynamic checks

    private static func drops(from before: SchemaSnapshot, to after: SchemaSnapshot, identifier: String,
                              file: SQLMigrationFile?) -> [MigrationLintFinding] {
        let tablesAfter = Dictionary(after.objects.filter { $0.type == "table" }.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var findings: [MigrationLintFinding] = []
        for table in before.objects where table.type == "table" {
            let line = file.map { dropLine(of: table.name, in: $0.upSQL) } ?? 0
            guard let now = tablesAfter[table.name] else {
                findings.append(MigrationLintFinding(code: "drop-table", severity: .warning, identifier: identifier,
                                                     path: file?.upURL.path, line: line, message: "drops table \(table.name)"))
                continue
            }
            let columnsNow = Set((now.columns ?? []).map { $0.prefix { $0 != " " } })
            for column in table.columns ?? [] where !columnsNow.contains(column.prefix { $0 != " " }) {
                findings.append(MigrationLintFinding(code: "drop-column", severity: .warning, identifier: identifier,
                                                     path: file?.upURL.path, line: line,
                                                     message: "drops column \(table.name).\(column.prefix { $0 != " " })"))
            }
        }
        return findings
    }

    /// The line of the statement that drops `table` (a rebuild drops the
    /// old table), or 0.
    private static func dropLine(of table: String, in sql: String) -> Int {
        SQLText.numberedStatements(in: sql).first { _, text in
            let words = text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "_" })
            return words.starts(with: ["drop", "table"]) && words.contains(Substring(table))
        }?.line ?? 0
    }

    private static func failedLine(_ error: any Error) -> Int {
        if case let .sqlFailed(_, _, line, _)? = error as? MigrationError { return line }
        return 0
    }

    /// Findings not silenced by `-- lint: allow CODE` (or `destructive`)
    /// on the line before their statement.
    private static func unsuppressed(_ findings: [MigrationLintFinding], files: [SQLMigrationFile]) -> [MigrationLintFinding] {
        var lines: [String: [Substring]] = [:]
        for file in files {
            lines[file.upURL.path] = file.upSQL.split(separator: "\n", omittingEmptySubsequences: false)
            if let down = file.downSQL, let url = file.downURL { lines[url.path] = down.split(separator: "\n", omittingEmptySubsequences: false) }
        }
        return findings.filter { finding in
            guard let path = finding.path, finding.line > 1, let text = lines[path], finding.line - 2 < text.count else { return true }
            let previous = text[finding.line - 2].trimmingCharacters(in: .whitespaces).lowercased()
            guard previous.hasPrefix("-- lint: allow ") else { return true }
            let allowed = previous.dropFirst("-- lint: allow ".count).split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
            return !(allowed.contains(finding.code)
                     || (allowed.contains("destructive") && MigrationLintFinding.destructiveCodes.contains(finding.code)))
        }
    }
}
