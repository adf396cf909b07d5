import Foundation

// Arguments and rows from untyped Foundation collections (`[Any]`,
// `[AnyHashable: Any]`, as JSONSerialization or NSArray give them), as in
// GRDB: nil when a value cannot be stored or a key is not a string.

extension StatementArguments {
    /// Positional arguments from values of any type; nil when one of them
    /// is not a ``DatabaseValueConvertible`` (use `NSNull` for NULL).
    ///
    /// ```swift
    /// let values = try JSONSerialization.jsonObject(with: json) as! [Any]
    /// let arguments = StatementArguments(values)!
    /// ```
    public init?(_ array: [Any]) {
        var values: [DatabaseValue] = []
        for value in array {
            guard let convertible = value as? any DatabaseValueConvertible else { return nil }
            values.append(convertible.databaseValue)
        }
        self.init(values)
    }

    /// Named arguments from a dictionary of any values; nil when a key is
    /// not a string or a value is not a ``DatabaseValueConvertible``.
    public init?(_ dictionary: [AnyHashable: Any]) {
        guard let values = [String: DatabaseValue](untyped: dictionary) else { return nil }
        self.init(values.mapValues { $0 as (any DatabaseValueConvertible)? })
    }
}

extension Row {
    /// A row from a dictionary of any values; nil when a key is not a
    /// string or a value is not a ``DatabaseValueConvertible``.
    public convenience init?(_ dictionary: [AnyHashable: Any]) {
        guard let values = [String: DatabaseValue](untyped: dictionary) else { return nil }
        self.init(values.mapValues { $0 as (any DatabaseValueConvertible)? })
    }
}

extension Dictionary where Key == String, Value == DatabaseValue {
    /// The values of `dictionary` by column name, or nil.
    fileprivate init?(untyped dictionary: [AnyHashable: Any]) {
        self.init(minimumCapacity: dictionary.count)
        for (key, value) in dictionary {
            guard let name = key.base as? String, let convertible = value as? any DatabaseValueConvertible else { return nil }
            self[name] = convertible.databaseValue
        }
    }
}
