// Existence checks and deletions by primary key or unique key, shared by
// `TableRecord` (static methods) and `Table` (instance methods).

extension QueryInterfaceRequest {
    /// True if a row has this primary key.
    func exists(_ db: Database, key: some DatabaseValueConvertible) throws -> Bool {
        key.databaseValue.isNull ? false : try !filter(key: key).isEmpty(db)
    }

    /// True if a row has these unique key values.
    func exists(_ db: Database, key: [String: (any DatabaseValueConvertible)?]) throws -> Bool {
        try !filter(key: key).isEmpty(db)
    }

    /// Deletes the rows with these primary keys; returns how many.
    func deleteAll(_ db: Database, keys: some Collection<some DatabaseValueConvertible>) throws -> Int {
        keys.isEmpty ? 0 : try filter(keys: keys).deleteAll(db)
    }

    /// Deletes the row with this primary key; returns whether there was one.
    func deleteOne(_ db: Database, key: some DatabaseValueConvertible) throws -> Bool {
        key.databaseValue.isNull ? false : try deleteAll(db, keys: [key]) > 0
    }

    /// Deletes the rows with these unique key values; returns how many.
    func deleteAll(_ db: Database, keys: [[String: (any DatabaseValueConvertible)?]]) throws -> Int {
        keys.isEmpty ? 0 : try filter(keys: keys).deleteAll(db)
    }

    /// Deletes the row with these unique key values; returns whether there
    /// was one.
    func deleteOne(_ db: Database, key: [String: (any DatabaseValueConvertible)?]) throws -> Bool {
        try deleteAll(db, keys: [key]) > 0
    }
}
