public import StratusLogging
public import StratusServer
import StratusSQLite
import StratusWire

/// The embedded back end: the cloud database in one SQLite file, WAL mode, one writer and a reader pool.
///
/// Every `write` is one immediate transaction on the writer connection, so
/// change sequences are handed out in commit order and a change feed read from
/// any snapshot never misses one. An acknowledged write survives `kill -9`
/// (WAL with `synchronous=NORMAL`).
///
/// ```swift
/// let store = try await SQLiteRecordStore.open(path: "./.stratus/stratus.sqlite", logger: logger)
/// let service = CloudKitService(store: store, configuration: configuration, logger: logger)
/// ```
public final class SQLiteRecordStore: RecordStore {
    let pool: SQLiteDatabasePool
    private let schemas: SQLiteSchemaMemo
    private let writes: SQLiteWriteCoalescer

    private init(pool: SQLiteDatabasePool) {
        self.pool = pool
        let schemas = SQLiteSchemaMemo()
        self.schemas = schemas
        self.writes = SQLiteWriteCoalescer(pool: pool, schemas: schemas)
    }

    /// Opens (creating and migrating if needed) the store at `path`.
    ///
    /// - Parameters:
    ///   - path: The database file; its directory must exist.
    ///   - readerCount: Reader connections in the pool.
    ///   - logger: Where the driver logs.
    /// - Throws: `SQLiteError`, or `SQLiteMigrationError` when the file was written by a newer Stratus.
    public static func open(path: String, readerCount: Int = 4, logger: Logger = .disabled) async throws -> SQLiteRecordStore {
        var configuration = SQLiteConfiguration(path: path)
        configuration.readerCount = readerCount
        let pool = try SQLiteDatabasePool(configuration: configuration, logger: logger)
        try await SQLiteRecordStoreSchema.migrator.migrate(pool)
        return SQLiteRecordStore(pool: pool)
    }

    /// Runs `body` in a read snapshot on a reader connection.
    public func read<T: Sendable>(_ body: @escaping @Sendable (any RecordStoreReader) throws -> T) async throws -> T {
        try await pool.read { [schemas] db in try body(SQLiteStoreTransaction(db, schemas: schemas)) }
    }

    /// Runs `body` on the writer connection, in a savepoint of an immediate transaction that
    /// concurrent writes may share (group commit); it returns only after that transaction commits.
    public func write<T: Sendable>(_ body: @escaping @Sendable (any RecordStoreWriter) throws -> T) async throws -> T {
        try await writes.write(body)
    }

    /// Closes every connection.
    public func close() async throws {
        try pool.close()
    }
}
