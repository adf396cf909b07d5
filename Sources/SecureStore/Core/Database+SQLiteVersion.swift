extension Database {
    /// Throws an error naming `feature` when the SQLite library is older
    /// than `version` (e.g. 3_030_000 for 3.30.0): SecureStore never sends
    /// SQL that SQLite 3.15.2 would reject with a syntax error.
    func requireSQLite(_ version: Int32, feature: String) throws {
        guard Database.sqliteLibVersionNumber < version else { return }
        throw Database.missingFeatureError(feature, since: version)
    }

    /// The error of a GRDB feature that needs a newer SQLite than the one
    /// SQLCipher 3.4.1 is built on, such as RETURNING (3.35) or UPSERT
    /// (3.24): `RETURNING needs SQLite 3.35 or later; this SQLCipher runs
    /// SQLite 3.15.2`.
    static func missingFeatureError(_ feature: String, since version: Int32) -> DatabaseError {
        let required = "\(version / 1_000_000).\(version / 1000 % 1000)"
        let message = sqliteLibVersionNumber < version
            ? "\(feature) needs SQLite \(required) or later; this SQLCipher runs SQLite \(sqliteLibVersion)"
            : "\(feature) is not supported by SecureStore, which targets SQLite 3.15.2"
        return DatabaseError(resultCode: .SQLITE_MISUSE, message: message)
    }
}

/// The SQLite versions of the features that SQLite 3.15.2 lacks.
enum SQLiteFeature {
    /// `RETURNING`, for `deleteAndFetch...`, `updateAndFetch...`,
    /// `insertAndFetch`, `saveAndFetch`, `upsertAndFetch`.
    static let returning: (name: String, version: Int32) = ("RETURNING", 3_035_000)
    /// `INSERT ... ON CONFLICT DO UPDATE`, for `upsert`.
    static let upsert: (name: String, version: Int32) = ("UPSERT (INSERT ... ON CONFLICT DO UPDATE)", 3_024_000)
}
