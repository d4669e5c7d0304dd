public import StratusLogging
import Synchronization

/// A fixed number of PostgreSQL connections, each on its own serial queue, handed out one caller at a time.
///
/// Connections open lazily and are checked before each use: a connection libpq reports as
/// broken is reset (reconnected, setup statements rerun) before the caller gets it. A
/// statement that fails with a connection error leaves the slot to be reset on its next use.
///
/// ```swift
/// let pool = PostgresConnectionPool(url: url, size: 4)
/// let count = try await pool.withConnection { db in
///     try db.transaction(isolation: .repeatableRead, readOnly: true) { db in
///         try db.queryFirst("SELECT count(*) FROM zones").map { try $0[0] as Int64 } ?? 0
///     }
/// }
/// ```
public final class PostgresConnectionPool: Sendable {
    private struct State {
        var free: [Int]
        var waiters: [CheckedContinuation<Int, Never>] = []
        var isClosed = false
    }

    private let slots: [QueuedConnection]
    private let state: Mutex<State>

    /// Creates the pool; no connection is opened until first use.
    ///
    /// - Parameters:
    ///   - url: A libpq connection string or `postgres://` URI.
    ///   - size: How many connections at most.
    ///   - setup: Statements each connection runs after connecting (such as `SET search_path TO …`).
    ///   - logger: Where connections log.
    public init(url: String, size: Int = 4, setup: [String] = [], logger: Logger = .disabled) {
        precondition(size >= 1, "PostgresConnectionPool needs at least one connection")
        slots = (0..<size).map { QueuedConnection(label: "stratus.postgres.\($0)", url: url, setup: setup, logger: logger) }
        state = Mutex(State(free: Array((0..<size).reversed())))
    }

    /// Runs `body` on a pooled connection, on that connection's queue, while the caller suspends.
    ///
    /// - Parameter body: The work; it must leave no transaction open.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``PostgresError`` when no connection can be made.
    public func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        let index = await acquire()
        defer { release(index) }
        return try await slots[index].perform(body)
    }

    /// Closes every connection; no call may follow.
    public func close() {
        state.withLock { $0.isClosed = true }
        for slot in slots { slot.close() }
    }

    private func acquire() async -> Int {
        if let index = state.withLock({ state -> Int? in
            precondition(!state.isClosed, "used a closed PostgresConnectionPool")
            return state.free.popLast()
        }) {
            return index
        }
        return await withCheckedContinuation { continuation in
            let index: Int? = state.withLock { state in
                if let index = state.free.popLast() { return index }
                state.waiters.append(continuation)
                return nil
            }
            if let index { continuation.resume(returning: index) }
        }
    }

    private func release(_ index: Int) {
        let waiter: CheckedContinuation<Int, Never>? = state.withLock { state in
            if state.waiters.isEmpty {
                state.free.append(index)
                return nil
            }
            return state.waiters.removeFirst()
        }
        waiter?.resume(returning: index)
    }
}
