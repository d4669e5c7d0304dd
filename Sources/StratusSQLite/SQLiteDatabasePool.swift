public import StratusLogging

/// A WAL-mode database with one writer connection and a pool of read-only connections.
///
/// Writes are serialized on the writer; reads run concurrently on the readers, each in a
/// transaction that sees a consistent snapshot, and are never blocked by a write in
/// progress (nor block it). Every connection lives on its own serial dispatch queue, so
/// the blocking SQLite calls never tie up Swift's cooperative thread pool: async callers
/// suspend until their closure has run.
///
/// ```swift
/// let pool = try SQLiteDatabasePool(configuration: SQLiteConfiguration(path: path), logger: logger)
/// try await migrator.migrate(pool)
///
/// let body = "Buy milk"
/// let id = try await pool.write { db in
///     try db.execute("INSERT INTO notes (body) VALUES (?)", [body])
///     return db.lastInsertRowID
/// }
/// let bodies = try await pool.read { db in
///     try db.fetchAll(String.self, "SELECT body FROM notes ORDER BY id")
/// }
/// ```
///
/// ``write(_:)`` commits when its closure returns; acknowledged writes survive the process
/// being killed (see ``SQLiteConfiguration`` for the durability of each synchronous mode).
///
/// The pool opens the writer first (creating the file and switching it to WAL), then
/// ``SQLiteConfiguration/readerCount`` readers with `SQLITE_OPEN_READONLY`.
public final class SQLiteDatabasePool: SQLiteDatabase {
    /// The configuration the pool was opened with.
    public let configuration: SQLiteConfiguration
    private let writer: SerializedConnection
    private let readers: ReaderPool

    /// Opens the database, creating the file if needed, in WAL mode.
    ///
    /// - Parameters:
    ///   - configuration: The path and settings; ``SQLiteConfiguration/journalMode`` is ignored (always WAL).
    ///   - logger: Where connections log opening and closing.
    /// - Throws: ``SQLiteError`` if a connection cannot be opened or WAL mode cannot be enabled.
    public init(configuration: SQLiteConfiguration, logger: Logger = .disabled) throws {
        precondition(configuration.readerCount >= 1, "SQLiteDatabasePool needs at least one reader")
        precondition(
            configuration.path != ":memory:" && !configuration.path.isEmpty,
            "SQLiteDatabasePool needs a database file; use SQLiteDatabaseQueue for in-memory databases")
        var configuration = configuration
        configuration.journalMode = .wal
        self.configuration = configuration
        let writerConnection = try SQLiteConnection(configuration: configuration, readOnly: false, logger: logger)
        writer = SerializedConnection(label: "stratus.sqlite.writer", connection: writerConnection)
        var readerConnections: [SerializedConnection] = []
        for index in 0..<configuration.readerCount {
            let connection = try SQLiteConnection(configuration: configuration, readOnly: true, logger: logger)
            readerConnections.append(SerializedConnection(label: "stratus.sqlite.reader.\(index)", connection: connection))
        }
        readers = ReaderPool(readers: readerConnections)
    }

