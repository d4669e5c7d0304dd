import CLibPQ
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
public import StratusLogging

/// One connection to PostgreSQL: parameterized statements, transactions, savepoints.
///
/// Not `Sendable`: a connection is confined to one thread at a time. Reach pooled
/// connections through ``PostgresConnectionPool``, which runs each on its own serial
/// queue so libpq's blocking calls never occupy Swift's cooperative threads.
///
/// Parameters are sent in text format (`PQexecParams`), arrays (``PostgresArray``) in binary, and
/// never spliced into SQL:
///
/// ```swift
/// let connection = try PostgresConnection(url: "postgres://postgres@127.0.0.1:55439/postgres")
/// try connection.execute("INSERT INTO notes (body) VALUES ($1)", [body])
/// let bodies = try connection.query("SELECT body FROM notes").map { try $0[0] as String }
/// ```
public final class PostgresConnection {
    let handle: OpaquePointer
    /// Statements run after every (re)connection, such as `SET search_path TO …`.
    let setup: [String]
    private let logger: Logger
    private var savepointDepth = 0
    /// Statements whose results nobody reads (`BEGIN`, `SAVEPOINT`, `RELEASE`, row locks), sent in
    /// one pipeline with the next statement instead of a round trip each.
    private var deferred: [PostgresStatement] = []
    /// How many times ``deferred`` was sent: a savepoint compares it to know whether its `SAVEPOINT` went out.
    private var flushes = 0
    /// Statements rendered at the last moment: called right before anything is sent (a statement, a
    /// pipeline, ``flush()``, the `COMMIT`), and what it returns is queued first, so whatever is sent
    /// sees them. A store buffers writes this way to send them as multi-row statements. Cleared when
    /// the transaction ends (commit or rollback).
    ///
    /// ```swift
    /// var buffered: [PostgresStatement] = []
    /// db.pendingStatements = { defer { buffered = [] }; return buffered }
    /// ```
    public var pendingStatements: (() -> [PostgresStatement])?
    /// Grows whenever the server (or the link to it) fails a statement or a pipeline on this
    /// connection, whoever catches the error: a caller running several writes in one transaction
    /// compares it before and after each to know that one met a database error, even a swallowed one.
    public private(set) var failures = 0
    /// Statements and pipelines this connection sent (each a round trip), as ``PostgresStatistics`` counts them process-wide.
    public private(set) var roundTrips = 0
    /// The names of the statements prepared on this session, by SQL (``PostgresStatement/prepared``).
    var preparedNames: [String: String] = [:]
    /// The most statements kept prepared; later ones run unnamed.
    static let maximumPrepared = 256

    /// Connects.
    ///
    /// - Parameters:
    ///   - url: A libpq connection string or `postgres://` URI.
    ///   - setup: Statements run right after connecting (and after each reconnection).
    ///   - logger: Where the connection logs.
    /// - Throws: ``PostgresError`` (``PostgresError/Code/unableToConnect``) when the server cannot be reached.
    public init(url: String, setup: [String] = [], logger: Logger = .disabled) throws {
        guard let handle = PQconnectdb(url) else {
            throw PostgresError(code: .unableToConnect, message: "libpq could not allocate a connection")
        }
        self.handle = handle
        self.setup = setup
        self.logger = logger
        guard PQstatus(handle) == CONNECTION_OK else {
            // NB: no PQfinish here: every property is set, so deinit runs and frees the handle (twice crashed).
            throw PostgresError(code: .unableToConnect, message: Self.errorMessage(handle))
        }
        PQsetNoticeProcessor(handle, postgresIgnoreNotice, nil)
        for statement in setup { try execute(statement) }
    }

    deinit {
        PQfinish(handle)
    }

    /// Whether the connection is up (libpq's view; a dead server is noticed on the next statement).
    public var isConnected: Bool { PQstatus(handle) == CONNECTION_OK }

    /// Reconnects with the same parameters and reruns the setup statements.
    ///
    /// - Throws: ``PostgresError`` when the server still cannot be reached.
    public func reconnect() throws {
        PQreset(handle)
        guard PQstatus(handle) == CONNECTION_OK else {
            throw PostgresError(code: .unableToConnect, message: Self.errorMessage(handle))
        }
        savepointDepth = 0
        deferred = []
        pendingStatements = nil
        preparedNames = [:]
        logger.notice("reconnected to PostgreSQL")
        for statement in setup { try execute(statement) }
    }

