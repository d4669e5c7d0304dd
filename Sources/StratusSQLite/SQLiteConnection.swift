import CSQLite
public import StratusLogging

/// One SQLite database connection: runs SQL, prepares and caches statements, runs transactions.
///
/// A connection is not thread-safe (it is opened with `SQLITE_OPEN_NOMUTEX`) and not
/// `Sendable`: it must stay on one executor. Most code never opens one directly but
/// receives it inside ``SQLiteDatabasePool/write(_:)`` or ``SQLiteDatabasePool/read(_:)``.
/// Tools and tests may open one:
///
/// ```swift
/// let db = try SQLiteConnection(path: "/tmp/notes.sqlite")
/// try db.execute(sql: """
///     CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);
///     CREATE INDEX notes_body ON notes (body);
///     """)
/// try db.transaction(.immediate) { db in
///     try db.execute("INSERT INTO notes (body) VALUES (?)", ["Hello"])
/// }
/// let bodies = try db.fetchAll(String.self, "SELECT body FROM notes")
/// try db.close()
/// ```
///
/// Every new connection has extended result codes on, the busy timeout set, double-quoted
/// string literals off (so `"column"` can only name a column), and the pragmas of its
/// ``SQLiteConfiguration`` applied.
///
/// Related SQLite documentation: <https://www.sqlite.org/c3ref/sqlite3.html>
public final class SQLiteConnection {
    /// The path the connection was opened with.
    public let path: String
    /// Whether the connection was opened read-only.
    public let isReadOnly: Bool
    /// The logger the connection writes to.
    public let logger: Logger

    private var handleStorage: OpaquePointer?
    private var statementCache: [StatementKey: SQLiteStatement] = [:]
    private let statementCacheCapacity: Int
    var savepointDepth = 0

    /// Opens (and creates, unless `readOnly`) the database at `path` with default settings.
    ///
    /// - Parameters:
    ///   - path: The database file, or `":memory:"`.
    ///   - readOnly: Open with `SQLITE_OPEN_READONLY`.
    ///   - logger: Where to log opening and closing.
    /// - Throws: ``SQLiteError`` if the file cannot be opened or set up.
    public convenience init(path: String, readOnly: Bool = false, logger: Logger = .disabled) throws {
        try self.init(configuration: SQLiteConfiguration(path: path), readOnly: readOnly, logger: logger)
    }

