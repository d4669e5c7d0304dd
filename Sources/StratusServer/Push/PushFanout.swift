import StratusLogging
import Synchronization

/// Fans the push outbox out to subscriptions after the writes that filled it have committed.
///
/// A records write appends an outbox entry in its own transaction (``PushOutboxRecorder``) and
/// then calls ``kick()``. One drain at a time per node takes batches: each is planned on a
/// reader (``PushFanoutPlanner``: candidates, filters, security roles, payloads) and applied on
/// the writer in a short transaction of its own (``PushFanoutBatch``), then the tokens that
/// received something are woken. Entries are handled strictly in order, so each token gets its
/// notifications in commit order; several nodes may drain one PostgreSQL outbox, and the
/// cursor compare-and-set lets only one of them apply each step.
///
/// ```swift
/// fanout.kick()                      // after a commit that appended an entry
/// try await fanout.drain()           // everything now (start-up, tests)
/// fanout.close(); await fanout.idle() // shutdown: no new drains, wait for the one running
/// ```
final class PushFanout: Sendable {
    private let store: any RecordStore
    private let configuration: PushConfiguration
    private let now: @Sendable () -> Int64
    private let logger: Logger
    private let wake: @Sendable (Set<String>) -> Void
    private let state = Mutex(State())

    private struct State {
        var drain: Task<Void, Never>?
        var again = false
        var closed = false
        var sweeper: Task<Void, Never>?
        var statistics = PushFanoutStatistics()
    }

    init(
        store: any RecordStore, configuration: PushConfiguration, now: @escaping @Sendable () -> Int64, logger: Logger,
        wake: @escaping @Sendable (Set<String>) -> Void
    ) {
        self.store = store
        self.configuration = configuration
        self.now = now
        self.logger = logger
        self.wake = wake
    }

    /// What fan-out did so far on this node.
    var statistics: PushFanoutStatistics { state.withLock { $0.statistics } }

    /// Starts a drain unless one is running (which then drains once more); nothing once closed.
    func kick() {
        state.withLock { state in
            guard !state.closed else { return }
            guard state.drain == nil else {
                state.again = true
                return
            }
            state.drain = Task { [self] in await run() }
        }
    }

    /// Drains now and then every `outboxSweepInterval` until ``close()``, for entries a node left
    /// behind when it stopped between a commit and its fan-out.
    func startSweeping() {
        let interval = configuration.outboxSweepInterval
        state.withLock { state in
            guard !state.closed, state.sweeper == nil else { return }
            state.sweeper = Task { [weak self] in
                while !Task.isCancelled {
                    self?.kick()
                    try? await Task.sleep(for: interval)
                }
            }
        }
    }

    /// Fans out every entry now, in this task.
    ///
    /// - Throws: Store errors.
    func drain() async throws {
        while try await step() {}
    }

    /// Stops sweeping and refuses new drains; entries left stay in the outbox for the next start.
    func close() {
        let sweeper = state.withLock { state in
            state.closed = true
            defer { state.sweeper = nil }
            return state.sweeper
        }
        sweeper?.cancel()
    }

    /// Returns once no drain is running (after ``close()``: for good).
    func idle() async {
        while let drain = state.withLock({ $0.drain }) {
            await drain.value
        }
    }

    private func run() async {
        while true {
            do {
                while !state.withLock({ $0.closed }), try await step() {}
            } catch {
                logger.error("push fan-out stopped: \(error); the outbox keeps the changes for the next try")
            }
            let again = state.withLock { state in
                if state.again, !state.closed {
                    state.again = false
                    return true
                }
                state.drain = nil
                return false
            }
            guard again else { return }
        }
    }

    /// Plans and applies one batch; `false` when the outbox was empty.
    private func step() async throws -> Bool {
        let planner = PushFanoutPlanner(configuration: configuration, now: now())
        let batch = try await store.read { tx in try planner.plan(tx) }
        guard !batch.isEmpty else { return false }
        let backlog = configuration.maximumBacklog
        let now = self.now()
        let outcome: PushFanoutBatch.Outcome
        do {
            outcome = try await store.write { tx in try batch.apply(tx, maximumBacklog: backlog, now: now) }
        } catch is PushFanoutBatch.Overtaken {
            state.withLock { $0.statistics.overtaken += 1 }
            return true
        }
        wake(outcome.woken)
        state.withLock { state in
            state.statistics.batches += 1
            state.statistics.evaluatedSubscriptions += batch.evaluatedSubscriptions
            state.statistics.queuedNotifications += outcome.queued
            state.statistics.finishedEntries += batch.claims.filter { $0.progress == .finished }.count
        }
        for problem in batch.unreadable {
            logger.error("push fan-out dropped an entry it could not read: \(problem)")
        }
        return true
    }
}

/// Counters of one node's push fan-out (for tests and diagnostics).
struct PushFanoutStatistics: Hashable, Sendable {
    /// Batches applied.
    var batches = 0
    /// Outbox entries fanned out completely.
    var finishedEntries = 0
    /// Candidate subscriptions evaluated.
    var evaluatedSubscriptions = 0
    /// Notifications appended to token queues (each token's copy counted).
    var queuedNotifications = 0
    /// Batches discarded because another fan-out applied the same step first.
    var overtaken = 0
}
