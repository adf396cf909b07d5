/// Writes the SQL of `create(table:)`: the columns (those of `belongsTo`
/// included) in the order they were declared, then the table constraints
/// (primary key, unique keys, foreign keys, checks, literals), then the
/// indexes, joined with `; ` — GRDB's text.
struct SQLTableGenerator {
    private let table: TableDefinition
    private let db: Database
    /// The table's own primary key, for foreign keys to itself.
    private var ownPrimaryKey: [(name: String, type: Database.ColumnType?)]?
    private var indexOptions: IndexOptions = []

    init(_ db: Database, table: TableDefinition) throws {
        self.db = db
        self.table = table
        if table.options.contains(.ifNotExists) { indexOptions.insert(.ifNotExists) }
        if let constraint = table.primaryKeyConstraint {
            ownPrimaryKey = try constraint.components.flatMap { component -> [(name: String, type: Database.ColumnType?)] in
                switch component {
                case .columnName(let name): return [(name, nil)]
                case .column(let column): return [(column.name, column.type)]
                case .foreignKey(let foreignKey):
                    if Self.refersToSelf(foreignKey, table: table) {
                        throw DatabaseError(resultCode: .SQLITE_MISUSE, message: """
                            the primary key of \(table.name) can not be a foreign key to \(table.name) itself
                            """)
                    }
                    return try self.foreignKeyColumns(foreignKey).map { ($0.name, $0.type) }
                }
            }
        } else {
            for case .column(let column) in table.columnComponents where column.primaryKey != nil {
                ownPrimaryKey = [(column.name, column.type)]
                break
            }
        }
    }

    func sql() throws -> String {
        if let error = table.definitionError { throw error }
        if table.options.contains(.strict) { try db.requireSQLite(3_037_000, feature: "STRICT tables") }
        var items: [String] = []
        var foreignKeyConstraints: [TableDefinition.ForeignKeyConstraint] = []
        var indexes: [IndexDefinition] = []
        for component in table.columnComponents {
            switch component {
            case .column(let column):
                items.append(try columnSQL(column))
                if let index = index(of: column) { indexes.append(index) }
            case .literal(let literal):
                items.append(try literal.sql(SQLGenerationContext(db, inlinesValues: true)))
            case .foreignKeyDefinition(let foreignKey):
                let (columns, constraint, index) = try foreignKeyDefinition(foreignKey)
                for column in columns {
                    items.append(try columnSQL(column))
                    if let index = self.index(of: column) { indexes.append(index) }
                }
                if let constraint { foreignKeyConstraints.append(constraint) }
                if let index { indexes.append(index) }
            case .foreignKeyConstraint(let constraint):
                foreignKeyConstraints.append(constraint)
            }
        }
        if let constraint = table.primaryKeyConstraint {
            items.append(keyConstraintSQL("PRIMARY KEY", try keyColumns(constraint), constraint.conflictResolution))
        }
        for constraint in table.uniqueKeyConstraints {
            items.append(keyConstraintSQL("UNIQUE", try keyColumns(constraint), constraint.conflictResolution))
        }
        for constraint in foreignKeyConstraints {
            var chunks = ["FOREIGN KEY", "(\(list(constraint.columns)))", "REFERENCES"]
            let destination = try constraint.destinationColumns ?? destinationKey(constraint.destinationTable)
            chunks.append("\(constraint.destinationTable.quotedDatabaseIdentifier)(\(list(destination)))")
            chunks += actions(constraint.deleteAction, constraint.updateAction, constraint.isDeferred)
            items.append(chunks.joined(separator: " "))
        }
        for check in table.checkConstraints { items.append("CHECK (\(try check.quotedSQL(db)))") }
        for literal in table.literalConstraints { items.append(try literal.sql(SQLGenerationContext(db, inlinesValues: true))) }

        var chunks = ["CREATE"]
        if table.options.contains(.temporary) { chunks.append("TEMPORARY") }
        chunks.append("TABLE")
        if table.options.contains(.ifNotExists) { chunks.append("IF NOT EXISTS") }
        chunks.append(table.name.quotedDatabaseIdentifier)
        chunks.append("(\(items.joined(separator: ", ")))")
        var tableOptions: [String] = []
        if table.options.contains(.strict) { tableOptions.append("STRICT") }
        if table.options.contains(.withoutRowID) { tableOptions.append("WITHOUT ROWID") }
        if !tableOptions.isEmpty { chunks.append(tableOptions.joined(separator: ", ")) }
        return ([chunks.joined(separator: " ")] + (try indexes.map { try $0.sql(db) })).joined(separator: "; ")
    }

