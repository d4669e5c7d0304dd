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
    private let apns: APNsDeliverySlot?
    private let state = Mutex(PushFanoutStatistics())
    private let runner: CoalescingRunner<PushFanout>

    init(
        store: any RecordStore, configuration: PushConfiguration, now: @escaping @Sendable () -> Int64, logger: Logger,
        wake: @escaping @Sendable (Set<String>) -> Void, apns: APNsDeliverySlot? = nil
    ) {
        self.store = store
        self.configuration = configuration
        self.now = now
        self.logger = logger
        self.wake = wake
        self.apns = apns
        runner = CoalescingRunner { fanout in
            do {
                while !fanout.runner.isClosed, try await fanout.step() {}
            } catch {
                fanout.logger.error("push fan-out stopped: \(error); the outbox keeps the changes for the next try")
            }
        }
        runner.attach(self)
    }

    /// What fan-out did so far on this node.
    var statistics: PushFanoutStatistics { state.withLock { $0 } }

    /// Starts a drain unless one is running (which then drains once more); nothing once closed.
    func kick() {
        runner.kick()
    }

    /// Drains now and then every `outboxSweepInterval` until ``close()``, for entries a node left
    /// behind when it stopped between a commit and its fan-out.
    func startSweeping() {
        runner.startSweeping(every: configuration.outboxSweepInterval)
    }

    /// Fans out every entry now, in this task, then waits for a drain running concurrently (a
    /// kick's), so that what it applied is counted in ``statistics`` and handed to delivery too.
    ///
    /// - Throws: Store errors.
    func drain() async throws {
        while try await step() {}
        await runner.idle()
    }

    /// Stops sweeping and refuses new drains; entries left stay in the outbox for the next start.
    func close() {
        runner.close()
    }

    /// Returns once no drain is running (after ``close()``: for good).
    func idle() async {
        await runner.idle()
    }

    /// Plans and applies one batch; `false` when the outbox was empty.
    private func step() async throws -> Bool {
        let planner = PushFanoutPlanner(configuration: configuration, now: now())
        let batch = try await store.read { tx in try planner.plan(tx) }
        guard !batch.isEmpty else { return false }
        let backlog = configuration.maximumBacklog
        let apnsBacklog = configuration.apns.maximumQueuedPerToken
        let now = self.now()
        // Room on this node's APNs sender: the pushes this batch queues are leased to it in the
        // same transaction and sent right after the commit, without a claim of their own.
        let lease = apns?.reserve()
        let outcome: PushFanoutBatch.Outcome
        do {
            outcome = try await store.write { tx in
                try batch.apply(tx, maximumBacklog: backlog, maximumAPNsQueued: apnsBacklog, apnsLease: lease, now: now)
            }
        } catch {
            if let lease { apns?.release(lease) }
            guard error is PushFanoutBatch.Overtaken else { throw error }
            state.withLock { $0.overtaken += 1 }
            return true
        }
        wake(outcome.woken)
        if let lease { apns?.send(outcome.apnsLeased, credentials: outcome.apnsCredentials, reserved: lease) }
        if outcome.apnsQueued > outcome.apnsLeased.count { apns?.kick() }
        state.withLock { statistics in
            statistics.batches += 1
            statistics.evaluatedSubscriptions += batch.evaluatedSubscriptions
            statistics.queuedNotifications += outcome.queued
            statistics.queuedAPNsPushes += outcome.apnsQueued
            statistics.finishedEntries += batch.claims.filter { $0.progress == .finished }.count
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
    /// Pushes appended to the APNs delivery queue (each device's copy counted).
    var queuedAPNsPushes = 0
    /// Batches discarded because another fan-out applied the same step first.
    var overtaken = 0
}
