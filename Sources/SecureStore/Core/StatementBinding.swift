internal import CSQLCipher

/// A type that binds itself to a parameter of a prepared SQLite statement.
///
/// Every ``DatabaseValueConvertible`` type is one: it binds its
/// ``DatabaseValueConvertible/databaseValue``, which is also what the
/// arguments of SecureStore's own statements bind. Declare the conformance
/// yourself for a generic wrapper, next to its other database conformances:
/// a `RawRepresentable` type whose raw value binds needs no code.
///
/// ```swift
/// struct Tagged<Tag, RawValue>: RawRepresentable {
///     var rawValue: RawValue
/// }
///
/// extension Tagged: SQLExpressible where RawValue: SQLExpressible { }
/// extension Tagged: StatementBinding where RawValue: StatementBinding { }
/// extension Tagged: DatabaseValueConvertible where RawValue: DatabaseValueConvertible { }
/// ```
///
/// With the raw statement handle of a ``StatementColumnConvertible``
/// decoder, or one a C library hands you, `bind(to:at:)` sets a parameter
/// directly. SQLite copies the text and blob bytes it is given, so the
/// value need not outlive the call.
///
/// ## Topics
///
/// ### Binding a Parameter
///
/// - ``bind(to:at:)``
public protocol StatementBinding {
    /// Binds the value to parameter `index` (the first is 1) of
    /// `sqliteStatement`, and returns the result code of the
    /// `sqlite3_bind_*` call: `SQLITE_OK` (0), or `SQLITE_RANGE` (25) for
    /// an index the statement does not have.
    func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt
}

extension DatabaseValue: StatementBinding {
    /// Binds NULL, the integer, the real, a copy of the text, or a copy of
    /// the blob (an empty blob stays a blob, not NULL).
    ///
    /// A ``Statement`` binds its arguments' text and blobs from copies of
    /// its own, and their other values here.
    @inline(__always)
    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        // SQLITE_TRANSIENT: SQLite copies the bytes before the call returns.
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        switch storage {
        case .null:
            return sqlite3_bind_null(sqliteStatement, index)
        case .int64(let int):
            return sqlite3_bind_int64(sqliteStatement, index, int)
        case .double(let double):
            return sqlite3_bind_double(sqliteStatement, index, double)
        case .string(var string):
            // The length, not a NUL terminator: text may contain NUL.
            return string.withUTF8 { utf8 in
                utf8.withMemoryRebound(to: CChar.self) { text in
                    // A nil address would bind NULL; an empty text has none.
                    guard let address = text.baseAddress else { return sqlite3_bind_text(sqliteStatement, index, "", 0, transient) }
                    return sqlite3_bind_text(sqliteStatement, index, address, CInt(text.count), transient)
                }
            }
        case .blob(let data):
            guard !data.isEmpty else { return sqlite3_bind_zeroblob(sqliteStatement, index, 0) }
            return data.withUnsafeBytes { bytes in
                sqlite3_bind_blob(sqliteStatement, index, bytes.baseAddress, CInt(bytes.count), transient)
            }
        }
    }
}

extension DatabaseValueConvertible {
    /// Binds ``databaseValue``.
    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        databaseValue.bind(to: sqliteStatement, at: index)
    }
}

extension StatementBinding where Self: RawRepresentable, Self.RawValue: StatementBinding {
    /// Binds the raw value.
    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        rawValue.bind(to: sqliteStatement, at: index)
    }
}

extension Optional: StatementBinding where Wrapped: StatementBinding {
    /// Binds the wrapped value, or NULL.
    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        switch self {
        case .some(let value): return value.bind(to: sqliteStatement, at: index)
        case .none: return DatabaseValue.null.bind(to: sqliteStatement, at: index)
        }
    }
}
