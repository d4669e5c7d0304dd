import Foundation
public import StratusLogging
import StratusPostgres
public import StratusServer
import StratusServerSQL

/// The scale-out back end: the cloud database in PostgreSQL, shared by any number of `stratus serve` nodes.
///
/// Reads run in a `REPEATABLE READ READ ONLY` snapshot. Each `write` is one `READ COMMITTED`
/// transaction that locks the rows of the zones it touches and takes change sequences with
/// `UPDATE … RETURNING` under those locks, so sequences are gap-free, duplicate-free and
/// committed in order however many nodes write; the database's zone-change log is ordered by
/// transaction ID and read below the oldest running one (Documentation/0008-postgres.md). A write that
/// meets a deadlock or a serialization failure is run again from the start.
///
/// ```swift
/// let store = try await PostgresRecordStore.open(url: "postgres://stratus@db.internal/stratus", logger: logger)
/// let service = CloudKitService(store: store, accounts: store, configuration: configuration, logger: logger)
/// ```
public final class PostgresRecordStore: RecordStore {
    let pool: PostgresConnectionPool
    /// The server the store connects to.
    public let url: String
    /// The PostgreSQL schema holding the tables (`nil`: the search path's default, `public`).
    public let schema: String?
    private let temporarySchema: String?
    private let logger: Logger

    /// The `LISTEN`/`NOTIFY` channel on which a write that queues push notifications names
    /// their tokens (delivered at commit, to every node; see ``PostgresPushRelay``).
    public var pushChannel: String { "stratus_push" + (schema.map { "_" + $0 } ?? "") }

    /// The candidate rows this store's queries read (for tests and diagnostics).
    let queryStatistics = PostgresQueryStatistics()

    /// Groups concurrent writes of one zone into one transaction.
    private let coalescer = PostgresWriteCoalescer()
    /// The last schema decoded, shared by the store's transactions (`SchemaMemo`).
    private let schemas = SchemaMemo()

    /// How many times a write is attempted when PostgreSQL asks for a retry.
    static let maximumAttempts = 8

    private init(pool: PostgresConnectionPool, url: String, schema: String?, temporary: Bool, logger: Logger) {
        self.pool = pool
        self.url = url
        self.schema = schema
        let temporarySchema = temporary ? schema : nil
        self.temporarySchema = temporarySchema
        self.logger = logger
    }

    /// Connects and applies the migrations the database lacks.
    ///
    /// - Parameters:
    ///   - url: A `postgres://` URI or libpq connection string.
    ///   - schema: The PostgreSQL schema holding the tables (created if missing); `public` when `nil`.
    ///   - connections: Pool size.
    ///   - logger: Where the store logs.
    /// - Throws: `PostgresError` (code `schemaTooNew` when a newer Stratus migrated the database).
    public static func open(
        url: String, schema: String? = nil, connections: Int = 8, logger: Logger = .disabled
    ) async throws
        -> PostgresRecordStore
    {
        try await open(url: url, schema: schema, connections: connections, temporary: false, logger: logger)
    }

    /// Opens a store in a new schema with a random name, dropped again by ``close()`` (for tests).
    ///
    /// - Parameters:
    ///   - url: A `postgres://` URI or libpq connection string.
    ///   - connections: Pool size.
    ///   - logger: Where the store logs.
    /// - Throws: `PostgresError`.
    public static func openTemporary(url: String, connections: Int = 3, logger: Logger = .disabled) async throws -> PostgresRecordStore {
        let suffix = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        return try await open(url: url, schema: "stratus_test_\(suffix)", connections: connections, temporary: true, logger: logger)
    }

