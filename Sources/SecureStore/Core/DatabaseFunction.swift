import Foundation
internal import CSQLCipher

/// A custom SQL function, scalar or aggregate, written in Swift.
///
/// ```swift
/// let succ = DatabaseFunction("succ", argumentCount: 1, pure: true) { values in
///     Int.fromDatabaseValue(values[0]).map { $0 + 1 }
/// }
/// var config = Configuration()
/// config.prepareDatabase { db in db.add(function: succ) }
/// // SQL: SELECT succ(score) FROM player
/// // query interface: Player.select(succ(Column("score")))
/// ```
///
/// A function that throws makes its statement fail with the error's
/// description.
///
/// ## Topics
///
/// ### Making
///
/// - ``init(_:argumentCount:pure:function:)``
/// - ``init(_:argumentCount:pure:aggregate:)``
/// - ``DatabaseAggregate``
///
/// ### Using
///
/// - ``callAsFunction(_:)``
/// - ``Database/add(function:)``
/// - ``Database/remove(function:)``
public final class DatabaseFunction: Identifiable, Sendable {
    /// A function's identity: SQLite tells functions apart by name and
    /// number of arguments.
    public struct ID: Hashable, Sendable {
        let name: String
        /// -1 for variadic functions.
        let argumentCount: CInt

        /// Names compare ignoring case, as SQLite's do.
        public static func == (lhs: ID, rhs: ID) -> Bool {
            lhs.argumentCount == rhs.argumentCount && lhs.name.isEqualIgnoringCase(rhs.name)
        }

