/// The ` RETURNING ...` clause of an INSERT, UPDATE or DELETE, as GRDB
/// writes it: the selection qualified with the table (so that selections
/// such as `.allColumns(excluding:)` can ask the database about it), and
/// written without a qualifier, the table being the statement's only one.
///
/// It needs SQLite 3.35: below, making one throws an error that names the
/// version, before anything runs. An empty selection makes no clause.
struct SQLReturningClause {
    /// ` RETURNING "id", "name"`, or empty.
    var sql = ""
    /// The arguments of the selection, after the statement's own.
    var arguments = StatementArguments()

    init(_ db: Database, selection: [any SQLSelectable], tableName: String) throws {
        guard !selection.isEmpty else { return }
        try db.requireSQLite(SQLiteFeature.returning.version, feature: SQLiteFeature.returning.name)
        let alias = TableAlias(tableName: tableName)
        let context = SQLGenerationContext(db, aliases: [alias])
        sql = " RETURNING " + (try selection.map { try $0.sqlSelection.qualified(with: alias).sql(context) }.joined(separator: ", "))
        arguments = context.arguments
    }
}