    /// Runs a statement and returns its rows.
    ///
    /// - Parameters:
    ///   - sql: One statement; parameters are `$1`, `$2`, ….
    ///   - parameters: The parameters' values.
    /// - Returns: The rows (empty for a statement that returns none).
    /// - Throws: ``PostgresError`` with the SQLSTATE and the statement.
    @discardableResult
    public func query(_ sql: String, _ parameters: [any PostgresBindable] = []) throws -> [PostgresRow] {
        try run(sql, parameters).rows
    }

    /// Runs a statement and returns how many rows it changed.
    ///
    /// - Parameters:
    ///   - sql: One statement (or, without parameters, several separated by `;`).
    ///   - parameters: The parameters' values.
    /// - Returns: The affected row count (0 for statements that report none).
    /// - Throws: ``PostgresError`` with the SQLSTATE and the statement.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [any PostgresBindable] = []) throws -> Int {
        try run(sql, parameters).affected
    }

    /// Runs a statement and returns its first row, if any.
    ///
    /// - Throws: ``PostgresError`` with the SQLSTATE and the statement.
    public func queryFirst(_ sql: String, _ parameters: [any PostgresBindable] = []) throws -> PostgresRow? {
        try run(sql, parameters).rows.first
    }

    /// Queues a statement whose result nobody reads — a lock, a savepoint — to go out in one
    /// pipeline with the next statement (or ``pipeline(_:)``), in order, saving its round trip.
    ///
    /// Its error, if any, is thrown by that next call. Queued statements are dropped when the
    /// transaction rolls back (they never ran, or are undone anyway).
    ///
    /// ```swift
    /// db.enqueue(PostgresStatement("SELECT 1 FROM zones WHERE id = $1 FOR UPDATE", [zoneID]))
    /// let rows = try db.query("SELECT … FROM records WHERE zone_id = $1", [zoneID])  // one round trip for both
    /// ```
    public func enqueue(_ statement: PostgresStatement) {
        deferred.append(statement)
    }

    /// How many statements are queued (``enqueue(_:)``) and not yet sent.
    public var queuedCount: Int { deferred.count }

    /// Sends the queued statements now, in one round trip (nothing if none are queued).
    ///
    /// A caller that queues many writes flushes every few hundred statements, so that one
    /// pipeline's replies never outgrow the socket buffers (the connection stays in blocking mode).
    ///
    /// ```swift
    /// if db.queuedCount >= 512 { try db.flush() }
    /// ```
    ///
    /// - Throws: ``PostgresError`` of the first queued statement that failed.
    public func flush() throws {
        queuePending()
        guard !deferred.isEmpty else { return }
        let batch = deferred
        deferred = []
        flushes += 1
        _ = try measureRoundTrip { try runPipeline(batch) }
    }

    /// Queues what ``pendingStatements`` renders.
    private func queuePending() {
        if let pendingStatements { deferred += pendingStatements() }
    }

    /// Runs one round trip, counted here and in ``PostgresStatistics``.
    private func measureRoundTrip<T>(commit: Bool = false, _ body: () throws -> T) rethrows -> T {
        roundTrips += 1
        return try PostgresStatistics.measure(commit: commit, body)
    }

    /// Runs `body`, counting a ``PostgresError`` it throws in ``failures``.
    private func countingFailures<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgresError {
            failures += 1
            throw error
        }
    }

    private func run(_ sql: String, _ parameters: [any PostgresBindable]) throws -> (rows: [PostgresRow], affected: Int) {
        try countingFailures { try send(sql, parameters) }
    }

    private func send(_ sql: String, _ parameters: [any PostgresBindable]) throws -> (rows: [PostgresRow], affected: Int) {
        queuePending()
        if !deferred.isEmpty {
            let batch = deferred + [PostgresStatement(sql, parameters)]
            deferred = []
            flushes += 1
            let outputs = try measureRoundTrip(commit: sql == "COMMIT") { try runPipeline(batch) }
            return outputs[outputs.count - 1]
        }
        let result: OpaquePointer? = measureRoundTrip(commit: sql == "COMMIT") {
            if parameters.isEmpty { return PQexec(handle, sql) }
            return withParameters(parameters) { p in PQexecParams(handle, sql, p.count, nil, p.values, p.lengths, p.formats, 0) }
        }
        guard let result else {
            throw PostgresError(code: .connectionLost, message: Self.errorMessage(handle), sql: sql)
        }
        defer { PQclear(result) }
        return try collect(result, sql: sql)
    }

    /// The rows (or the affected count) of a finished result, or its error.
    private func collect(_ result: OpaquePointer, sql: String) throws -> (rows: [PostgresRow], affected: Int) {
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
            return ([], Int(String(cString: PQcmdTuples(result))) ?? 0)
        case PGRES_TUPLES_OK:
            let rowCount = PQntuples(result)
            let columnCount = PQnfields(result)
            var rows: [PostgresRow] = []
            rows.reserveCapacity(Int(rowCount))
            for row in 0..<rowCount {
                var values: [String?] = []
                values.reserveCapacity(Int(columnCount))
                for column in 0..<columnCount {
                    if PQgetisnull(result, row, column) == 1 {
                        values.append(nil)
                    } else {
                        values.append(String(cString: PQgetvalue(result, row, column)))
                    }
                }
                rows.append(PostgresRow(values: values, sql: sql))
            }
            return (rows, Int(rowCount))
        default:
            throw Self.error(result, handle: handle, sql: sql)
        }
    }

    /// Sends several statements in one round trip (libpq pipeline mode) and returns each one's rows.
    ///
    /// The statements run in order, in the current transaction (or each in its own, outside
    /// one). If one fails, the later ones are skipped and the first error is thrown; inside a
    /// transaction the transaction is then failed, as after any error. Meant for small batches
    /// (tens of statements): the connection stays in blocking mode.
    ///
    /// ```swift
    /// try db.pipeline([
    ///     PostgresStatement("DELETE FROM refs WHERE source = $1", [name]),
    ///     PostgresStatement("INSERT INTO refs (source, target) VALUES ($1, $2)", [name, target]),
    /// ])
    /// ```
    ///
    /// - Parameter statements: The statements, each with its parameters.
    /// - Returns: The rows of each statement, in order.
    /// - Throws: ``PostgresError`` of the first statement that failed.
    @discardableResult
    public func pipeline(_ statements: [PostgresStatement]) throws -> [[PostgresRow]] {
        guard !statements.isEmpty else { return [] }
        queuePending()
        let batch = deferred + statements
        if !deferred.isEmpty {
            deferred = []
            flushes += 1
        }
        return try measureRoundTrip { try runPipeline(batch) }.suffix(statements.count).map(\.rows)
    }

    private func runPipeline(_ statements: [PostgresStatement]) throws -> [(rows: [PostgresRow], affected: Int)] {
        try countingFailures { try sendPipeline(statements) }
    }

    private func sendPipeline(_ statements: [PostgresStatement]) throws -> [(rows: [PostgresRow], affected: Int)] {
        guard PQenterPipelineMode(handle) == 1 else {
            throw PostgresError(code: .connectionLost, message: Self.errorMessage(handle), sql: statements.first?.sql)
        }
        defer { PQexitPipelineMode(handle) }
        var preparing = PipelinePreparations()
        for (index, statement) in statements.enumerated() {
            guard try send(statement, at: index, preparing: &preparing) else {
                throw PostgresError(code: .connectionLost, message: Self.errorMessage(handle), sql: statement.sql)
            }
        }
        guard PQpipelineSync(handle) == 1 else {
            throw PostgresError(code: .connectionLost, message: Self.errorMessage(handle), sql: statements.first?.sql)
        }
        var outputs: [(rows: [PostgresRow], affected: Int)] = []
        var failure: PostgresError?
        for (index, statement) in statements.enumerated() {
            if let name = preparing.namesByIndex[index], let error = collectPrepare(named: name, sql: statement.sql), failure == nil { failure = error }
            var output: (rows: [PostgresRow], affected: Int) = ([], 0)
            // Each statement's results end with a NULL.
            while let result = PQgetResult(handle) {
                defer { PQclear(result) }
                if PQresultStatus(result) == PGRES_PIPELINE_ABORTED { continue }
                do {
                    output = try collect(result, sql: statement.sql)
                } catch let error as PostgresError {
                    if failure == nil { failure = error }
                }
            }
            outputs.append(output)
        }
        // The sync point.
        while let result = PQgetResult(handle) {
            let status = PQresultStatus(result)
            PQclear(result)
            if status == PGRES_PIPELINE_SYNC { break }
        }
        if let failure { throw failure }
        return outputs
    }

    static func error(_ result: OpaquePointer, handle: OpaquePointer, sql: String?) -> PostgresError {
        let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
        let primary = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
        let code = state.map(PostgresError.Code.init(rawValue:)) ?? (PQstatus(handle) == CONNECTION_OK ? .connectionLost : .connectionFailure)
        return PostgresError(code: code, message: primary ?? errorMessage(handle), sql: sql)
    }

    static func errorMessage(_ handle: OpaquePointer) -> String {
        guard let text = PQerrorMessage(handle) else { return "unknown libpq error" }
        return String(cString: text).trimmingTrailingNewlines()
    }

    // MARK: Transactions

    /// How a transaction sees concurrent commits.
    public enum Isolation: String, Sendable {
        /// Each statement sees what was committed before it started; row locks serialize writers.
        case readCommitted = "READ COMMITTED"
        /// One snapshot for the whole transaction.
        case repeatableRead = "REPEATABLE READ"
        /// Repeatable read plus serialization-anomaly detection.
        case serializable = "SERIALIZABLE"
    }

    /// Runs `body` in a transaction: commits if it returns, rolls back if it throws.
    ///
    /// - Parameters:
    ///   - isolation: The isolation level.
    ///   - readOnly: Whether the transaction may write.
    ///   - body: The work.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``PostgresError`` (``PostgresError/isTransient`` ones may be retried).
    @discardableResult
    public func transaction<T>(isolation: Isolation = .readCommitted, readOnly: Bool = false, _ body: (PostgresConnection) throws -> T) throws -> T {
        precondition(savepointDepth == 0, "PostgresConnection.transaction called inside a transaction")
        // BEGIN goes out with the first statement (and an empty transaction's BEGIN with its COMMIT).
        pendingStatements = nil
        deferred = [PostgresStatement("BEGIN ISOLATION LEVEL \(isolation.rawValue)\(readOnly ? " READ ONLY" : "")")]
        let value: T
        do {
            value = try body(self)
        } catch {
            abandonTransaction()
            throw error
        }
        savepointDepth = 0
        do {
            try execute("COMMIT")
        } catch {
            abandonTransaction()
            throw error
        }
        pendingStatements = nil
        return value
    }

    /// Rolls back whatever the server holds of the transaction; queued statements never run.
    private func abandonTransaction() {
        savepointDepth = 0
        deferred = []
        pendingStatements = nil
        if PQtransactionStatus(handle) != PQTRANS_IDLE { _ = try? execute("ROLLBACK") }
    }

    /// Runs `body` in a savepoint: its writes are undone if it throws, and the error is rethrown.
    ///
    /// `SAVEPOINT`, `RELEASE` and `ROLLBACK TO` are queued (``enqueue(_:)``) and go out with the
    /// next statement; a savepoint inside which no statement was sent costs nothing, and if it
    /// throws, what was queued inside it is dropped unsent.
    ///
    /// - Throws: What `body` throws, or ``PostgresError``.
    @discardableResult
    public func savepoint<T>(_ body: () throws -> T) throws -> T {
        savepointDepth += 1
        let name = "stratus_sp\(savepointDepth)"
        defer { savepointDepth -= 1 }
        let mark = deferred.count
        let flushesBefore = flushes
        deferred.append(PostgresStatement("SAVEPOINT \(name)"))
        do {
            let value = try body()
            if flushes == flushesBefore {
                deferred.remove(at: mark)  // nothing ran inside: no savepoint needed
            } else {
                deferred.append(PostgresStatement("RELEASE SAVEPOINT \(name)"))
            }
            return value
        } catch {
            if flushes == flushesBefore {
                // Nothing went out since: drop the savepoint and everything queued inside it
                // (writes, locks, notifications), as if it had run and rolled back.
                deferred.removeSubrange(mark...)
            } else {
                // What is queued came after the savepoint: undone with it.
                deferred = [PostgresStatement("ROLLBACK TO SAVEPOINT \(name)"), PostgresStatement("RELEASE SAVEPOINT \(name)")]
            }
            throw error
        }
    }
}

/// Drops server notices (`NOTICE: relation exists, skipping`) instead of printing them to stderr.
private let postgresIgnoreNotice: PQnoticeProcessor = { _, _ in }

extension String {
    func trimmingTrailingNewlines() -> String {
        var text = Substring(self)
        while let last = text.last, last.isNewline { text = text.dropLast() }
        return String(text)
    }
}
