import Foundation

extension Database {
    /// Column affinities for the schema DSL.
    public struct ColumnType: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let text = ColumnType(rawValue: "TEXT")
        public static let integer = ColumnType(rawValue: "INTEGER")
        public static let double = ColumnType(rawValue: "DOUBLE")
        public static let real = ColumnType(rawValue: "REAL")
        public static let numeric = ColumnType(rawValue: "NUMERIC")
        public static let boolean = ColumnType(rawValue: "BOOLEAN")
        public static let blob = ColumnType(rawValue: "BLOB")
        public static let date = ColumnType(rawValue: "DATE")
        public static let datetime = ColumnType(rawValue: "DATETIME")
        public static let any = ColumnType(rawValue: "ANY")
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
