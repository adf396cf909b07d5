import Foundation
internal import CSQLCipher

/// The raw SQLite statement handle, for ``StatementColumnConvertible``.
public typealias SQLiteStatement = OpaquePointer

/// A type that can be stored in and read from a database column.
///
/// ```swift
/// struct Email: DatabaseValueConvertible {
///     var rawValue: String
///     var databaseValue: DatabaseValue { rawValue.databaseValue }
///     static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Email? {
///         String.fromDatabaseValue(dbValue).map(Email.init)
///     }
/// }
/// ```
public protocol DatabaseValueConvertible: SQLExpressible, StatementBinding {
    /// The value to store.
    var databaseValue: DatabaseValue { get }

    /// Converts a stored value, or returns nil if it cannot be converted.
    static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self?

    /// The value to use for a column that a row does not have, or nil to
    /// report an error. Optional types answer `.some(nil)`.
    static func fromMissingColumn() -> Self?

    /// The JSON decoder of `Decodable` values stored as JSON.
    static func databaseJSONDecoder() -> JSONDecoder

    /// The JSON encoder of `Encodable` values stored as JSON.
    static func databaseJSONEncoder() -> JSONEncoder
}

extension DatabaseValueConvertible {
    /// nil: a missing column is an error.
    public static func fromMissingColumn() -> Self? { nil }

    /// Base64 data, dates as milliseconds since 1970, and an error for
    /// NaN and infinity.
    public static func databaseJSONDecoder() -> JSONDecoder { JSONDecoder.databaseDefault() }

    /// Sorted keys, base64 data, dates as milliseconds since 1970, and an
    /// error for NaN and infinity.
    public static func databaseJSONEncoder() -> JSONEncoder { JSONEncoder.databaseDefault() }
}

extension JSONDecoder {
    /// The JSON decoder of values stored as JSON, as GRDB configures it,
    /// with the record type's user info.
    static func databaseDefault(userInfo: [CodingUserInfoKey: Any] = [:]) -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.userInfo = userInfo.asSendableUserInfo
        decoder.dataDecodingStrategy = .base64
        decoder.dateDecodingStrategy = .millisecondsSince1970
        decoder.nonConformingFloatDecodingStrategy = .throw
        return decoder
    }
}

extension JSONEncoder {
    /// The JSON encoder of values stored as JSON, as GRDB configures it:
    /// sorted keys make equal values store equal text.
    static func databaseDefault(userInfo: [CodingUserInfoKey: Any] = [:]) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.userInfo = userInfo.asSendableUserInfo
        encoder.dataEncodingStrategy = .base64
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.nonConformingFloatEncodingStrategy = .throw
        encoder.outputFormatting = .sortedKeys
        return encoder
    }
}

extension Dictionary where Key == CodingUserInfoKey, Value == Any {
    /// The user info of GRDB's API (`[CodingUserInfoKey: Any]`) as
    /// Foundation's coders now type it. `Sendable` is a marker protocol:
    /// `any Sendable` and `Any` have the same layout, so the dictionary is
    /// the same value; the coders read it on the thread that encodes.
    var asSendableUserInfo: [CodingUserInfoKey: any Sendable] {
        unsafeBitCast(self, to: [CodingUserInfoKey: any Sendable].self)
    }
}

/// A type that reads itself straight from a statement column, without an
/// intermediate ``DatabaseValue``: the fast path for fetching.
///
/// The initializer is never called for NULL columns.
public protocol StatementColumnConvertible {
    init?(sqliteStatement: SQLiteStatement, index: CInt)
}

// MARK: - Decoding with errors

extension DatabaseValueConvertible {
    /// The value of a missing column, known to exist.
    static func missingColumnValue() -> Self {
        guard let value = fromMissingColumn() else { preconditionFailure("\(Self.self) has no value for missing columns") }
        return value
    }

    /// Decodes a stored value or throws an error that names the column.
    static func decode(
        from dbValue: DatabaseValue,
        column: @autoclosure () -> String,
        sql: @autoclosure () -> String?
    ) throws -> Self {
        if let value = fromDatabaseValue(dbValue) { return value }
        throw RowDecodingError.valueMismatch(Self.self, dbValue: dbValue, column: column(), sql: sql())
    }

    /// Decodes column `index` of the statement's current row.
    static func decode(from statement: Statement, index: CInt) throws -> Self {
        let dbValue = DatabaseValue(sqliteStatement: statement.sqliteStatement, index: index)
        return try decode(from: dbValue, column: statement.columnName(at: index), sql: statement.sql)
    }
}

extension DatabaseValueConvertible where Self: StatementColumnConvertible {
    /// The fast path: no DatabaseValue unless the conversion fails.
    @inline(__always)
    static func fastDecode(from statement: Statement, index: CInt) throws -> Self {
        let handle = statement.sqliteStatement
        if sqlite3_column_type(handle, index) != SQLITE_NULL,
           let value = Self(sqliteStatement: handle, index: index) {
            return value
        }
        return try decode(from: statement, index: index)
    }
}

/// Thrown when a stored value cannot be converted to the requested type, or
/// a requested column does not exist.
public struct RowDecodingError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, in words that name the column and the type.
    public let description: String

    static func valueMismatch(
        _ type: Any.Type, dbValue: DatabaseValue, column: String, sql: String?
    ) -> RowDecodingError {
        // The value itself is left out: it may be a secret. `fetchOne`
        // decodes through Optional; name the type the caller asked for.
        var typeName = "\(type)"
        if typeName.hasPrefix("Optional<"), typeName.hasSuffix(">") {
            typeName = String(typeName.dropFirst("Optional<".count).dropLast())
        }
        var text = "could not decode \(typeName) from the \(dbValue.storageName) value in column \(String(reflecting: column))"
        if let sql { text += " - while executing `\(sql.trimmedSQLStatement)`" }
        return RowDecodingError(description: text)
    }

    static func columnNotFound(_ column: String, type: Any.Type) -> RowDecodingError {
        RowDecodingError(description: "could not decode \(type): no column named \(String(reflecting: column))")
    }

    static func indexOutOfRange(_ index: Int, count: Int) -> RowDecodingError {
        RowDecodingError(description: "column index \(index) is out of range: the row has \(count) column(s)")
    }
}

extension DatabaseValue {
    var storageName: String {
        switch storage {
        case .null: return "NULL"
        case .int64: return "INTEGER"
        case .double: return "REAL"
        case .string: return "TEXT"
        case .blob: return "BLOB"
        }
    }
}
