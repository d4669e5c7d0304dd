import StratusServer
import StratusServerSQL
import StratusSQLite
import Synchronization

/// Runs concurrent store writes as one SQLite transaction each time the writer frees up (group commit).
///
/// Each write runs in its own savepoint inside the shared transaction, in
/// arrival order, so it sees the writes before it and a failure undoes only
/// itself: the result is exactly a serial execution. Callers learn their
/// outcome only after the shared `COMMIT`, so nothing is acknowledged that is
/// not durable. Under no contention a group holds one write, as before; a
/// write alone in its group needs no savepoint (two statements fewer): when it
/// fails, the whole transaction rolls back instead.
///
/// Why: a transaction's fixed cost (BEGIN, COMMIT, WAL append) dominates small
/// writes; eight clients each saving one record pay it eight times without this.
final class SQLiteWriteCoalescer: Sendable {
    /// One queued write: runs inside the group's transaction and returns how to report its outcome.
    struct Pending: Sendable {
        /// Runs the write (in a savepoint unless it is alone in its group); the returned closure
        /// resumes the caller after commit, and `failed` tells whether the write threw.
        let run: @Sendable (SQLiteStoreTransaction, _ alone: Bool) -> (resume: @Sendable () -> Void, failed: Bool)
        /// Resumes the caller with a failure of the whole group (its commit failed).
        let fail: @Sendable (any Error) -> Void
    }

    private struct State {
        var pending: [Pending] = []
        var draining = false
    }

    private let pool: SQLiteDatabasePool
    private let schemas: SchemaMemo
    private let indexBuilder: SQLiteIndexBuilder
    private let state = Mutex(State())
    /// The most writes one transaction takes, so one group cannot hold the writer for long.
    private let maximumGroupSize = 64

    init(pool: SQLiteDatabasePool, schemas: SchemaMemo, indexBuilder: SQLiteIndexBuilder) {
        self.pool = pool
        self.schemas = schemas
        self.indexBuilder = indexBuilder
    }

    /// Whether writes are queued for the next group.
    var hasWaitingWrites: Bool { state.withLock { !$0.pending.isEmpty } }

    func write<T: Sendable>(_ body: @escaping @Sendable (any RecordStoreWriter) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let pending = Pending(
                run: { transaction, alone in
                    do {
                        let value = alone ? try body(transaction) : try transaction.savepoint { try body(transaction) }
                        return ({ continuation.resume(returning: value) }, false)
                    } catch {
                        return ({ continuation.resume(throwing: error) }, true)
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
                pool.enqueueOnWriter { [self] db in drainOneGroup(db) }
            }
        }
    }

    /// Runs the next group in one transaction on the writer's queue, resumes its callers, and queues
    /// itself again while writes are waiting.
    ///
    /// Running on the writer's queue itself (no task awaiting the writer) saves each write two hops
    /// between threads: the drain task's start and its resumption after the commit. One group per
    /// queued block lets the writer's other users (accounts, the console) take turns in between.
    private func drainOneGroup(_ db: SQLiteConnection) {
        guard let group = nextGroup() else { return }
        let alone = group.count == 1
        do {
            let outcomes = try db.transaction(.immediate) { [schemas, indexBuilder] db in
                let transaction = SQLiteStoreTransaction(db, schemas: schemas, indexBuilder: indexBuilder)
                let outcomes = group.map { $0.run(transaction, alone) }
                if alone, outcomes[0].failed { throw FailedAlone(resume: outcomes[0].resume) }
                try transaction.finish()
                return outcomes
            }
            outcomes.forEach { $0.resume() }
        } catch let failure as FailedAlone {
            failure.resume()
        } catch {
            group.forEach { $0.fail(error) }
        }
        let more = state.withLock { state in
            if state.pending.isEmpty { state.draining = false }
            return state.draining
        }
        if more {
            pool.enqueueOnWriter { [self] db in drainOneGroup(db) }
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

/// A write alone in its group failed: its transaction rolls back, and its caller learns its own error.
private struct FailedAlone: Error {
    let resume: @Sendable () -> Void
}
