import StratusServer
import StratusSQLite
import Synchronization

/// Runs concurrent store writes as one SQLite transaction each time the writer frees up (group commit).
///
/// Each write runs in its own savepoint inside the shared transaction, in
/// arrival order, so it sees the writes before it and a failure undoes only
/// itself: the result is exactly a serial execution. Callers learn their
/// outcome only after the shared `COMMIT`, so nothing is acknowledged that is
/// not durable. Under no contention a group holds one write, as before.
///
/// Why: a transaction's fixed cost (BEGIN, COMMIT, WAL append) dominates small
/// writes; eight clients each saving one record pay it eight times without this.
final class SQLiteWriteCoalescer: Sendable {
    /// One queued write: runs inside the group's transaction and returns how to report its outcome.
    struct Pending: Sendable {
        /// Runs the write in a savepoint; the returned closure resumes the caller after commit.
        let run: @Sendable (SQLiteStoreTransaction) -> @Sendable () -> Void
        /// Resumes the caller with a failure of the whole group (its commit failed).
        let fail: @Sendable (any Error) -> Void
    }

    private struct State {
        var pending: [Pending] = []
        var draining = false
    }

    private let pool: SQLiteDatabasePool
    private let schemas: SQLiteSchemaMemo
    private let state = Mutex(State())
    /// The most writes one transaction takes, so one group cannot hold the writer for long.
    private let maximumGroupSize = 64

    init(pool: SQLiteDatabasePool, schemas: SQLiteSchemaMemo) {
        self.pool = pool
        self.schemas = schemas
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (any RecordStoreWriter) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let pending = Pending(
                run: { transaction in
                    do {
                        let value = try transaction.savepoint { try body(transaction) }
                        return { continuation.resume(returning: value) }
                    } catch {
                        return { continuation.resume(throwing: error) }
                    }
                },
                fail: { error in continuation.resume(throwing: error) }
            )
            let startDrain = state.withLock { state -> Bool in
                state.pending.append(pending)
                guard !state.draining else { return false }
                state.draining = true
                return true
            }
            if startDrain {
                Task { await self.drain() }
            }
        }
    }

    private func drain() async {
        while let group = nextGroup() {
            do {
                let outcomes = try await pool.write { [schemas] db in
                    let transaction = SQLiteStoreTransaction(db, schemas: schemas)
                    let outcomes = group.map { $0.run(transaction) }
                    try transaction.finish()
                    return outcomes
                }
                outcomes.forEach { $0() }
            } catch {
                group.forEach { $0.fail(error) }
            }
        }
    }

    /// Takes up to ``maximumGroupSize`` queued writes, or stops draining when none are left.
    private func nextGroup() -> [Pending]? {
        state.withLock { state in
            guard !state.pending.isEmpty else {
                state.draining = false
                return nil
            }
            let count = min(maximumGroupSize, state.pending.count)
            let group = Array(state.pending.prefix(count))
            state.pending.removeFirst(count)
            return group
        }
    }
}