        /// Hashes the lowercased name.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(name.lowercased())
            hasher.combine(argumentCount)
        }
    }

    /// The function's identity.
    public let id: ID
    /// The function's name.
    public var name: String { id.name }
    /// True when the same arguments always give the same result.
    let isPure: Bool
    private let kind: Kind

    private enum Kind: Sendable {
        case scalar(@Sendable ([DatabaseValue]) throws -> (any DatabaseValueConvertible)?)
        case aggregate(@Sendable () -> any DatabaseAggregate)
    }

    /// A scalar function; nil `argumentCount` makes it variadic.
    public init(_ name: String, argumentCount: Int? = nil, pure: Bool = false,
                function: @escaping @Sendable ([DatabaseValue]) throws -> (any DatabaseValueConvertible)?) {
        id = ID(name: name, argumentCount: argumentCount.map(CInt.init) ?? -1)
        isPure = pure
        kind = .scalar(function)
    }

    /// An aggregate function: SQLite makes one `Aggregate` per group,
    /// steps it with each row's arguments, and finalizes it.
    public init<Aggregate: DatabaseAggregate & SendableMetatype>(_ name: String, argumentCount: Int? = nil, pure: Bool = false,
                                                                 aggregate: Aggregate.Type) {
        id = ID(name: name, argumentCount: argumentCount.map(CInt.init) ?? -1)
        isPure = pure
        kind = .aggregate { Aggregate() }
    }

    /// A call of the function in the query interface: `succ(Column("score"))`.
    public func callAsFunction(_ arguments: any SQLExpressible...) -> SQLExpression {
        switch kind {
        case .scalar: return .simpleFunction(name, arguments.map(\.sqlExpression), isPure: isPure)
        case .aggregate: return .aggregate(name, arguments.map(\.sqlExpression))
        }
    }

    // MARK: Installing in a connection

    /// Retained by SQLite for as long as the function is installed.
    private final class Box {
        let kind: Kind
        init(_ kind: Kind) { self.kind = kind }
    }

    /// One aggregate per group, kept in SQLite's aggregate context.
    private final class AggregateState {
        var aggregate: any DatabaseAggregate
        var failed = false
        init(_ aggregate: any DatabaseAggregate) { self.aggregate = aggregate }
    }

    func install(in db: Database) throws {
        let flags = SQLITE_UTF8 | (isPure ? SQLITE_DETERMINISTIC : 0)
        let box = Unmanaged.passRetained(Box(kind)).toOpaque()
        let release: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
            if let pointer { Unmanaged<Box>.fromOpaque(pointer).release() }
        }
        let code: CInt
        switch kind {
        case .scalar:
            code = sqlite3_create_function_v2(db.sqliteConnection, id.name, id.argumentCount, flags, box,
                                              { context, argc, argv in DatabaseFunction.callScalar(context, argc, argv) },
                                              nil, nil, release)
        case .aggregate:
            code = sqlite3_create_function_v2(db.sqliteConnection, id.name, id.argumentCount, flags, box, nil,
                                              { context, argc, argv in DatabaseFunction.step(context, argc, argv) },
                                              { context in DatabaseFunction.finalize(context) }, release)
        }
        guard code == SQLITE_OK else { throw DatabaseError(connection: db.sqliteConnection, code: code) }
    }

    func uninstall(in db: Database) {
        sqlite3_create_function_v2(db.sqliteConnection, id.name, id.argumentCount, SQLITE_UTF8, nil, nil, nil, nil, nil)
    }

    private static func box(_ context: OpaquePointer?) -> Box {
        Unmanaged<Box>.fromOpaque(sqlite3_user_data(context)).takeUnretainedValue()
    }

    private static func arguments(_ argc: CInt, _ argv: UnsafeMutablePointer<OpaquePointer?>?) -> [DatabaseValue] {
        (0..<Int(argc)).map { DatabaseValue(sqliteValue: argv![$0]!) }
    }

    private static func callScalar(_ context: OpaquePointer?, _ argc: CInt, _ argv: UnsafeMutablePointer<OpaquePointer?>?) {
        guard case .scalar(let function) = box(context).kind else { return }
        do {
            setResult(try function(arguments(argc, argv))?.databaseValue ?? .null, context)
        } catch {
            setError(error, context)
        }
    }

    /// The group's aggregate, made at its first row.
    private static func state(_ context: OpaquePointer?, creating: Bool) -> AggregateState? {
        let size = CInt(MemoryLayout<UnsafeMutableRawPointer>.size)
        guard let slot = sqlite3_aggregate_context(context, creating ? size : 0)?
            .assumingMemoryBound(to: UnsafeMutableRawPointer?.self) else { return nil }
        if let existing = slot.pointee { return Unmanaged<AggregateState>.fromOpaque(existing).takeUnretainedValue() }
        guard creating, case .aggregate(let make) = box(context).kind else { return nil }
        let state = AggregateState(make())
        slot.pointee = Unmanaged.passRetained(state).toOpaque()
        return state
    }

    private static func step(_ context: OpaquePointer?, _ argc: CInt, _ argv: UnsafeMutablePointer<OpaquePointer?>?) {
        guard let state = state(context, creating: true), !state.failed else { return }
        do {
            try state.aggregate.step(arguments(argc, argv))
        } catch {
            state.failed = true
            setError(error, context)
        }
    }

    private static func finalize(_ context: OpaquePointer?) {
        let state: AggregateState
        if let existing = Self.state(context, creating: false) {
            state = existing
            // Released here: SQLite frees the slot after this call.
            let slot = sqlite3_aggregate_context(context, 0)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
            if let pointer = slot?.pointee { Unmanaged<AggregateState>.fromOpaque(pointer).release() }
        } else {
            // No row at all: a fresh aggregate gives the empty result.
            guard case .aggregate(let make) = box(context).kind else { return }
            state = AggregateState(make())
        }
        guard !state.failed else { return }
        do {
            setResult(try state.aggregate.finalize()?.databaseValue ?? .null, context)
        } catch {
            setError(error, context)
        }
    }

    private static func setResult(_ value: DatabaseValue, _ context: OpaquePointer?) {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        switch value.storage {
        case .null: sqlite3_result_null(context)
        case .int64(let int): sqlite3_result_int64(context, int)
        case .double(let double): sqlite3_result_double(context, double)
        case .string(let string): sqlite3_result_text(context, string, -1, transient)
        case .blob(let data):
            data.withUnsafeBytes { sqlite3_result_blob(context, $0.baseAddress, CInt($0.count), transient) }
        }
    }

    private static func setError(_ error: any Error, _ context: OpaquePointer?) {
        if let error = error as? DatabaseError {
            sqlite3_result_error(context, error.message ?? "", -1)
            sqlite3_result_error_code(context, error.extendedResultCode.rawValue)
        } else {
            sqlite3_result_error(context, "\(error)", -1)
        }
    }
}

