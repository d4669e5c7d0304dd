import StratusLogging
import StratusSQLite
import Synchronization

/// Runs the pending index builds (`SQLiteFieldIndexBuild`) a chunk per write transaction, and lets
/// queries wait for the builds of their record type.
///
/// A transaction that schedules a build calls ``scheduled(_:)`` on the writer; the builder's task
/// then queues one chunk at a time behind the writes already waiting, so no write waits for more
/// than one chunk. The record types with a build left are known in memory (from the table after
/// each chunk, and from every scheduling since the chunk began), so a query of another type never
/// waits, and one of a type being built suspends (``waitUntilBuilt(_:)``) without holding a connection.
final class SQLiteIndexBuilder: Sendable {
    private struct Waiter {
        var recordType: String
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        /// Record types with a build left, each with the number of the last scheduling that named it.
        var pending: [String: UInt64] = [:]
        var schedulings: UInt64 = 0
        var running: Task<Void, Never>?
        var waiters: [Waiter] = []
        var stopped = false
    }

    private let pool: SQLiteDatabasePool
    private let chunkSize: Int
    private let logger: Logger
    private let state = Mutex(State())
    /// Whether another write waits for the writer (the coalescer's queue or the writer's own); until one does, a build
    /// goes on in the same transaction.
    private let writesWaiting = Mutex<@Sendable () -> Bool>({ false })

    /// - Parameter chunkSize: Records per chunk (per write transaction) of a build.
    init(pool: SQLiteDatabasePool, chunkSize: Int, logger: Logger) {
        precondition(chunkSize >= 1, "an index build needs at least one record per chunk")
        self.pool = pool
        self.chunkSize = chunkSize
        self.logger = logger
    }

    /// Lets a build go on in its transaction until `writesWaiting` returns `true`.
    func yield(when writesWaiting: @escaping @Sendable () -> Bool) {
        self.writesWaiting.withLock { $0 = writesWaiting }
    }

    /// Notes builds of `recordTypes` (scheduled by the transaction running now, or found at start)
    /// and starts building unless a build is running.
    func scheduled(_ recordTypes: Set<String>) {
        guard !recordTypes.isEmpty else { return }
        state.withLock { state in
            state.schedulings += 1
            for type in recordTypes { state.pending[type] = state.schedulings }
            startIfIdle(&state)
        }
    }

    /// Returns once no build of `recordType` is left; throws the error that stopped a build.
    func waitUntilBuilt(_ recordType: String) async throws {
        guard state.withLock({ $0.pending[recordType] != nil }) else { return }
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                guard state.pending[recordType] != nil else { return true }
                state.waiters.append(Waiter(recordType: recordType, continuation: continuation))
                // NB: a build that failed stopped its task; a waiting query tries it again.
                startIfIdle(&state)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Record types with a build left, as known in memory.
    var pendingTypes: Set<String> { state.withLock { Set($0.pending.keys) } }

    /// Starts building again after ``stop()`` (tests), beginning with a look at the table.
    func start() {
        state.withLock { state in
            state.stopped = false
            state.schedulings += 1
            for type in state.pending.keys { state.pending[type] = state.schedulings }
            startIfIdle(&state)
        }
    }

    /// Stops after the chunk in progress (builds left stay in the table for the next start); the
    /// queries waiting for a build fail with `CancellationError`.
    func stop() async {
        let task = state.withLock { state -> Task<Void, Never>? in
            state.stopped = true
            return state.running
        }
        await task?.value
        state.withLock { state in resumeWaiters(&state, failure: CancellationError()) }
    }

    private func startIfIdle(_ state: inout State) {
        guard state.running == nil, !state.stopped else { return }
        state.running = Task { [self] in await run() }
    }

    private func run() async {
        while true {
            let (stopped, schedulings) = state.withLock { ($0.stopped, $0.schedulings) }
            guard !stopped else { return finish(failure: nil) }
            do {
                let waiting = writesWaiting.withLock { $0 }
                let left = try await pool.write { [chunkSize] db in
                    try SQLiteFieldIndexBuild.step(db, chunkSize: chunkSize) { !waiting() }
                }
                let done = state.withLock { state -> Bool in
                    // NB: a type scheduled after this chunk began may have a build the chunk did not see.
                    state.pending = state.pending.filter { left.contains($0.key) || $0.value > schedulings }
                    resumeWaiters(&state, failure: nil)
                    guard state.pending.isEmpty else { return false }
                    state.running = nil
                    return true
                }
                if done { return }
            } catch {
                logger.error("query index build failed; queries of its record type will try it again", metadata: ["error": "\(error)"])
                return finish(failure: error)
            }
        }
    }

    /// Ends the task: waiters of types still pending get `failure` (or wait for the next start).
    private func finish(failure: (any Error)?) {
        state.withLock { state in
            state.running = nil
            resumeWaiters(&state, failure: failure ?? CancellationError())
        }
    }

    /// Resumes the waiters whose type is built, and with `failure` the others.
    private func resumeWaiters(_ state: inout State, failure: (any Error)?) {
        var waiting: [Waiter] = []
        for waiter in state.waiters {
            if state.pending[waiter.recordType] == nil {
                waiter.continuation.resume()
            } else if let failure {
                waiter.continuation.resume(throwing: failure)
            } else {
                waiting.append(waiter)
            }
        }
        state.waiters = waiting
    }
}
