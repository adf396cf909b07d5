// Fetching records of a table: all of them, or by primary key, unique key
// or id. `find` throws ``RecordError/recordNotFound(databaseTableName:key:)``
// where `fetchOne` returns nil.

extension FetchableRecord where Self: TableRecord {
    /// A cursor of the records of the table.
    public static func fetchCursor(_ db: Database) throws -> RecordCursor<Self> { try all().fetchCursor(db) }
    /// All the records of the table.
    @inlinable
    public static func fetchAll(_ db: Database) throws -> [Self] { try all().fetchAll(db) }
    /// A record of the table, or nil.
    public static func fetchOne(_ db: Database) throws -> Self? { try all().fetchOne(db) }

    /// A cursor of the records with these primary keys.
    public static func fetchCursor(_ db: Database, keys: some Collection<some DatabaseValueConvertible>) throws -> RecordCursor<Self> {
        try filter(keys: keys).fetchCursor(db)
    }

    /// The records with these primary keys (no query for no key).
    public static func fetchAll(_ db: Database, keys: some Collection<some DatabaseValueConvertible>) throws -> [Self] {
        keys.isEmpty ? [] : try filter(keys: keys).fetchAll(db)
    }

    /// The record with this primary key, or nil (no query for NULL).
    public static func fetchOne(_ db: Database, key: some DatabaseValueConvertible) throws -> Self? {
        key.databaseValue.isNull ? nil : try filter(key: key).fetchOne(db)
    }

    /// The record with this primary key.
    public static func find(_ db: Database, key: some DatabaseValueConvertible) throws -> Self {
        guard let record = try fetchOne(db, key: key) else { throw recordNotFound(db, key: key) }
        return record
    }

    /// A cursor of the records with these unique key values.
    public static func fetchCursor(_ db: Database, keys: [[String: (any DatabaseValueConvertible)?]]) throws -> RecordCursor<Self> {
        try filter(keys: keys).fetchCursor(db)
    }

    /// The records with these unique key values (no query for no key).
    public static func fetchAll(_ db: Database, keys: [[String: (any DatabaseValueConvertible)?]]) throws -> [Self] {
        keys.isEmpty ? [] : try filter(keys: keys).fetchAll(db)
    }

    /// The record with these unique key values, or nil (no query for nil).
    public static func fetchOne(_ db: Database, key: [String: (any DatabaseValueConvertible)?]?) throws -> Self? {
        guard let key else { return nil }
        return try filter(key: key).fetchOne(db)
    }

    /// The record with these unique key values.
    public static func find(_ db: Database, key: [String: (any DatabaseValueConvertible)?]) throws -> Self {
        guard let record = try filter(key: key).fetchOne(db) else { throw recordNotFound(key: key) }
        return record
    }
}

extension FetchableRecord where Self: TableRecord & Hashable {
    /// The distinct records of the table.
    public static func fetchSet(_ db: Database) throws -> Set<Self> { try all().fetchSet(db) }

    /// The records with these primary keys (no query for no key).
    public static func fetchSet(_ db: Database, keys: some Collection<some DatabaseValueConvertible>) throws -> Set<Self> {
        keys.isEmpty ? [] : try filter(keys: keys).fetchSet(db)
    }

    /// The records with these unique key values (no query for no key).
    public static func fetchSet(_ db: Database, keys: [[String: (any DatabaseValueConvertible)?]]) throws -> Set<Self> {
        keys.isEmpty ? [] : try filter(keys: keys).fetchSet(db)
    }
}

extension FetchableRecord where Self: TableRecord & Identifiable, ID: DatabaseValueConvertible {
    /// A cursor of the records with these ids.
    public static func fetchCursor(_ db: Database, ids: some Collection<ID>) throws -> RecordCursor<Self> {
        try fetchCursor(db, keys: ids)
    }

    /// The records with these ids.
    public static func fetchAll(_ db: Database, ids: some Collection<ID>) throws -> [Self] { try fetchAll(db, keys: ids) }

    /// The record with this id, or nil.
    public static func fetchOne(_ db: Database, id: ID) throws -> Self? { try fetchOne(db, key: id) }

    /// The record with this id.
    public static func find(_ db: Database, id: ID) throws -> Self { try find(db, key: id) }
}

extension FetchableRecord where Self: TableRecord & Hashable & Identifiable, ID: DatabaseValueConvertible {
    /// The records with these ids.
    public static func fetchSet(_ db: Database, ids: some Collection<ID>) throws -> Set<Self> { try fetchSet(db, keys: ids) }
}
