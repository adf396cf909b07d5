/// A reader that always sees the same state of the database: a
/// ``DatabaseSnapshot``.
///
/// ```swift
/// func countTwice(_ snapshot: some DatabaseSnapshotReader) throws -> (Int, Int) {
///     let first = try snapshot.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM player") ?? 0 }
///     let second = try snapshot.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM player") ?? 0 }
///     return (first, second)   // equal, whatever was written in between
/// }
/// ```
public protocol DatabaseSnapshotReader: DatabaseReader {}
