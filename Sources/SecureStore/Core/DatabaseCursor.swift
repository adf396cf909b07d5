internal import CSQLCipher

/// A cursor over the rows of a statement. It resets the statement when it
/// is done or released, so that the statement can run again.
public protocol DatabaseCursor<Element>: Cursor {
    /// The statement this cursor steps.
    var statement: Statement { get }
}

extension DatabaseCursor {
    /// The SQL of the statement.
    public var sql: String { statement.sql }

    /// The arguments of the statement.
    public var arguments: StatementArguments { statement.arguments }

    /// The column names of the statement.
    public var columnNames: [String] { statement.columnNames }

    /// The number of columns of the statement.
    public var columnCount: Int { statement.columnCount }

    /// The tables and columns the statement reads.
    public var databaseRegion: DatabaseRegion { statement.databaseRegion }
}

/// Steps a statement for a cursor and remembers when it is done.
@usableFromInline
final class StatementStepper {
    let statement: Statement
    /// The column that value cursors read.
    let column: CInt
    private var isDone = false

    init(statement: Statement, arguments: StatementArguments?, column: Int = 0) throws {
        self.statement = statement
        self.column = CInt(column)
        if let arguments { try statement.setArguments(arguments) } else { statement.reset() }
        statement.forgetColumnCount()
    }

    deinit {
        if !isDone { statement.reset() }
    }

    /// True when the statement stands on a new row.
    @usableFromInline @inline(__always)
    func step() throws -> Bool {
        if isDone { return false }
        // After an error the cursor is not done: stepping again runs the
        // statement again, as in GRDB (an error that repeats throws again).
        if try statement.step() { return true }
        isDone = true
        statement.reset()
        return false
    }
}

/// A cursor of rows. The row it hands out is reused at each step: copy it
/// to keep it.
public final class RowCursor: DatabaseCursor {
    /// The statement the rows come from.
    public let statement: Statement
    private let stepper: StatementStepper?
    private let row: Row?
    private var fetched: IndexingIterator<[Row]>?

    /// A cursor over a statement's rows, seen through `adapter` if any.
    init(statement: Statement, arguments: StatementArguments?, adapter: LayoutedRowAdapter? = nil) throws {
        self.statement = statement
        stepper = try StatementStepper(statement: statement, arguments: arguments)
        let base = Row(statement: statement)
        row = adapter.map { Row(base: base, adapter: $0) } ?? base
    }

    /// A cursor over rows already fetched (with their prefetched
    /// associations).
    init(rows: [Row], statement: Statement) {
        self.statement = statement
        stepper = nil
        row = nil
        fetched = rows.makeIterator()
    }

    /// The next element, or nil after the last.
    public func next() throws -> Row? {
        // Optional chaining reads the stepper in place: `guard let`
        // would retain and release it at each row.
        switch try stepper?.step() {
        case true?: return row
        case false?: return nil
        case nil: return fetched?.next()
        }
    }
}

/// A cursor of values read from one column (the first, or the first of an
/// adapted row).
public final class DatabaseValueCursor<Value: DatabaseValueConvertible>: DatabaseCursor {
    /// The statement the cursor steps.
    public var statement: Statement { stepper.statement }
    private let stepper: StatementStepper

    init(statement: Statement, arguments: StatementArguments?, column: Int = 0) throws {
        stepper = try StatementStepper(statement: statement, arguments: arguments, column: column)
    }

    /// The next element, or nil after the last.
    public func next() throws -> Value? {
        try stepper.step() ? Value.decode(from: stepper.statement, index: stepper.column) : nil
    }
}

/// A cursor of values read from one column through the fast path.
public final class FastDatabaseValueCursor<Value: DatabaseValueConvertible & StatementColumnConvertible>: DatabaseCursor {
    /// The statement the cursor steps.
    public var statement: Statement { stepper.statement }
    private let stepper: StatementStepper

    init(statement: Statement, arguments: StatementArguments?, column: Int = 0) throws {
        stepper = try StatementStepper(statement: statement, arguments: arguments, column: column)
    }

    /// The next element, or nil after the last.
    public func next() throws -> Value? {
        try stepper.step() ? Value.fastDecode(from: stepper.statement, index: stepper.column) : nil
    }
}
