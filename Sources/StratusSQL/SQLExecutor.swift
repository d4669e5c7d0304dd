/// Runs ``SQL`` on one database connection: the interface both drivers implement, so that code
/// which is the same on SQLite and PostgreSQL is written once.
///
/// An executor is a connection (or a transaction over one) confined to one thread at a time,
/// reached inside the closure of a store's `read { }` or `write { }`: it is not `Sendable`.
/// Values are always bound (``SQL``), the text is rendered for ``dialect``, and on SQLite
/// the prepared statement is cached per rendered text.
///
/// ```swift
/// func revoke(_ db: any SQLExecutor, hash: String, at time: Int64) throws -> Bool {
///     try db.execute(literal: "UPDATE api_tokens SET revoked_at = \(time) WHERE token_hash = \(hash) AND revoked_at IS NULL") == 1
/// }
/// func zoneNames(_ db: any SQLExecutor, owner: String) throws -> [String] {
///     try db.fetchAll(literal: "SELECT name FROM zones WHERE owner = \(owner)") { row in try row[0] as String }
/// }
/// ```
///
/// Transactions are closures: ``inTransaction(_:)`` commits when the body returns and rolls back
/// when it throws. A PostgreSQL store `write` that meets a serialization failure or a deadlock
/// runs its whole transaction again, body included: a body must have no effect outside the
/// database (no I/O, no counters, no continuations resumed) beyond the value it returns
/// (Documentation/0019-sql-layer.md).
public protocol SQLExecutor: AnyObject {
    /// How statements are rendered for this connection.
    var dialect: SQLDialect { get }

    /// Runs one statement; rows are discarded.
    ///
    /// - Parameter sql: Exactly one statement.
    /// - Returns: The rows it inserted, updated or deleted (0 for other statements).
    /// - Throws: The driver's error.
    @discardableResult
    func execute(literal sql: SQL) throws -> Int

    /// Calls `body` with each row of a query.
    ///
    /// - Parameters:
    ///   - sql: Exactly one statement.
    ///   - body: Reads one row; the row is valid only during the call.
    /// - Throws: The driver's error, or what `body` throws.
    func forEachRow(literal sql: SQL, _ body: (any SQLRow) throws -> Void) throws

    /// The first row of a query, transformed; the rest are not read.
    ///
    /// - Parameters:
    ///   - sql: Exactly one statement.
    ///   - transform: Makes a value from the row.
    /// - Returns: The value, or `nil` when the query returns no row.
    /// - Throws: The driver's error, or what `transform` throws.
    func fetchOne<Element>(literal sql: SQL, _ transform: (any SQLRow) throws -> Element) throws -> Element?

    /// Runs statements whose results nobody reads, in order; PostgreSQL sends them in one round trip.
    ///
    /// - Parameter statements: The statements.
    /// - Throws: The driver's error for the first that failed; later ones did not run.
    func executeBatch(literal statements: [SQL]) throws

    /// Runs a statement whose result nobody reads, now or (PostgreSQL) in one round trip with
    /// the next statement or the commit; its error is thrown by that later call.
    ///
    /// - Parameter sql: Exactly one statement.
    /// - Throws: The driver's error, when the statement runs at once.
    func enqueue(literal sql: SQL) throws

    /// Runs `body` in a transaction: commits if it returns, rolls back if it throws.
    ///
    /// Transactions do not nest: inside one, use ``inSavepoint(_:)``.
    ///
    /// - Parameter body: The work.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or the driver's error.
    func inTransaction<Result>(_ body: () throws -> Result) throws -> Result

    /// Runs `body` in a savepoint: its writes are undone if it throws, and the error is rethrown.
    ///
    /// - Parameter body: The work.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or the driver's error.
    func inSavepoint<Result>(_ body: () throws -> Result) throws -> Result
}

extension SQLExecutor {
    /// Every row of a query, transformed.
    ///
    /// - Parameters:
    ///   - sql: Exactly one statement.
    ///   - transform: Makes a value from one row.
    /// - Returns: One value per row, in order.
    /// - Throws: The driver's error, or what `transform` throws.
    public func fetchAll<Element>(literal sql: SQL, _ transform: (any SQLRow) throws -> Element) throws -> [Element] {
        var elements: [Element] = []
        try forEachRow(literal: sql) { row in elements.append(try transform(row)) }
        return elements
    }

    /// The first column of every row.
    ///
    /// - Parameters:
    ///   - type: The type to read.
    ///   - sql: Exactly one statement.
    /// - Returns: One value per row, in order.
    /// - Throws: The driver's error.
    public func fetchAll<Value: SQLDecodable>(_ type: Value.Type, literal sql: SQL) throws -> [Value] {
        try fetchAll(literal: sql) { row in try row[0] as Value }
    }

    /// The first column of the first row.
    ///
    /// - Parameters:
    ///   - type: The type to read.
    ///   - sql: Exactly one statement.
    /// - Returns: The value, or `nil` when the query returns no row.
    /// - Throws: The driver's error.
    public func fetchOne<Value: SQLDecodable>(_ type: Value.Type, literal sql: SQL) throws -> Value? {
        try fetchOne(literal: sql) { row in try row[0] as Value }
    }
}
