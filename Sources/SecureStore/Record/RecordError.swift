/// Errors of record persistence.
public enum RecordError: Error, CustomStringConvertible, Equatable, Sendable {
    /// `update` found no row with the record's primary key (or the record
    /// has no value for it).
    case recordNotFound(databaseTableName: String, key: [String: DatabaseValue])

    /// `Key not found in table player: [id:1]`. Shows key values: keep
    /// it out of logs when keys are secret.
    public var description: String {
        switch self {
        case let .recordNotFound(table, key):
            let row = key.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: " ")
            return "Key not found in table \(table): [\(row)]"
        }
    }
}

/// The former name of ``RecordError``.
@available(*, deprecated, renamed: "RecordError")
public typealias PersistenceError = RecordError

extension TableRecord {
    /// The error of a missing record with this primary key.
    public static func recordNotFound(_ db: Database, key: some DatabaseValueConvertible) -> any Error {
        do {
            let column = try db.filteringPrimaryKeyColumn(databaseTableName)
            return RecordError.recordNotFound(databaseTableName: databaseTableName, key: [column: key.databaseValue])
        } catch {
            return error
        }
    }

    /// The error of a missing record with these unique key values.
    public static func recordNotFound(key: [String: (any DatabaseValueConvertible)?]) -> RecordError {
        .recordNotFound(databaseTableName: databaseTableName, key: key.mapValues { $0?.databaseValue ?? .null })
    }
}

extension TableRecord where Self: Identifiable, ID: DatabaseValueConvertible {
    /// The error of a missing record with this id.
    public static func recordNotFound(_ db: Database, id: ID) -> any Error {
        recordNotFound(db, key: id)
    }
}

extension TableRecord where Self: EncodableRecord {
    /// The error of a missing record with the primary key of this one.
    public func recordNotFound(_ db: Database) -> any Error {
        do {
            let container = try PersistenceContainer(self)
            let key = try db.primaryKey(type(of: self).databaseTableName).columns.map { ($0, container.databaseValue($0) ?? .null) }
            return RecordError.recordNotFound(databaseTableName: type(of: self).databaseTableName,
                                              key: Dictionary(key, uniquingKeysWith: { first, _ in first }))
        } catch {
            return error
        }
    }
}
