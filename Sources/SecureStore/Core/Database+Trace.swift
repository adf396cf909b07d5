import Foundation
internal import CSQLCipher

extension Database {
    /// What `trace` reports.
    public struct TracingOptions: OptionSet, Sendable {
        public let rawValue: CInt
        public init(rawValue: CInt) { self.rawValue = rawValue }

        /// Each statement as it starts.
        public static let statement = TracingOptions(rawValue: CInt(SQLITE_TRACE_STMT))
    }

    /// A traced event.
    public enum TraceEvent: CustomStringConvertible {
        /// A statement that starts running.
        case statement(TracedStatement)

        /// The SQL text, with `?` for arguments.
        public var description: String {
            switch self {
            case .statement(let statement): return statement.sql
            }
        }

        /// The SQL with argument values in place. It shows the values: keep
        /// it out of logs when they may be secrets.
        public var expandedDescription: String {
            switch self {
            case .statement(let statement): return statement.expandedSQL
            }
        }
    }

    /// A statement reported by `trace`.
    public struct TracedStatement {
        let handle: OpaquePointer
        /// The SQL text, with `?` for arguments.
        public var sql: String { sqlite3_sql(handle).map { String(cString: $0) } ?? "" }
        /// The SQL with argument values in place.
        public var expandedSQL: String {
            guard let text = sqlite3_expanded_sql(handle) else { return sql }
            defer { sqlite3_free(text) }
            return String(cString: text)
        }
    }

    /// Reports each statement this connection runs; nil stops tracing.
    ///
    /// ```swift
    /// config.prepareDatabase { db in
    ///     db.trace { print($0) }
    /// }
    /// ```
    public func trace(options: TracingOptions = .statement, _ trace: ((TraceEvent) -> Void)? = nil) {
        guard let trace else {
            traceBox = nil
            sqlite3_trace_v2(sqliteConnection, 0, nil, nil)
            return
        }
        let box = TraceBox(trace)
        traceBox = box
        sqlite3_trace_v2(sqliteConnection, UInt32(options.rawValue), { _, context, statement, _ in
            guard let context, let statement else { return 0 }
            let box = Unmanaged<TraceBox>.fromOpaque(context).takeUnretainedValue()
            box.trace(.statement(TracedStatement(handle: OpaquePointer(statement))))
            return 0
        }, Unmanaged.passUnretained(box).toOpaque())
    }
}

/// Keeps a trace function alive for SQLite's C callback.
final class TraceBox {
    let trace: (Database.TraceEvent) -> Void
    init(_ trace: @escaping (Database.TraceEvent) -> Void) { self.trace = trace }
}