    /// Opens the database described by `configuration` and applies its settings.
    ///
    /// A writable connection sets ``SQLiteConfiguration/journalMode``; a read-only one
    /// uses the mode the file already has.
    ///
    /// - Parameters:
    ///   - configuration: The path and settings.
    ///   - readOnly: Open with `SQLITE_OPEN_READONLY`.
    ///   - logger: Where to log opening and closing.
    /// - Throws: ``SQLiteError`` if the file cannot be opened or set up.
    public init(configuration: SQLiteConfiguration, readOnly: Bool = false, logger: Logger = .disabled) throws {
        path = configuration.path
        isReadOnly = readOnly
        self.logger = logger
        statementCacheCapacity = max(configuration.statementCacheCapacity, 0)

        if !readOnly, let mode = configuration.fileMode, configuration.path != ":memory:" {
            try SQLiteFileMode.apply(mode, to: configuration.path)
        }
        var handle: OpaquePointer?
        let flags =
            (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let code = sqlite3_open_v2(configuration.path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let error = SQLiteError(code: code, handle: handle, sql: nil, operation: "open \(configuration.path)")
            // NB: > Whether or not an error occurs when it is opened, resources associated with
            // > the database connection handle should be released by passing it to sqlite3_close()
            // > when it is no longer required.
            sqlite3_close(handle)
            throw error
        }
        handleStorage = handle
        do {
            try setUp(configuration)
        } catch {
            closeHandle()
            throw error
        }
        logger.debug("opened SQLite connection", metadata: ["path": path, "readOnly": "\(readOnly)"])
    }

    deinit {
        closeHandle()
    }

    private func setUp(_ configuration: SQLiteConfiguration) throws {
        let handle = self.handle
        sqlite3_extended_result_codes(handle, 1)
        let milliseconds =
            configuration.busyTimeout.components.seconds * 1000
            + configuration.busyTimeout.components.attoseconds / 1_000_000_000_000_000
        sqlite3_busy_timeout(handle, Int32(clamping: milliseconds))
        // NB: > The SQLITE_DBCONFIG_DQS_DML option activates or deactivates the legacy
        // > double-quoted string literal misfeature for DML statements only.
        // With it off, a misspelled "column" is an error instead of a string.
        _ = stratus_sqlite3_db_config_int(handle, SQLITE_DBCONFIG_DQS_DML, 0)
        _ = stratus_sqlite3_db_config_int(handle, SQLITE_DBCONFIG_DQS_DDL, 0)

        if !isReadOnly {
            let mode = try fetchOne(String.self, "PRAGMA journal_mode = \(configuration.journalMode.rawValue)")
            if configuration.journalMode == .wal, mode?.lowercased() != "wal", path != ":memory:", !path.isEmpty {
                throw SQLiteError(
                    code: .error, message: "could not enable WAL mode (journal_mode is \(mode ?? "unknown"))",
                    sql: "PRAGMA journal_mode = WAL", operation: "open")
            }
        }
        try execute(sql: "PRAGMA synchronous = \(configuration.synchronous.rawValue)")
        try execute(sql: "PRAGMA foreign_keys = \(configuration.foreignKeys ? "ON" : "OFF")")
        if let cacheSize = isReadOnly ? configuration.readerCacheSizeKiB ?? configuration.cacheSizeKiB : configuration.cacheSizeKiB {
            try execute(sql: "PRAGMA cache_size = -\(max(cacheSize, 0))")
        }
        if let mmapSize = configuration.mmapSize {
            // PRAGMA mmap_size answers with a row; run it as a script to discard it.
            try execute(sql: "PRAGMA mmap_size = \(max(mmapSize, 0))")
        }
        try configuration.prepareConnection?(self)
    }

    /// The raw handle; using a closed connection is a programming error.
    var handle: OpaquePointer {
        guard let handleStorage else {
            preconditionFailure("SQLiteConnection used after close() (\(path))")
        }
        return handleStorage
    }

    /// Whether ``close()`` has been called.
    public var isClosed: Bool { handleStorage == nil }

    /// Closes the connection, finalizing its cached statements.
    ///
    /// Calling it again does nothing.
    /// Statements you still hold keep the underlying handle alive until they are released
    /// (`sqlite3_close_v2`), but must not be used.
    ///
    /// - Throws: ``SQLiteError`` if SQLite refuses to close.
    public func close() throws {
        guard let handle = handleStorage else { return }
        statementCache.removeAll()
        let code = sqlite3_close_v2(handle)
        guard code == SQLITE_OK else {
            throw SQLiteError(code: code, handle: handle, sql: nil, operation: "close")
        }
        handleStorage = nil
        logger.debug("closed SQLite connection", metadata: ["path": path])
    }

    private func closeHandle() {
        guard let handle = handleStorage else { return }
        statementCache.removeAll()
        // NB: > If sqlite3_close_v2() is called with unfinalized prepared statements […] then
        // > the database connection becomes an unusable "zombie" which will automatically
        // > be deallocated when the last prepared statement is finalized.
        sqlite3_close_v2(handle)
        handleStorage = nil
    }

    // MARK: Statements

    /// Prepares a statement that is not cached; it is finalized when released.
    ///
    /// - Parameter sql: Exactly one SQL statement.
    /// - Returns: The prepared statement.
    /// - Throws: ``SQLiteError`` for invalid SQL, or ``SQLiteError/Code/misuse`` if `sql`
    ///   is empty or holds more than one statement.
    public func prepare(_ sql: String) throws -> SQLiteStatement {
        try makeStatement(sql, persistent: false)
    }

    /// Returns the connection's prepared statement for `sql`, preparing it on first use.
    ///
    /// The statement comes back reset with its bindings cleared. If the cached statement
    /// is in use (a row loop over it is running), a fresh uncached one is returned.
    ///
    /// - Parameter sql: Exactly one SQL statement.
    /// - Returns: The prepared statement.
    /// - Throws: ``SQLiteError`` for invalid SQL, or ``SQLiteError/Code/misuse`` if `sql`
    ///   is empty or holds more than one statement.
    public func cachedStatement(sql: String) throws -> SQLiteStatement {
        let key = StatementKey(sql)
        if let statement = statementCache[key] {
            if statement.isBusy {
                return try makeStatement(sql, persistent: false)
            }
            statement.clearBindings()
            return statement
        }
        // NB: > The SQLITE_PREPARE_PERSISTENT flag is a hint to the query planner that the
        // > prepared statement will be retained for a long time and probably reused many times.
        let statement = try makeStatement(sql, persistent: true)
        if statementCache.count >= statementCacheCapacity {
            statementCache.removeAll(keepingCapacity: true)
        }
        if statementCacheCapacity > 0 {
            statementCache[key] = statement
        }
        return statement
    }

    /// Empties the statement cache, finalizing statements nobody else holds.
    public func clearStatementCache() {
        statementCache.removeAll()
    }

    private func makeStatement(_ sql: String, persistent: Bool) throws -> SQLiteStatement {
        let db = handle
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        var statementHandle: OpaquePointer?
        var hasMore = false
        let code = sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            // NB: > If the caller knows that the supplied string is nul-terminated, then there is a
            // > small performance advantage to passing an nByte parameter that is the number of bytes
            // > in the input string *including* the nul-terminator.
            let code = sqlite3_prepare_v3(db, text, Int32(clamping: sql.utf8.count + 1), flags, &statementHandle, &tail)
            if code == SQLITE_OK, let tail, tail.pointee != 0 {
                hasMore = Self.containsStatement(db, tail)
            }
            return code
        }
        guard code == SQLITE_OK else {
            throw SQLiteError(code: code, handle: db, sql: sql, operation: "prepare")
        }
        guard let statementHandle else {
            throw SQLiteError(code: .misuse, message: "the SQL holds no statement", sql: sql, operation: "prepare")
        }
        let statement = SQLiteStatement(handle: statementHandle, connectionHandle: db, sql: sql)
        if hasMore {
            throw SQLiteError(
                code: .misuse, message: "the SQL holds more than one statement; use execute(sql:) for scripts",
                sql: sql, operation: "prepare")
        }
        return statement
    }