    // MARK: Columns

    /// `"name" TYPE PRIMARY KEY ... NOT NULL ... REFERENCES ...`.
    func columnSQL(_ column: ColumnDefinition) throws -> String {
        var chunks = [column.name.quotedDatabaseIdentifier]
        if let type = column.type { chunks.append(type.rawValue) }
        if let (conflict, autoincrement) = column.primaryKey {
            chunks.append("PRIMARY KEY")
            if let conflict { chunks += ["ON CONFLICT", conflict.rawValue] }
            if autoincrement { chunks.append("AUTOINCREMENT") }
        }
        switch column.notNullConflictResolution {
        case nil: break
        case .abort?: chunks.append("NOT NULL")
        case let conflict?: chunks += ["NOT NULL ON CONFLICT", conflict.rawValue]
        }
        if case .unique(let conflict)? = column.indexing {
            if conflict == .abort { chunks.append("UNIQUE") } else { chunks += ["UNIQUE ON CONFLICT", conflict.rawValue] }
        }
        for check in column.checkConstraints { chunks.append("CHECK (\(try check.quotedSQL(db)))") }
        if let defaultExpression = column.defaultExpression { chunks.append("DEFAULT \(try defaultExpression.quotedSQL(db))") }
        if let collation = column.collationName { chunks += ["COLLATE", collation] }
        for constraint in column.foreignKeyConstraints {
            chunks.append("REFERENCES")
            let destination = try constraint.destinationColumn.map { [$0] } ?? destinationKey(constraint.destinationTable)
            chunks.append("\(constraint.destinationTable.quotedDatabaseIdentifier)(\(list(destination)))")
            chunks += actions(constraint.deleteAction, constraint.updateAction, constraint.isDeferred)
        }
        if let (expression, qualification) = column.generated {
            try db.requireSQLite(3_031_000, feature: "generated columns")
            chunks.append("GENERATED ALWAYS AS (\(try expression.quotedSQL(db)))")
            chunks.append(qualification == .stored ? "STORED" : "VIRTUAL")
        }
        return chunks.joined(separator: " ")
    }

    private func index(of column: ColumnDefinition) -> IndexDefinition? {
        guard case .index? = column.indexing else { return nil }
        return IndexDefinition(name: "\(table.name)_on_\(column.name)", table: table.name,
                               expressions: [.column(column.name)], options: indexOptions, condition: nil)
    }

    // MARK: Foreign keys

    /// True when `t.belongsTo(...)` refers to the table being defined.
    private static func refersToSelf(_ foreignKey: ForeignKeyDefinition, table: TableDefinition) -> Bool {
        foreignKey.table.map { $0.lowercased() == table.name.lowercased() }
            ?? (table.name.singularized.lowercased() == foreignKey.name.singularized.lowercased())
    }

    /// The primary key columns of a table, or of this table for a foreign
    /// key to itself (the rowid when it has no declared key).
    private func destinationKey(_ destination: String) throws -> [String] {
        if destination.lowercased() == table.name.lowercased() { return (ownPrimaryKey ?? [("rowid", .integer)]).map(\.name) }
        return try db.primaryKey(destination).columns
    }

