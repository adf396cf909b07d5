/// A cursor of the statements of an SQL text that holds several, prepared
/// one at a time, from ``Database/allStatements(sql:arguments:)``.
///
/// ```swift
/// let statements = try db.allStatements(sql: """
///     INSERT INTO player (name) VALUES (?);
///     INSERT INTO player (name) VALUES (?);
///     """, arguments: ["Arthur", "Barbara"])
/// while let statement = try statements.next() {
///     try statement.execute()
/// }
/// ```
///
/// Positional arguments are consumed in order across the statements; named
/// arguments go to every statement that names them. Arguments left over at
/// the end are an error.
public final class SQLStatementCursor: Cursor {
    private let database: Database
    /// The SQL, NUL-terminated.
    private let text: ContiguousArray<CChar>
    private var offset = 0
    private let arguments: StatementArguments?
    private var positional: ArraySlice<DatabaseValue>
    private var isDone = false

    init(database: Database, sql: String, arguments: StatementArguments?) {
        self.database = database
        self.text = sql.utf8CString
        self.arguments = arguments
        self.positional = arguments?.values[...] ?? []
    }

    /// The next statement, with its arguments bound; nil after the last.
    public func next() throws -> Statement? {
        while !isDone {
            let prepared: Statement? = try text.withUnsafeBufferPointer { buffer in
                guard let base = buffer.baseAddress, base[offset] != 0 else {
                    isDone = true
                    return nil
                }
                let start = base + offset
                var tail: UnsafePointer<CChar>?
                let statement = try database.prepare(start, tail: &tail, sqlForErrors: { String(cString: start) }, arguments: arguments)
                offset = tail.map { base.distance(to: $0) } ?? (buffer.count - 1)
                return statement
            }
            if let statement = prepared {
                if let arguments {
                    try statement.bind(&positional, named: arguments.namedValues, reporting: arguments)
                }
                return statement
            }
        }
        if let arguments, !positional.isEmpty {
            positional = []
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "wrong number of statement arguments: \(arguments.values.count)",
                                arguments: arguments, publicStatementArguments: database.configuration.publicStatementArguments)
        }
        return nil
    }
}

extension Database {
    /// The statements of an SQL text that holds several, prepared one at a
    /// time.
    public func allStatements(sql: String, arguments: StatementArguments? = nil) throws -> SQLStatementCursor {
        try checkOpen()
        return SQLStatementCursor(database: self, sql: sql, arguments: arguments)
    }
}