    /// Whether `text` holds a statement (anything but whitespace and comments).
    private static func containsStatement(_ db: OpaquePointer, _ text: UnsafePointer<CChar>) -> Bool {
        var extra: OpaquePointer?
        let code = sqlite3_prepare_v2(db, text, -1, &extra, nil)
        defer { sqlite3_finalize(extra) }
        return code != SQLITE_OK || extra != nil
    }

    // MARK: Scripts

    /// Runs a script of zero or more SQL statements separated by semicolons; rows are discarded.
    ///
    /// ```swift
    /// try db.execute(sql: """
    ///     CREATE TABLE zones (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
    ///     INSERT INTO zones (name) VALUES ('_defaultZone');
    ///     """)
    /// ```
    ///
    /// Scripts take no arguments; use ``execute(_:_:)`` to bind values.
    ///
    /// - Parameter sql: The script.
    /// - Throws: ``SQLiteError`` for the first statement that fails; earlier ones stay applied.
    public func execute(sql: String) throws {
        let db = handle
        try sql.withCString { start in
            var next: UnsafePointer<CChar>? = start
            while let current = next, current.pointee != 0 {
                var statementHandle: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let code = sqlite3_prepare_v2(db, current, -1, &statementHandle, &tail)
                guard code == SQLITE_OK else {
                    throw SQLiteError(code: code, handle: db, sql: sql, operation: "prepare")
                }
                next = tail
                guard let statementHandle else { continue }  // whitespace or a comment
                defer { sqlite3_finalize(statementHandle) }
                var stepCode = sqlite3_step(statementHandle)
                while stepCode == SQLITE_ROW {
                    stepCode = sqlite3_step(statementHandle)
                }
                guard stepCode == SQLITE_DONE else {
                    let failed = sqlite3_sql(statementHandle).map { String(cString: $0) } ?? sql
                    throw SQLiteError(code: stepCode, handle: db, sql: failed, operation: "step")
                }
            }
        }
    }

    // MARK: State

    /// The rowid of the most recent successful `INSERT` on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// The number of rows changed by the most recent `INSERT`, `UPDATE` or `DELETE`.
    public var changes: Int { Int(sqlite3_changes64(handle)) }

    /// The number of rows changed since the connection opened.
    public var totalChanges: Int { Int(sqlite3_total_changes64(handle)) }

    /// Whether a transaction is open (the connection is not in autocommit mode).
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }
}

@available(*, unavailable, message: "A connection is confined to one executor; reach it through read { } or write { }")
extension SQLiteConnection: Sendable {}
