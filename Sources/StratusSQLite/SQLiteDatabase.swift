/// A database reached through closures that run on the right connection: ``SQLiteDatabasePool`` or ``SQLiteDatabaseQueue``.
///
/// Write code against this protocol to run on either: a pool in the server and the app,
/// a queue for small stores and tests.
///
/// ```swift
/// func countNotes(in database: some SQLiteDatabase) async throws -> Int {
///     try await database.read { db in try db.fetchOne(Int.self, "SELECT count(*) FROM notes") ?? 0 }
/// }
/// ```
///
/// The connection passed to a closure is valid only during the call. Do not start a
/// synchronous access (`readSync`, `writeSync`) from inside a closure that runs on the
/// same connection: it would wait for itself, so it stops the program instead.
public protocol SQLiteDatabase: AnyObject, Sendable {
    /// Runs `body` in a read-only transaction that sees one consistent snapshot.
    ///
    /// - Parameter body: Reads through the connection.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``SQLiteError``.
    func read<Result: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> Result) async throws -> Result

    /// Runs `body` in an immediate transaction on the writer; commits if it returns, rolls back if it throws.
    ///
    /// - Parameter body: Reads and writes through the connection.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``SQLiteError``.
    func write<Result: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> Result) async throws -> Result

    /// Runs `body` on the writer outside any transaction (for migrations, `VACUUM`, pragmas).
    ///
    /// - Parameter body: Uses the connection; each statement autocommits unless `body` opens a transaction.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``SQLiteError``.
    func writeWithoutTransaction<Result: Sendable>(
        _ body: @escaping @Sendable (SQLiteConnection) throws -> Result
    ) async throws -> Result

    /// The blocking twin of ``read(_:)``, for callers outside async contexts.
    ///
    /// - Parameter body: Reads through the connection.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``SQLiteError``.
    func readSync<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result

    /// The blocking twin of ``write(_:)``, for callers outside async contexts.
    ///
    /// - Parameter body: Reads and writes through the connection.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``SQLiteError``.
    func writeSync<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result

    /// The blocking twin of ``writeWithoutTransaction(_:)``.
    ///
    /// - Parameter body: Uses the connection.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``SQLiteError``.
    func writeWithoutTransactionSync<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result

    /// Closes every connection after the accesses already started have finished.
    ///
    /// Later accesses are programming errors. Calling it twice does nothing.
    ///
    /// - Throws: ``SQLiteError`` if a connection refuses to close.
    func close() throws
}
