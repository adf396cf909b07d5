internal import CSQLCipher

// The binding of a plain value as it is, for the INSERT of records that
// binds each value as the record encoder produces it: no `DatabaseValue`
// made, switched on and destroyed for each column (about 130 instructions
// per column in the benchmark's Codable record insert).

/// A value that a ``Statement`` binds without making a ``DatabaseValue``:
/// what it binds is what its ``DatabaseValueConvertible/databaseValue``
/// would bind.
protocol DirectlyBoundValue: DatabaseValueConvertible {
    /// Binds the value to parameter `index` (the first is 1) of
    /// `statement`: SQLite's result code.
    func bind(to statement: Statement, at index: CInt) -> CInt
}

extension Statement {
    /// Binds an integer to parameter `index`: SQLite's code.
    @inline(__always)
    func bind(integer value: Int64, at index: CInt) -> CInt {
        sqlite3_bind_int64(sqliteStatement, index, value)
    }

    /// Binds a real to parameter `index`: SQLite's code.
    @inline(__always)
    func bind(real value: Double, at index: CInt) -> CInt {
        sqlite3_bind_double(sqliteStatement, index, value)
    }

    /// Binds text to parameter `index`, from a copy in the argument
    /// buffer: SQLite's code. A native string is read in place; only
    /// another (a bridged one) needs a contiguous copy first.
    func bind(text value: String, at index: CInt) -> CInt {
        value.utf8.withContiguousStorageIfAvailable { bindBytes(UnsafeRawBufferPointer($0), at: index, asText: true) }
            ?? { var contiguous = value; return contiguous.withUTF8 { bindBytes(UnsafeRawBufferPointer($0), at: index, asText: true) } }()
    }
}

// The conformances are declared with the types' others (Int to UInt32,
// Bool, Double, Float, String), in StandardLibrary.swift. UInt and UInt64
// are not among them: a value that does not fit Int64 is stored as REAL.

extension DirectlyBoundValue where Self: FixedWidthInteger {
    /// The integer, which fits Int64 for every conforming type.
    func bind(to statement: Statement, at index: CInt) -> CInt {
        statement.bind(integer: Int64(truncatingIfNeeded: self), at: index)
    }
}

extension DirectlyBoundValue where Self: BinaryFloatingPoint {
    /// The value as a REAL.
    func bind(to statement: Statement, at index: CInt) -> CInt { statement.bind(real: Double(self), at: index) }
}

extension Bool {
    /// 1 or 0, as ``databaseValue``.
    func bind(to statement: Statement, at index: CInt) -> CInt { statement.bind(integer: self ? 1 : 0, at: index) }
}

extension String {
    /// The text.
    func bind(to statement: Statement, at index: CInt) -> CInt { statement.bind(text: self, at: index) }
}
