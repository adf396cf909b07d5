/// A type that gives access to a database for reading: ``DatabaseQueue``
/// and, later, pools and snapshots.
public protocol DatabaseReader: AnyObject, Sendable {
    /// The configuration of the connections.
    var configuration: Configuration { get }

    /// The path of the database file.
    var path: String { get }

    /// Closes the connections. Further use throws.
    func close() throws

    /// Runs `value` with read-only access and returns its result.
    func read<T>(_ value: (Database) throws -> T) throws -> T

    /// Async version of ``read(_:)``.
    func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T

    /// Runs `value` with no isolation guarantee and no read-only check.
    func unsafeRead<T>(_ value: (Database) throws -> T) throws -> T

    /// Like ``unsafeRead(_:)``, and can be called from inside another access.
    func unsafeReentrantRead<T>(_ value: (Database) throws -> T) throws -> T
}