/// The state of an aggregate function over one group of rows.
///
/// ```swift
/// struct MySum: DatabaseAggregate {
///     var sum = 0
///     mutating func step(_ values: [DatabaseValue]) {
///         sum += Int.fromDatabaseValue(values[0]) ?? 0
///     }
///     func finalize() -> (any DatabaseValueConvertible)? { sum }
/// }
/// let mySum = DatabaseFunction("mysum", argumentCount: 1, aggregate: MySum.self)
/// ```
public protocol DatabaseAggregate {
    /// A new aggregate, for a new group.
    init()
    /// Adds the arguments of one row.
    mutating func step(_ dbValues: [DatabaseValue]) throws
    /// The result of the group.
    func finalize() throws -> (any DatabaseValueConvertible)?
}

extension DatabaseValue {
    /// Reads an SQLite value (a function argument).
    init(sqliteValue: OpaquePointer) {
        switch sqlite3_value_type(sqliteValue) {
        case SQLITE_NULL: self = .null
        case SQLITE_INTEGER: self.init(storage: .int64(sqlite3_value_int64(sqliteValue)))
        case SQLITE_FLOAT: self.init(storage: .double(sqlite3_value_double(sqliteValue)))
        case SQLITE_TEXT:
            let count = Int(sqlite3_value_bytes(sqliteValue))
            let text = sqlite3_value_text(sqliteValue).map {
                String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
            } ?? ""
            self.init(storage: .string(text))
        default:
            let count = Int(sqlite3_value_bytes(sqliteValue))
            self.init(storage: .blob(sqlite3_value_blob(sqliteValue).map { Data(bytes: $0, count: count) } ?? Data()))
        }
    }
}

extension DatabaseFunction {
    /// `swiftCapitalizedString(text)`: Swift's `capitalized`.
    public static let capitalize = stringFunction("swiftCapitalizedString") { $0.capitalized }
    /// `swiftLowercaseString(text)`: Swift's `lowercased()`.
    public static let lowercase = stringFunction("swiftLowercaseString") { $0.lowercased() }
    /// `swiftUppercaseString(text)`: Swift's `uppercased()`.
    public static let uppercase = stringFunction("swiftUppercaseString") { $0.uppercased() }
    /// `swiftLocalizedCapitalizedString(text)`.
    public static let localizedCapitalize = stringFunction("swiftLocalizedCapitalizedString") { $0.localizedCapitalized }
    /// `swiftLocalizedLowercaseString(text)`.
    public static let localizedLowercase = stringFunction("swiftLocalizedLowercaseString") { $0.localizedLowercase }
    /// `swiftLocalizedUppercaseString(text)`.
    public static let localizedUppercase = stringFunction("swiftLocalizedUppercaseString") { $0.localizedUppercase }

    /// A one-argument function of text; other values pass through.
    private static func stringFunction(_ name: String, _ transform: @escaping @Sendable (String) -> String) -> DatabaseFunction {
        DatabaseFunction(name, argumentCount: 1, pure: true) { values in
            guard let text = String.fromDatabaseValue(values[0]) else { return values[0] }
            return transform(text)
        }
    }

    /// The functions every connection has, as in GRDB.
    static let defaults: [DatabaseFunction] = [
        .capitalize, .lowercase, .uppercase, .localizedCapitalize, .localizedLowercase, .localizedUppercase,
    ]

    /// `DatabaseFunction.lowercase(expression)` as written by the query
    /// interface's `lowercased`.
    func callAsFunction(_ expression: SQLExpression) -> SQLExpression {
        .simpleFunction(name, [expression], isPure: isPure)
    }
}
