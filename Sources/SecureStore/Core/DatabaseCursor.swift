internal import CSQLCipher

/// A cursor over the rows of a statement. It resets the statement when it
/// is done or released, so that the statement can run again.
public protocol DatabaseCursor: Cursor {
    /// The statement this cursor steps.
    var statement: Statement { get }
}

/// Steps a statement for a cursor and remembers when it is done.
final class StatementStepper {
    let statement: Statement
    private var isDone = false

    init(statement: Statement, arguments: StatementArguments?) throws {
        self.statement = statement
        if let arguments { try statement.setArguments(arguments) } else { statement.reset() }
        statement.forgetColumnCount()
    }

    deinit {
        if !isDone { statement.reset() }
    }

    /// True when the statement stands on a new row.
    @inline(__always)
    func step() throws -> Bool {
        if isDone { return false }
        do {
            if try statement.step() { return true }
        } catch {
            isDone = true
            throw error
        }
        isDone = true
        statement.reset()
        return false
    }
}

/// A cursor of rows. The row it hands out is reused at each step: copy it
/// to keep it.
public final class RowCursor: DatabaseCursor {
    public var statement: Statement { stepper.statement }
    private let stepper: StatementStepper
    private let row: Row

    init(statement: Statement, arguments: StatementArguments?) throws {
        stepper = try StatementStepper(statement: statement, arguments: arguments)
        row = Row(statement: statement)
    }

    public func next() throws -> Row? {
        try stepper.step() ? row : nil
    }
}

/// A cursor of values read from the first column.
public final class DatabaseValueCursor<Value: DatabaseValueConvertible>: DatabaseCursor {
    public var statement: Statement { stepper.statement }
    private let stepper: StatementStepper

    init(statement: Statement, arguments: StatementArguments?) throws {
        stepper = try StatementStepper(statement: statement, arguments: arguments)
    }

    public func next() throws -> Value? {
        guard try stepper.step() else { return nil }
        return try Value.decode(from: stepper.statement, index: 0)
    }
}

/// A cursor of values read from the first column through the fast path.
public final class FastDatabaseValueCursor<Value: DatabaseValueConvertible & StatementColumnConvertible>: DatabaseCursor {
    public var statement: Statement { stepper.statement }
    private let stepper: StatementStepper

    init(statement: Statement, arguments: StatementArguments?) throws {
        stepper = try StatementStepper(statement: statement, arguments: arguments)
    }

    public func next() throws -> Value? {
        guard try stepper.step() else { return nil }
        return try Value.fastDecode(from: stepper.statement, index: 0)
    }
}
