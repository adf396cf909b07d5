import Foundation
internal import CSQLCipher

/// A custom collation, written in Swift.
///
/// ```swift
/// let collation = DatabaseCollation("localized_standard") { lhs, rhs in
///     lhs.localizedStandardCompare(rhs)
/// }
/// config.prepareDatabase { db in db.add(collation: collation) }
/// // SQL: CREATE TABLE player (name TEXT COLLATE localized_standard)
/// // query interface: Player.order(Column("name").collating(collation))
/// ```
///
/// Every connection has the collations of GRDB: ``unicodeCompare``,
/// ``caseInsensitiveCompare``, ``localizedCaseInsensitiveCompare``,
/// ``localizedCompare`` and ``localizedStandardCompare``.
public final class DatabaseCollation: Identifiable, Sendable {
    /// A collation's identity: its name, ignoring case.
    public struct ID: Hashable, Sendable {
        let name: String

        /// Names compare ignoring case, as SQLite's do.
        public static func == (lhs: ID, rhs: ID) -> Bool { lhs.name.isEqualIgnoringCase(rhs.name) }

        /// Hashes the lowercased name.
        public func hash(into hasher: inout Hasher) { hasher.combine(name.lowercased()) }
    }

    /// The collation's identity.
    public var id: ID { ID(name: name) }
    /// The name SQL uses.
    public let name: String
    let compare: @Sendable (String, String) -> ComparisonResult

    /// A collation from a comparison of strings.
    public init(_ name: String, function: @escaping @Sendable (String, String) -> ComparisonResult) {
        self.name = name
        self.compare = function
    }

    private final class Box {
        let compare: @Sendable (String, String) -> ComparisonResult
        init(_ compare: @escaping @Sendable (String, String) -> ComparisonResult) { self.compare = compare }
    }

    func install(in db: Database) throws {
        let box = Unmanaged.passRetained(Box(compare)).toOpaque()
        let code = sqlite3_create_collation_v2(db.sqliteConnection, name, SQLITE_UTF8, box, { context, length1, bytes1, length2, bytes2 in
            guard let context else { return 0 }
            let compare = Unmanaged<Box>.fromOpaque(context).takeUnretainedValue().compare
            let lhs = String(decoding: UnsafeRawBufferPointer(start: bytes1, count: Int(length1)), as: UTF8.self)
            let rhs = String(decoding: UnsafeRawBufferPointer(start: bytes2, count: Int(length2)), as: UTF8.self)
            return CInt(compare(lhs, rhs).rawValue)
        }, { pointer in
            if let pointer { Unmanaged<Box>.fromOpaque(pointer).release() }
        })
        guard code == SQLITE_OK else { throw DatabaseError(connection: db.sqliteConnection, code: code) }
    }

    func uninstall(in db: Database) {
        sqlite3_create_collation_v2(db.sqliteConnection, name, SQLITE_UTF8, nil, nil, nil)
    }

    /// `swiftCompare`: Swift's `<` on strings.
    public static let unicodeCompare = DatabaseCollation("swiftCompare") { lhs, rhs in
        lhs < rhs ? .orderedAscending : (lhs == rhs ? .orderedSame : .orderedDescending)
    }
    /// `swiftCaseInsensitiveCompare`.
    public static let caseInsensitiveCompare = DatabaseCollation("swiftCaseInsensitiveCompare") { $0.caseInsensitiveCompare($1) }
    /// `swiftLocalizedCaseInsensitiveCompare`.
    public static let localizedCaseInsensitiveCompare = DatabaseCollation("swiftLocalizedCaseInsensitiveCompare") {
        $0.localizedCaseInsensitiveCompare($1)
    }
    /// `swiftLocalizedCompare`.
    public static let localizedCompare = DatabaseCollation("swiftLocalizedCompare") { $0.localizedCompare($1) }
    /// `swiftLocalizedStandardCompare`.
    public static let localizedStandardCompare = DatabaseCollation("swiftLocalizedStandardCompare") {
        $0.localizedStandardCompare($1)
    }

    /// The collations every connection has, as in GRDB.
    static let defaults: [DatabaseCollation] = [
        .unicodeCompare, .caseInsensitiveCompare, .localizedCaseInsensitiveCompare, .localizedCompare, .localizedStandardCompare,
    ]
}

extension Database {
    /// Adds (or replaces) a function on this connection. Add functions in
    /// ``Configuration/prepareDatabase(_:)`` so that every connection of a
    /// pool has them.
    public func add(function: DatabaseFunction) {
        do {
            try function.install(in: self)
        } catch {
            Database.logError?(.SQLITE_ERROR, "cannot add function \(function.name): \(error)")
        }
    }

    /// Removes a function from this connection.
    public func remove(function: DatabaseFunction) {
        function.uninstall(in: self)
    }

    /// Adds (or replaces) a collation on this connection.
    public func add(collation: DatabaseCollation) {
        do {
            try collation.install(in: self)
        } catch {
            Database.logError?(.SQLITE_ERROR, "cannot add collation \(collation.name): \(error)")
        }
    }

    /// Removes a collation from this connection.
    public func remove(collation: DatabaseCollation) {
        collation.uninstall(in: self)
    }

    /// Installs GRDB's default functions and collations.
    func addDefaultFunctionsAndCollations() {
        for function in DatabaseFunction.defaults { add(function: function) }
        for collation in DatabaseCollation.defaults { add(collation: collation) }
    }
}
