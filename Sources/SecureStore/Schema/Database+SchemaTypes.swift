import Foundation

extension Database {
    /// Column affinities for the schema DSL.
    public struct ColumnType: RawRepresentable, Hashable, Sendable {
        /// The type as SQL writes it.
        public let rawValue: String
        /// A column type of any name, as SQLite accepts.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The `TEXT` column type.
        public static let text = ColumnType(rawValue: "TEXT")
        /// The `INTEGER` column type.
        public static let integer = ColumnType(rawValue: "INTEGER")
        /// The `DOUBLE` column type.
        public static let double = ColumnType(rawValue: "DOUBLE")
        /// The `REAL` column type.
        public static let real = ColumnType(rawValue: "REAL")
        /// The `NUMERIC` column type.
        public static let numeric = ColumnType(rawValue: "NUMERIC")
        /// The `BOOLEAN` column type.
        public static let boolean = ColumnType(rawValue: "BOOLEAN")
        /// The `BLOB` column type.
        public static let blob = ColumnType(rawValue: "BLOB")
        /// The `DATE` column type.
        public static let date = ColumnType(rawValue: "DATE")
        /// The `DATETIME` column type.
        public static let datetime = ColumnType(rawValue: "DATETIME")
        /// The `ANY` column type.
        public static let any = ColumnType(rawValue: "ANY")
        /// A column of JSON text: `TEXT` in SQL, named for what it holds.
        public static let jsonText = ColumnType(rawValue: "TEXT")
        /// A column of SQLite's binary JSON (JSONB, SQLite 3.45): `BLOB` in SQL.
        public static let jsonb = ColumnType(rawValue: "BLOB")
    }

    /// `ON CONFLICT` clauses.
    public enum ConflictResolution: String, Sendable {
        case rollback = "ROLLBACK", abort = "ABORT", fail = "FAIL", ignore = "IGNORE", replace = "REPLACE"
    }

    /// Foreign key actions.
    public enum ForeignKeyAction: String, Sendable {
        case cascade = "CASCADE", restrict = "RESTRICT", setNull = "SET NULL", setDefault = "SET DEFAULT"
    }
}
