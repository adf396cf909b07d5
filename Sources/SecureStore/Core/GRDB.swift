/// GRDB's module name, so that code which qualifies its types ports too.
///
/// Apps written for GRDB sometimes spell a type with its module, to tell it
/// from a type of the same name elsewhere: `any GRDB.DatabaseWriter`,
/// `GRDB.Configuration`. After `import GRDB` becomes `import SecureStore`,
/// those spellings still compile and name SecureStore's types:
///
/// ```swift
/// import SecureStore
///
/// struct AppDatabase {
///     private let dbWriter: any GRDB.DatabaseWriter
/// }
/// ```
///
/// New code should use the names without a qualifier, or `SecureStore.`.
///
/// ## Topics
///
/// ### Connections
/// - ``DatabaseQueue``
/// - ``DatabasePool``
/// - ``DatabaseReader``
/// - ``DatabaseWriter``
/// - ``Database``
/// - ``Configuration``
public enum GRDB {
    // Connections and their settings.
    /// SecureStore's ``SecureStore/Database``.
    public typealias Database = SecureStore.Database
    /// SecureStore's ``SecureStore/DatabaseQueue``.
    public typealias DatabaseQueue = SecureStore.DatabaseQueue
    /// SecureStore's ``SecureStore/DatabasePool``.
    public typealias DatabasePool = SecureStore.DatabasePool
    /// SecureStore's ``SecureStore/DatabaseReader``.
    public typealias DatabaseReader = SecureStore.DatabaseReader
    /// SecureStore's ``SecureStore/DatabaseWriter``.
    public typealias DatabaseWriter = SecureStore.DatabaseWriter
    /// SecureStore's ``SecureStore/Configuration``.
    public typealias Configuration = SecureStore.Configuration
    /// SecureStore's ``SecureStore/DatabaseError``.
    public typealias DatabaseError = SecureStore.DatabaseError
    /// SecureStore's ``SecureStore/DatabaseMigrator``.
    public typealias DatabaseMigrator = SecureStore.DatabaseMigrator

    // Values and rows.
    /// SecureStore's ``SecureStore/Row``.
    public typealias Row = SecureStore.Row
    /// SecureStore's ``SecureStore/Statement``.
    public typealias Statement = SecureStore.Statement
    /// SecureStore's ``SecureStore/StatementArguments``.
    public typealias StatementArguments = SecureStore.StatementArguments
    /// SecureStore's ``SecureStore/DatabaseValue``.
    public typealias DatabaseValue = SecureStore.DatabaseValue
    /// SecureStore's ``SecureStore/DatabaseValueConvertible``.
    public typealias DatabaseValueConvertible = SecureStore.DatabaseValueConvertible

    // Records and requests.
    /// SecureStore's ``SecureStore/FetchableRecord``.
    public typealias FetchableRecord = SecureStore.FetchableRecord
    /// SecureStore's ``SecureStore/TableRecord``.
    public typealias TableRecord = SecureStore.TableRecord
    /// SecureStore's ``SecureStore/PersistableRecord``.
    public typealias PersistableRecord = SecureStore.PersistableRecord
    /// SecureStore's ``SecureStore/MutablePersistableRecord``.
    public typealias MutablePersistableRecord = SecureStore.MutablePersistableRecord
    /// SecureStore's ``SecureStore/Record``.
    public typealias Record = SecureStore.Record
    /// SecureStore's ``SecureStore/Column``.
    public typealias Column = SecureStore.Column
    /// SecureStore's ``SecureStore/Table``.
    public typealias Table<RowDecoder> = SecureStore.Table<RowDecoder>
    /// SecureStore's ``SecureStore/SQL``.
    public typealias SQL = SecureStore.SQL
    /// SecureStore's ``SecureStore/SQLRequest``.
    public typealias SQLRequest<RowDecoder> = SecureStore.SQLRequest<RowDecoder>
    /// SecureStore's ``SecureStore/QueryInterfaceRequest``.
    public typealias QueryInterfaceRequest<RowDecoder> = SecureStore.QueryInterfaceRequest<RowDecoder>

    // Observation.
    /// SecureStore's ``SecureStore/ValueObservation``.
    public typealias ValueObservation<Reducer: ValueReducer> = SecureStore.ValueObservation<Reducer>
    /// SecureStore's ``SecureStore/DatabaseRegionObservation``.
    public typealias DatabaseRegionObservation = SecureStore.DatabaseRegionObservation
    /// SecureStore's ``SecureStore/TransactionObserver``.
    public typealias TransactionObserver = SecureStore.TransactionObserver
    /// SecureStore's ``SecureStore/DatabaseCancellable``.
    public typealias DatabaseCancellable = SecureStore.DatabaseCancellable
    /// SecureStore's ``SecureStore/AnyDatabaseCancellable``.
    public typealias AnyDatabaseCancellable = SecureStore.AnyDatabaseCancellable
}
