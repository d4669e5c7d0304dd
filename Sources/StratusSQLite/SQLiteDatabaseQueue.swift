public import StratusLogging

/// A database on a single connection that serializes every read and write.
///
/// Simpler and lighter than ``SQLiteDatabasePool``: good for small stores, tools, tests
/// and in-memory databases. Reads wait for writes and the other way round.
///
/// ```swift
/// let queue = try SQLiteDatabaseQueue(configuration: SQLiteConfiguration(path: ":memory:"))
/// try await queue.write { db in try db.execute(sql: "CREATE TABLE t (x INTEGER)") }
/// let count = try await queue.read { db in try db.fetchOne(Int.self, "SELECT count(*) FROM t") }
/// ```
///
/// Reads run in a deferred transaction with `PRAGMA query_only` on, so a write inside
/// ``read(_:)`` throws ``SQLiteError/Code/readOnly`` as it would on a pool.
public final class SQLiteDatabaseQueue: SQLiteDatabase {
    /// The configuration the queue was opened with.
    public let configuration: SQLiteConfiguration
    private let connection: SerializedConnection

    /// Opens the database, creating the file if needed, in ``SQLiteConfiguration/journalMode``.
    ///
    /// - Parameters:
    ///   - configuration: The path (a file or `":memory:"`) and settings; ``SQLiteConfiguration/readerCount`` is ignored.
    ///   - logger: Where the connection logs opening and closing.
    /// - Throws: ``SQLiteError`` if the connection cannot be opened or set up.
    public init(configuration: SQLiteConfiguration, logger: Logger = .disabled) throws {
        self.configuration = configuration
        connection = SerializedConnection(
            label: "stratus.sqlite.queue",
            connection: try SQLiteConnection(configuration: configuration, readOnly: false, logger: logger))
    }

    /// Runs `body` in a read-only deferred transaction.
    ///
    /// - Parameter body: Reads through the connection.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``SQLiteError``.
    public func read<Result: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> Result) async throws -> Result {
        try await connection.perform { db in try Self.readOnly(Self.open(db), body) }
    }

    /// Runs `body` in an immediate transaction: commits if it returns, rolls back if it throws.
    ///
    /// - Parameter body: Reads and writes through the connection.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws (after rolling back), or ``SQLiteError``.
    public func write<Result: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> Result) async throws -> Result {
        try await connection.perform { db in try Self.open(db).transaction(.immediate, body) }
    }

    /// Runs `body` outside any transaction, for migrations, `VACUUM` and pragmas.
    ///
    /// - Parameter body: Uses the connection.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``SQLiteError``.
    public func writeWithoutTransaction<Result: Sendable>(
        _ body: @escaping @Sendable (SQLiteConnection) throws -> Result
    ) async throws -> Result {
        try await connection.perform { db in try body(Self.open(db)) }
    }

    /// The blocking twin of ``read(_:)``.
    ///
    /// - Parameter body: Reads through the connection.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``SQLiteError``.
    public func readSync<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        try connection.sync { db in try Self.readOnly(Self.open(db), body) }
    }

    /// The blocking twin of ``write(_:)``.
    ///
    /// - Parameter body: Reads and writes through the connection.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws (after rolling back), or ``SQLiteError``.
    public func writeSync<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        try connection.sync { db in try Self.open(db).transaction(.immediate, body) }
    }

    /// The blocking twin of ``writeWithoutTransaction(_:)``.
    ///
    /// - Parameter body: Uses the connection.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``SQLiteError``.
    public func writeWithoutTransactionSync<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        try connection.sync { db in try body(Self.open(db)) }
    }

    /// Closes the connection after the accesses already queued; later ones throw ``SQLiteError``
    /// (``SQLiteError/Code/misuse``) instead of touching it — work still in flight when its owner
    /// shut down (a sync resuming after `close()`) fails rather than stopping the program.
    ///
    /// - Throws: ``SQLiteError`` if the connection refuses to close.
    public func close() throws {
        try connection.sync { try $0.close() }
    }

    /// `db`, unless it was closed.
    private static func open(_ db: SQLiteConnection) throws(SQLiteError) -> SQLiteConnection {
        guard db.isClosed else { return db }
        throw SQLiteError(code: .misuse, message: "the database \(db.path) was closed")
    }

    private static func readOnly<Result>(_ db: SQLiteConnection, _ body: (SQLiteConnection) throws -> Result) throws -> Result {
        try db.execute("PRAGMA query_only = ON")
        defer {
            // NB: query_only is a connection setting, not part of the transaction; it must be
            // switched back even if the read failed. Turning it off cannot fail on an open connection.
            do {
                try db.execute("PRAGMA query_only = OFF")
            } catch {
                preconditionFailure("could not leave query_only mode on \(db.path): \(error)")
            }
        }
        return try db.transaction(.deferred, body)
    }
}