    /// The columns of `t.belongsTo(...)`, named `<name><KeyColumn>` and
    /// typed like the destination's primary key.
    private func foreignKeyColumns(_ foreignKey: ForeignKeyDefinition) throws -> [(name: String, type: Database.ColumnType?, destination: String?)] {
        let key: [(name: String, type: Database.ColumnType?)]?
        if Self.refersToSelf(foreignKey, table: table) {
            key = ownPrimaryKey
        } else {
            let destination = try foreignKey.destinationTable(db)
            let primaryKey = try db.primaryKey(destination)
            let columns = try db.columns(in: destination)
            key = primaryKey.rowIDColumn == nil && primaryKey.isRowID
                ? nil
                : primaryKey.columns.map { name in
                    (name, columns.first { $0.name == name }.flatMap { $0.type.isEmpty ? nil : Database.ColumnType(rawValue: $0.type) })
                }
        }
        // No declared key (a hidden rowid): "<name>Id" INTEGER.
        guard let key, !key.isEmpty else { return [(foreignKey.name + "Id", .integer, nil)] }
        return key.map { (foreignKey.name + $0.name.uppercasingFirstCharacter, $0.type, $0.name) }
    }

    private func foreignKeyDefinition(_ foreignKey: ForeignKeyDefinition) throws
    -> (columns: [ColumnDefinition], constraint: TableDefinition.ForeignKeyConstraint?, index: IndexDefinition?) {
        let destination: String
        if let given = foreignKey.table {
            destination = given
        } else if Self.refersToSelf(foreignKey, table: table) {
            destination = table.name
        } else {
            destination = try foreignKey.destinationTable(db)
        }
        let keyColumns = try foreignKeyColumns(foreignKey)
        if keyColumns.count == 1 {
            let key = keyColumns[0]
            let column = ColumnDefinition(name: key.name, type: key.type)
                .references(destination, column: key.destination, onDelete: foreignKey.deleteAction,
                            onUpdate: foreignKey.updateAction, deferred: foreignKey.isDeferred)
            if let conflict = foreignKey.notNullConflictResolution { column.notNull(onConflict: conflict) }
            switch foreignKey.indexing {
            case .index?: column.indexed()
            case .unique?: column.unique()
            case nil: break
            }
            return ([column], nil, nil)
        }
        let columns = keyColumns.map { key -> ColumnDefinition in
            let column = ColumnDefinition(name: key.name, type: key.type)
            if let conflict = foreignKey.notNullConflictResolution { column.notNull(onConflict: conflict) }
            return column
        }
        let names = keyColumns.map(\.name)
        let constraint = TableDefinition.ForeignKeyConstraint(
            columns: names, destinationTable: destination, destinationColumns: nil,
            deleteAction: foreignKey.deleteAction, updateAction: foreignKey.updateAction, isDeferred: foreignKey.isDeferred)
        let index = foreignKey.indexing.map { indexing in
            IndexDefinition(name: Database.defaultIndexName(on: table.name, columns: names), table: table.name,
                            expressions: names.map { .column($0) },
                            options: indexing == .unique ? indexOptions.union(.unique) : indexOptions, condition: nil)
        }
        return (columns, constraint, index)
    }

    // MARK: Helpers

    private func keyColumns(_ constraint: TableDefinition.KeyConstraint) throws -> [String] {
        try constraint.components.flatMap { component -> [String] in
            switch component {
            case .columnName(let name): return [name]
            case .column(let column): return [column.name]
            case .foreignKey(let foreignKey): return try foreignKeyColumns(foreignKey).map(\.name)
            }
        }
    }

    private func keyConstraintSQL(_ keyword: String, _ columns: [String], _ conflict: Database.ConflictResolution?) -> String {
        var chunks = [keyword, "(\(list(columns)))"]
        if let conflict { chunks += ["ON CONFLICT", conflict.rawValue] }
        return chunks.joined(separator: " ")
    }

    private func actions(_ delete: Database.ForeignKeyAction?, _ update: Database.ForeignKeyAction?, _ isDeferred: Bool) -> [String] {
        var chunks: [String] = []
        if let delete { chunks += ["ON DELETE", delete.rawValue] }
        if let update { chunks += ["ON UPDATE", update.rawValue] }
        if isDeferred { chunks.append("DEFERRABLE INITIALLY DEFERRED") }
        return chunks
    }

    private func list(_ columns: [String]) -> String { columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ") }
}