    /// Runs `body` on a reader, in a deferred transaction that sees one consistent snapshot.
    ///
    /// The snapshot is taken at the first read inside `body`; writes committed after that
    /// stay invisible until `body` returns. The reader is read-only: writing throws
    /// ``SQLiteError/Code/readOnly``. If every reader is busy, the call waits (suspending,
    /// not blocking) for the first one to come back.
    ///
    /// ```swift
    /// let count = try await pool.read { db in try db.fetchOne(Int.self, "SELECT count(*) FROM notes") ?? 0 }
    /// ```
    ///
    /// - Parameter body: Reads through the connection.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``SQLiteError``.
    public func read<Result: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> Result) async throws -> Result {
        try await readers.read { db in try db.transaction(.deferred, body) }
    }

    /// Runs `body` on the writer in an immediate transaction: commits if it returns, rolls back if it throws.
    ///
    /// Writes run one at a time, in the order they were called.
    ///
    /// ```swift
    /// let notes = [(body: "Buy milk", id: Int64(1)), (body: "Call Ana", id: Int64(2))]
    /// try await pool.write { db in
    ///     for note in notes { try db.execute("INSERT INTO notes (body) VALUES (?)", binding: note.body) }
    /// }
    /// ```
    ///
    /// - Parameter body: Reads and writes through the connection.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws (after rolling back), or ``SQLiteError``.
    public func write<Result: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> Result) async throws -> Result {
        try await writer.perform { db in try db.transaction(.immediate, body) }
    }

    /// Runs `body` on the writer outside any transaction, for migrations, `VACUUM` and pragmas.
    ///
    /// - Parameter body: Uses the connection.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``SQLiteError``.
    public func writeWithoutTransaction<Result: Sendable>(
        _ body: @escaping @Sendable (SQLiteConnection) throws -> Result
    ) async throws -> Result {
        try await writer.perform(body)
    }

    /// Queues `body` to run on the writer, outside any transaction, and returns at once.
    ///
    /// For callers that hand results back themselves (a group commit resuming each writer after
    /// its `COMMIT`): no task waits for the block, so it costs no hop back to the caller's
    /// executor. `body` begins and ends its own transactions with
    /// ``SQLiteConnection/transaction(_:_:)`` and must not throw.
    ///
    /// ```swift
    /// let pool = try SQLiteDatabasePool(configuration: SQLiteConfiguration(path: "/tmp/notes.sqlite"))
    /// pool.enqueueOnWriter { db in
    ///     let saved = Result { try db.transaction(.immediate) { db in try db.execute("INSERT INTO notes (body) VALUES ('x')") } }
    ///     print(saved)
    /// }
    /// ```
    ///
    /// - Parameter body: Uses the connection; runs after the writes queued before it.
    public func enqueueOnWriter(_ body: @escaping @Sendable (SQLiteConnection) -> Void) {
        writer.enqueue(body)
    }

    /// The number of writes queued for the writer that have not started (``write(_:)``,
    /// ``enqueueOnWriter(_:)`` and the other writer calls): a long write made of steps, such as an
    /// index build, checks it between steps and lets them go first.
    ///
    /// ```swift
    /// let pool = try SQLiteDatabasePool(configuration: SQLiteConfiguration(path: "/tmp/notes.sqlite"))
    /// try await pool.write { db in
    ///     for step in 0..<40 where step == 0 || pool.writerBacklog == 0 {
    ///         try db.execute("INSERT INTO notes (body) VALUES ('step')")
    ///     }
    /// }
    /// ```
    public var writerBacklog: Int { writer.backlog }

    /// The blocking twin of ``read(_:)``.
    ///
    /// If every reader is busy, the calling thread blocks until one comes back, so do not
    /// call it from inside a ``read(_:)`` closure: with all readers doing so, none would return.
    ///
    /// - Parameter body: Reads through the connection.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``SQLiteError``.
    public func readSync<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        try readers.readSync { db in try db.transaction(.deferred, body) }
    }

    /// The blocking twin of ``write(_:)``.
    ///
    /// - Parameter body: Reads and writes through the connection.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws (after rolling back), or ``SQLiteError``.
    public func writeSync<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        try writer.sync { db in try db.transaction(.immediate, body) }
    }

    /// The blocking twin of ``writeWithoutTransaction(_:)``.
    ///
    /// - Parameter body: Uses the connection.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``SQLiteError``.
    public func writeWithoutTransactionSync<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        try writer.sync(body)
    }

    /// Copies the WAL into the database file on the writer.
    ///
    /// - Parameter mode: How thorough; ``SQLiteCheckpointMode/passive`` by default.
    /// - Returns: The frames in the WAL and how many of them are now in the database file.
    /// - Throws: ``SQLiteError``.
    @discardableResult
    public func checkpoint(_ mode: SQLiteCheckpointMode = .passive) async throws -> (walFrames: Int, checkpointedFrames: Int) {
        let result = try await writer.perform { db in
            let counts = try db.checkpoint(mode)
            return [counts.walFrames, counts.checkpointedFrames]
        }
        return (result[0], result[1])
    }

    /// Waits for reads in progress, closes the readers, then the writer after its queued writes.
    ///
    /// Closing the writer checkpoints the WAL. Later accesses are programming errors;
    /// calling it twice does nothing.
    ///
    /// - Throws: ``SQLiteError`` if a connection refuses to close.
    public func close() throws {
        var firstError: (any Error)?
        do {
            try readers.close()
        } catch {
            firstError = error
        }
        do {
            try writer.sync { try $0.close() }
        } catch {
            firstError = firstError ?? error
        }
        if let firstError { throw firstError }
    }
}
