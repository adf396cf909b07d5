import Foundation
internal import CSQLCipher

extension Database {
    /// The kinds of events ``Database/trace(options:_:)`` reports.
    public struct TracingOptions: OptionSet, Sendable {
        /// The `SQLITE_TRACE_*` mask.
        public let rawValue: CInt

        /// Options from a `SQLITE_TRACE_*` mask.
        public init(rawValue: CInt) { self.rawValue = rawValue }

        /// Each statement as it starts; statements run by triggers are
        /// reported as their `-- TRIGGER name` comment.
        public static let statement = TracingOptions(rawValue: CInt(SQLITE_TRACE_STMT))

        /// Each statement when it ends, with the time it took.
        public static let profile = TracingOptions(rawValue: CInt(SQLITE_TRACE_PROFILE))
    }

    /// An event reported by ``Database/trace(options:_:)``.
    ///
    /// The description shows `?` for arguments, unless
    /// ``Configuration/publicStatementArguments`` is set: argument values
    /// (keys, personal data) stay out of logs by default.
    public enum TraceEvent: CustomStringConvertible {
        /// A statement that starts running.
        case statement(Statement)

        /// A statement that ended, and how long it ran, in seconds.
        case profile(statement: Statement, duration: TimeInterval)

        /// A statement reported by the trace.
        public struct Statement: CustomStringConvertible {
            let handle: OpaquePointer
            /// The text SQLite passes with `.statement` events (the
            /// statement, or a trigger's comment).
            let unexpandedSQL: String?
            let publicStatementArguments: Bool

            /// The SQL, with `?` for arguments, without surrounding white
            /// space and semicolons: `SELECT * FROM player WHERE id = ?`.
            public var sql: String {
                if let unexpandedSQL {
                    return unexpandedSQL.hasPrefix("--") ? unexpandedSQL : unexpandedSQL.trimmedSQLStatement
                }
                return String(cString: sqlite3_sql(handle)).trimmedSQLStatement
            }

            /// The SQL with argument values in place:
            /// `SELECT * FROM player WHERE id = 1`. It shows the values:
            /// keep it out of logs when they may be secret.
            public var expandedSQL: String {
                if let unexpandedSQL, unexpandedSQL.hasPrefix("--") { return unexpandedSQL }
                guard let text = sqlite3_expanded_sql(handle) else { return "" }
                defer { sqlite3_free(text) }
                return String(cString: text).trimmedSQLStatement
            }

            /// ``sql``, or ``expandedSQL`` when the configuration makes
            /// arguments public.
            public var description: String { publicStatementArguments ? expandedSQL : sql }
        }

        /// The statement, preceded by the duration for profile events
        /// (`0.002s SELECT ...`).
        public var description: String {
            switch self {
            case .statement(let statement): return statement.description
            case let .profile(statement, duration): return String(format: "%.3fs ", duration) + statement.description
            }
        }

        /// Like ``description``, with argument values in place whatever
        /// the configuration.
        public var expandedDescription: String {
            switch self {
            case .statement(let statement): return statement.expandedSQL
            case let .profile(statement, duration): return String(format: "%.3fs ", duration) + statement.expandedSQL
            }
        }
    }

    /// Reports the events of this connection; nil (or empty options) stops
    /// tracing.
    ///
    /// ```swift
    /// var config = Configuration()
    /// config.prepareDatabase { db in
    ///     db.trace { print($0) }
    /// }
    /// ```
    public func trace(options: TracingOptions = .statement, _ trace: ((TraceEvent) -> Void)? = nil) {
        guard let trace, !options.isEmpty else {
            traceBox = nil
            sqlite3_trace_v2(sqliteConnection, 0, nil, nil)
            return
        }
        let box = TraceBox(trace, publicStatementArguments: configuration.publicStatementArguments)
        traceBox = box
        sqlite3_trace_v2(sqliteConnection, UInt32(bitPattern: options.rawValue), { mask, context, p, x in
            guard let context, let p else { return 0 }
            Unmanaged<TraceBox>.fromOpaque(context).takeUnretainedValue()
                .report(mask: CInt(bitPattern: mask), statement: OpaquePointer(p), x)
            return 0
        }, Unmanaged.passUnretained(box).toOpaque())
    }
}

/// Keeps a trace function alive for SQLite's C callback.
final class TraceBox {
    let trace: (Database.TraceEvent) -> Void
    let publicStatementArguments: Bool

    init(_ trace: @escaping (Database.TraceEvent) -> Void, publicStatementArguments: Bool) {
        self.trace = trace
        self.publicStatementArguments = publicStatementArguments
    }

    func report(mask: CInt, statement handle: OpaquePointer, _ x: UnsafeMutableRawPointer?) {
        switch mask {
        case CInt(SQLITE_TRACE_STMT):
            let text = x.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) }
            trace(.statement(.init(handle: handle, unexpandedSQL: text, publicStatementArguments: publicStatementArguments)))
        case CInt(SQLITE_TRACE_PROFILE):
            guard let nanoseconds = x?.assumingMemoryBound(to: Int64.self).pointee else { return }
            let statement = Database.TraceEvent.Statement(handle: handle, unexpandedSQL: nil, publicStatementArguments: publicStatementArguments)
            trace(.profile(statement: statement, duration: TimeInterval(nanoseconds) / 1e9))
        default:
            break
        }
    }
}

extension String {
    /// The SQL of a compiled statement without surrounding white space and
    /// semicolons, as GRDB shows statements.
    var trimmedSQLStatement: String {
        var scalars = Substring(self)
        while let last = scalars.last, last.isWhitespace || last == ";" { scalars.removeLast() }
        while let first = scalars.first, first.isWhitespace || first == ";" { scalars.removeFirst() }
        return String(scalars)
    }
}
