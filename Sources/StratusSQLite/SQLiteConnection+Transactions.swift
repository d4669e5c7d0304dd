import CSQLite
import StratusLogging

/// How a transaction takes its locks (`BEGIN DEFERRED | IMMEDIATE | EXCLUSIVE`).
///
/// Related SQLite documentation: <https://www.sqlite.org/lang_transaction.html>
public enum SQLiteTransactionKind: String, Sendable {
    /// Takes no lock until the first read, and the write lock at the first write (may then fail with ``SQLiteError/Code/busy``).
    case deferred = "DEFERRED"
    /// Takes the write lock at once, so the transaction cannot fail later for lack of it.
    case immediate = "IMMEDIATE"
    /// Like ``immediate``; in WAL mode the same, otherwise also keeps readers out.
    case exclusive = "EXCLUSIVE"
}

/// How thoroughly ``SQLiteConnection/checkpoint(_:)`` copies the WAL into the database file.
///
/// Related SQLite documentation: <https://www.sqlite.org/c3ref/wal_checkpoint_v2.html>
public enum SQLiteCheckpointMode: Int32, Sendable {
    /// Copies what it can without waiting for readers or writers.
    case passive = 0
    /// Waits for the writer, then copies everything readers allow.
    case full = 1
    /// Like ``full``, then waits for readers so the next writer restarts the WAL.
    case restart = 2
    /// Like ``restart``, and truncates the WAL file to zero bytes.
    case truncate = 3
}

extension SQLiteConnection {
    /// Runs `body` in a transaction: commits if it returns, rolls back if it throws.
    ///
    /// ```swift
    /// let id = try db.transaction(.immediate) { db in
    ///     try db.execute("INSERT INTO zones (name) VALUES (?)", [name])
    ///     return db.lastInsertRowID
    /// }
    /// ```
    ///
    /// Transactions do not nest: inside one, use ``savepoint(_:)``. Calling this while a
    /// transaction is open is a programming error and stops the program.
    ///
    /// - Parameters:
    ///   - kind: How locks are taken; ``SQLiteTransactionKind/deferred`` by default.
    ///   - body: The work; it receives this connection.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws (after rolling back), or ``SQLiteError`` if `BEGIN` or `COMMIT` fails.
    public func transaction<Result>(
        _ kind: SQLiteTransactionKind = .deferred, _ body: (SQLiteConnection) throws -> Result
    ) throws -> Result {
        precondition(!isInTransaction, "transaction(_:_:) called inside a transaction on \(path); use savepoint(_:)")
        try execute(kind.beginSQL)
        let result: Result
        do {
            result = try body(self)
        } catch {
            rollbackAfterError(error)
            throw error
        }
        do {
            try execute("COMMIT")
        } catch {
            // NB: > An attempt to execute COMMIT might also result in an SQLITE_BUSY return code
            // > if an another thread or process has an open read connection. When COMMIT fails
            // > in this way, the transaction remains active.
            rollbackAfterError(error)
            throw error
        }
        return result
    }

    /// Runs `body` inside a savepoint: releases it if `body` returns, rolls back to it if `body` throws.
    ///
    /// Savepoints nest, inside or outside a transaction; rolling back an inner one keeps the
    /// outer work:
    ///
    /// ```swift
    /// try db.transaction { db in
    ///     try db.execute("INSERT INTO log (event) VALUES ('kept')")
    ///     try? db.savepoint { db in
    ///         try db.execute("INSERT INTO log (event) VALUES ('undone')")
    ///         throw CancellationError()
    ///     }
    /// }
    /// ```
    ///
    /// - Parameter body: The work; it receives this connection.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws (after rolling back to the savepoint), or ``SQLiteError``.
    public func savepoint<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        let name = "stratus_savepoint_\(savepointDepth)"
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        try execute("SAVEPOINT \(name)")
        let result: Result
        do {
            result = try body(self)
            try execute("RELEASE SAVEPOINT \(name)")
        } catch {
            // NB: > If certain kinds of errors occur within a transaction, the transaction may or
            // > may not be rolled back automatically.
            // Only roll back to the savepoint if the transaction that holds it is still open.
            if isInTransaction {
                do {
                    try execute("ROLLBACK TO SAVEPOINT \(name)")
                    try execute("RELEASE SAVEPOINT \(name)")
                } catch let rollbackError {
                    logger.warning(
                        "rollback to savepoint failed",
                        metadata: ["path": path, "error": "\(rollbackError)", "cause": "\(error)"])
                }
            }
            throw error
        }
        return result
    }

    /// Rolls back the open transaction, if SQLite has not already done so.
    private func rollbackAfterError(_ error: any Error) {
        // NB: > If certain kinds of errors occur within a transaction, the transaction may or
        // > may not be rolled back automatically. The errors that can cause an automatic
        // > rollback include: SQLITE_FULL, SQLITE_IOERR, SQLITE_BUSY, SQLITE_NOMEM.
        guard isInTransaction else { return }
        do {
            try execute("ROLLBACK")
        } catch let rollbackError {
            logger.warning("rollback failed", metadata: ["path": path, "error": "\(rollbackError)", "cause": "\(error)"])
        }
    }

    /// Copies the WAL into the database file (`sqlite3_wal_checkpoint_v2`).
    ///
    /// SQLite checkpoints automatically (every 1000 pages by default); call this to bound
    /// the WAL size, for example before a backup. It does nothing outside WAL mode.
    ///
    /// - Parameter mode: How thorough; ``SQLiteCheckpointMode/passive`` by default.
    /// - Returns: The frames in the WAL and how many of them are now in the database file.
    /// - Throws: ``SQLiteError`` (``SQLiteError/Code/busy`` if a stricter mode could not finish).
    @discardableResult
    public func checkpoint(_ mode: SQLiteCheckpointMode = .passive) throws -> (walFrames: Int, checkpointedFrames: Int) {
        var walFrames: Int32 = 0
        var checkpointed: Int32 = 0
        let code = sqlite3_wal_checkpoint_v2(handle, nil, mode.rawValue, &walFrames, &checkpointed)
        guard code == SQLITE_OK else {
            throw SQLiteError(code: code, handle: handle, sql: nil, operation: "checkpoint")
        }
        return (Int(walFrames), Int(checkpointed))
    }
}

extension SQLiteTransactionKind {
    var beginSQL: String {
        switch self {
        case .deferred: "BEGIN DEFERRED TRANSACTION"
        case .immediate: "BEGIN IMMEDIATE TRANSACTION"
        case .exclusive: "BEGIN EXCLUSIVE TRANSACTION"
        }
    }
}