    private static func open(
        url: String, schema: String?, connections: Int, temporary: Bool, logger: Logger
    ) async throws
        -> PostgresRecordStore
    {
        // No JIT compilation: a records query costed past `jit_above_cost` (a sort over tens of
        // thousands of candidates) paid tens of milliseconds compiling it on every run, and past
        // `jit_optimize_above_cost` seconds — the stalls of issue 20 (Documentation/0008, "No JIT").
        var setup: [String] = ["SET jit = off"]
        if let schema {
            precondition(
                schema.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") },
                "PostgreSQL schema names are letters, digits and underscores: '\(schema)'")
            let admin = PostgresConnectionPool(url: url, size: 1, logger: logger)
            _ = try await admin.withConnection { db in try db.execute("CREATE SCHEMA IF NOT EXISTS \(schema)") }
            admin.close()
            setup.append("SET search_path TO \(schema)")
        }
        let pool = PostgresConnectionPool(url: url, size: connections, setup: setup, logger: logger)
        do {
            try await PostgresRecordStoreSchema.migrator.migrate(pool)
        } catch {
            pool.close()
            throw error
        }
        return PostgresRecordStore(pool: pool, url: url, schema: schema, temporary: temporary, logger: logger)
    }

    /// Runs `body` in a read-only snapshot.
    public func read<T: Sendable>(_ body: @escaping @Sendable (any RecordStoreReader) throws -> T) async throws -> T {
        let channel = pushChannel
        let schemas = self.schemas
        let statistics = queryStatistics
        return try await pool.withConnection { db in
            try db.transaction(isolation: .repeatableRead, readOnly: true) { db in
                let tx = PostgresStoreTransaction(db, writing: false, pushChannel: channel, schemas: schemas)
                tx.queryStatistics = statistics
                return try body(tx)
            }
        }
    }

    /// Runs `body` as ``write(_:)`` does, in one transaction with the other writes of the zone that
    /// arrive at this node while one is in flight (group commit, ``PostgresWriteCoalescer``).
    public func write<T: Sendable>(
        in database: DatabaseKey, zone zoneName: String, _ body: @escaping @Sendable (any RecordStoreWriter) throws -> T
    ) async throws -> T {
        try await write(in: database, zone: zoneName, reading: RecordWriteHint(), body)
    }

    /// Runs `body` as ``write(in:zone:_:)`` does; a group reads what its writes' hints name in its
    /// first locking read, so its later writes need no round trip of their own (``PostgresWriteCoalescer``).
    public func write<T: Sendable>(
        in database: DatabaseKey, zone zoneName: String, reading hint: RecordWriteHint,
        _ body: @escaping @Sendable (any RecordStoreWriter) throws -> T
    ) async throws -> T {
        try await coalescer.write(in: ZoneName(database: database, name: zoneName), hint: hint, store: self, body)
    }

    /// Runs `body` in one transaction of its own that locks the zones it touches; runs it again on a
    /// deadlock or serialization failure.
    public func write<T: Sendable>(_ body: @escaping @Sendable (any RecordStoreWriter) throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await transaction { tx in try body(tx) }
            } catch let error as PostgresError where (error.isTransient || error.code == .uniqueViolation) && attempt < Self.maximumAttempts {
                logger.debug("write retried", metadata: ["attempt": "\(attempt)", "error": "\(error)"])
                attempt += 1
                try await Task.sleep(nanoseconds: UInt64.random(in: 1_000_000...5_000_000) * UInt64(attempt))
            }
        }
    }

    /// One write transaction on a pooled connection: `body`, the change-log positions of the zones it
    /// changed, and the `COMMIT`; a transient failure a statement met, even a caught one, fails it.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (PostgresStoreTransaction) throws -> T) async throws -> T {
        let channel = pushChannel
        let schemas = self.schemas
        return try await pool.withConnection { db in
            try db.transaction(isolation: .readCommitted) { db in
                let tx = PostgresStoreTransaction(db, writing: true, pushChannel: channel, schemas: schemas)
                let value = try body(tx)
                if let failure = tx.transientFailure { throw failure }
                try tx.finish()
                return value
            }
        }
    }

    /// Closes every connection (dropping the schema of a temporary store first).
    public func close() async throws {
        if let temporarySchema {
            _ = try await pool.withConnection { db in try db.execute("DROP SCHEMA IF EXISTS \(temporarySchema) CASCADE") }
        }
        pool.close()
    }
}

extension PostgresStoreTransaction {
    func query(_ plan: QueryPlan) throws -> QueryPage {
        try PostgresQueryEvaluator(plan: plan).run(self)
    }
}
