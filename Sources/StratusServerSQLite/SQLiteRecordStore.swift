public import StratusLogging
public import StratusServer
import StratusServerSQL
import StratusSQLite
import StratusWire
import Synchronization

/// The embedded back end: the cloud database in one SQLite file, WAL mode, one writer and a reader pool.
///
/// Every `write` is one immediate transaction on the writer connection, so
/// change sequences are handed out in commit order and a change feed read from
/// any snapshot never misses one. An acknowledged write survives `kill -9`
/// (WAL with `synchronous=NORMAL`).
///
/// ```swift
/// let store = try await SQLiteRecordStore.open(path: "./.stratus/stratus.sqlite", logger: logger)
/// let service = CloudKitService(store: store, accounts: store, configuration: configuration, logger: logger)
/// ```
public final class SQLiteRecordStore: RecordStore {
    let pool: SQLiteDatabasePool
    /// The server-key and API-token change counter, on connections of its own.
    let credentials: SQLiteCredentialGeneration
    private let schemas: SchemaMemo
    private let writes: SQLiteWriteCoalescer
    /// Builds the query index of fields turned on since, a chunk of records per write transaction.
    let indexBuilder: SQLiteIndexBuilder
    /// System-field indexes known to exist.
    private let systemIndexes = Mutex<Set<SQLiteSystemIndexes.Index>>([])

    private init(pool: SQLiteDatabasePool, credentials: SQLiteCredentialGeneration, indexBuilder: SQLiteIndexBuilder) {
        self.pool = pool
        self.credentials = credentials
        let schemas = SchemaMemo()
        self.schemas = schemas
        self.indexBuilder = indexBuilder
        let writes = SQLiteWriteCoalescer(pool: pool, schemas: schemas, indexBuilder: indexBuilder)
        self.writes = writes
        // Any write waits: one in the group-commit queue, or one that takes the writer itself (accounts, the console).
        indexBuilder.yield { writes.hasWaitingWrites || pool.writerBacklog > 0 }
    }

    /// Records per write transaction of a query index build (Documentation/0002, "Index builds in chunks").
    static let indexBuildChunkSize = 5_000

    /// Opens (creating and migrating if needed) the store at `path`.
    ///
    /// - Parameters:
    ///   - path: The database file; its directory must exist.
    ///   - memory: Reader connections, page caches and memory map (``SQLiteStoreMemory``).
    ///   - logger: Where the driver logs.
    /// - Throws: `SQLiteError`, or `SQLiteMigrationError` when the file was written by a newer Stratus.
    public static func open(
        path: String, memory: SQLiteStoreMemory = SQLiteStoreMemory(), logger: Logger = .disabled
    ) async throws
        -> SQLiteRecordStore
    {
        try await open(path: path, memory: memory, indexBuildChunkSize: indexBuildChunkSize, logger: logger)
    }

    /// ``open(path:memory:logger:)`` with the records per chunk of an index build (tests).
    static func open(path: String, memory: SQLiteStoreMemory, indexBuildChunkSize: Int, logger: Logger) async throws -> SQLiteRecordStore {
        var configuration = SQLiteConfiguration(path: path)
        memory.apply(to: &configuration)
        // Password hashes, e-mail addresses and session IDs live here: readable by the server's user only.
        configuration.fileMode = 0o600
        let pool = try SQLiteDatabasePool(configuration: configuration, logger: logger)
        try await SQLiteRecordStoreSchema.migrator.migrate(pool)
        // Each write runs in a savepoint of the shared transaction (and each operation of a modify in
        // one more), so SQLite copies every existing page a write touches into a sub-journal, which
        // spilled to a temporary file past 64 KiB: a records/modify of 200 new records with random
        // names created, wrote (~2,500 pages) and deleted a file in /var/tmp. In memory on the writer
        // only (readers keep their sorts on disk); the sub-journal lives as long as the transaction.
        try await pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA temp_store = MEMORY") }
        let credentials = try SQLiteCredentialGeneration(configuration: pool.configuration, logger: logger)
        let builder = SQLiteIndexBuilder(pool: pool, chunkSize: indexBuildChunkSize, logger: logger)
        let store = SQLiteRecordStore(pool: pool, credentials: credentials, indexBuilder: builder)
        // Builds a crash or a stop interrupted go on where their last chunk ended.
        builder.scheduled(try await pool.read { try SQLiteFieldIndexBuild.pendingTypes($0) })
        return store
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

    /// ``RateBucketSharing/perNode``: one SQLite file serves one node, which counts its requests itself.
    public var rateBucketSharing: RateBucketSharing { .perNode }

    /// `nil`: one SQLite file serves one node, which keeps its token secret in its data directory.
    public var nodeCoordination: (any NodeCoordination)? { nil }

    /// Waits for the index builds of `plan`'s record type, and creates, once, the system-field
    /// indexes it reads (see `SQLiteSystemIndexes`).
    public func prepare(for plan: QueryPlan) async throws {
        try await indexBuilder.waitUntilBuilt(plan.recordType)
        let missing = SQLiteSystemIndexes.needed(by: plan).subtracting(systemIndexes.withLock { $0 })
        guard !missing.isEmpty else { return }
        try await pool.writeWithoutTransaction { db in
            for index in missing { try SQLiteSystemIndexes.create(index, db) }
        }
        systemIndexes.withLock { $0.formUnion(missing) }
    }

    /// Closes every connection.
    public func close() async throws {
        await indexBuilder.stop()
        try credentials.close()
        try pool.close()
    }
}
