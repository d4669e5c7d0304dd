import StratusLogging
import StratusMetrics
import StratusWire
import Synchronization

/// Sends the APNs delivery queue to Apple's push service, after fan-out has committed it.
///
/// Fan-out appends one queue row per device token in its own transaction and then calls
/// ``kick()`` — or, with room on this node, leases them to it in that transaction and hands them
/// over (``reserve()``, ``accept(_:credentials:reserved:)``), so they go out right after the
/// commit. A run claims due rows in batches (a short write that leases them to this node) as
/// long as fewer than ``APNsConfiguration/maximumInFlight`` are in flight; each batch is sent
/// concurrently — HTTP/2 streams on the transport's open connections — and settled in one more
/// short write: delivered and refused rows deleted, tokens APNs called invalid removed, retries
/// put back with a time. A slow or hung answer holds only its own batch's settlement (its
/// deadline is ``APNsConfiguration/requestTimeout``), never the next claims, and no write of a
/// record ever waits for APNs: the write path only appended an outbox entry.
///
/// ```swift
/// delivery.kick()                            // after a fan-out commit that queued pushes
/// delivery.startSweeping()                   // retries due, leases other nodes left
/// delivery.close(); await delivery.idle()    // shutdown
/// ```
final class APNsDelivery: Sendable {
    let store: any RecordStore
    let configuration: APNsConfiguration
    let transport: any APNsTransport
    let logger: Logger
    let providerTokens: APNsProviderTokens
    private let metrics: APNsMetrics
    private let state = Mutex(State())

    private let runner: CoalescingRunner<APNsDelivery>

    private struct State {
        var inFlight = 0
        var batches: [Int: Task<Void, Never>] = [:]
        var nextBatch = 0
        var retryTimer: (deadline: Int64, task: Task<Void, Never>)?
        var statistics = APNsDeliveryStatistics()
    }

    init(store: any RecordStore, configuration: APNsConfiguration, transport: any APNsTransport, logger: Logger, metrics: MetricsRegistry?) {
        self.store = store
        self.configuration = configuration
        self.transport = transport
        self.logger = logger
        self.metrics = APNsMetrics(metrics)
        self.providerTokens = APNsProviderTokens(lifetime: configuration.providerTokenLifetimeMilliseconds)
        runner = CoalescingRunner { delivery in
            do {
                while try await delivery.claimNextBatch() {}
            } catch {
                delivery.logger.error("APNs delivery could not claim pushes: \(error); the queue keeps them for the next try")
            }
        }
        runner.attach(self)
    }

    /// What delivery did so far on this node.
    var statistics: APNsDeliveryStatistics { state.withLock { $0.statistics } }

    /// Starts a run unless one is running (which then runs once more); nothing once closed.
    func kick() {
        runner.kick()
    }

    /// Kicks now and every ``APNsConfiguration/sweepInterval`` until ``close()``.
    func startSweeping() {
        runner.startSweeping(every: configuration.sweepInterval)
    }

    /// Starts no more runs or batches; the queue keeps what is left (leased rows become due again when their lease passes).
    func close() {
        runner.close()
        let timer = state.withLock { state in
            defer { state.retryTimer = nil }
            return state.retryTimer?.task
        }
        timer?.cancel()
    }

    /// Returns once no run and no batch is in progress.
    func idle() async {
        while true {
            await runner.idle()
            let batches = state.withLock { Array($0.batches.values) }
            guard !batches.isEmpty else { return }
            for task in batches { await task.value }
        }
    }

    /// Claims one batch and starts sending it; `false` when nothing is due or there is no room.
    private func claimNextBatch() async throws -> Bool {
        let room = runner.isClosed ? 0 : state.withLock { configuration.maximumInFlight - $0.inFlight }
        guard room > 0 else { return false }
        let limit = min(room, max(1, configuration.claimBatchSize))
        let now = configuration.now()
        let leaseUntil = now + configuration.lease.milliseconds
        let claimed = try await store.write { tx in
            let pushes = try tx.claimAPNsPushes(limit: limit, now: now, leaseUntil: leaseUntil)
            var credentials: [String: APNsCredentials] = [:]
            for push in pushes {
                let key = Self.credentialsKey(push.push)
                guard credentials[key] == nil else { continue }
                credentials[key] = try tx.apnsCredentials(container: push.push.container, environment: push.push.environment)
            }
            return (pushes, credentials)
        }
        guard !claimed.0.isEmpty else { return false }
        state.withLock { $0.inFlight += claimed.0.count }
        startBatch(claimed.0, credentials: claimed.1)
        return true
    }

    /// Reserves room in flight for pushes a fan-out transaction leases to this node; `nil` when closed or full.
    func reserve() -> APNsLease? {
        guard !runner.isClosed else { return nil }
        let limit = state.withLock { state -> Int in
            let room = min(configuration.maximumInFlight - state.inFlight, max(1, configuration.claimBatchSize))
            guard room > 0 else { return 0 }
            state.inFlight += room
            return room
        }
        return limit > 0 ? APNsLease(limit: limit, until: configuration.now() + configuration.lease.milliseconds) : nil
    }

    /// Gives back `count` reserved places.
    func release(_ count: Int) {
        state.withLock { $0.inFlight -= count }
    }

    /// Sends pushes leased to this node by a fan-out transaction, within the room reserved for them.
    func accept(_ pushes: [APNsPush], credentials: [String: APNsCredentials], reserved: Int) {
        release(reserved - pushes.count)
        guard !pushes.isEmpty else { return }
        guard !runner.isClosed else {
            // Their lease passes and a sweep (here after a restart, or another node) sends them.
            release(pushes.count)
            return
        }
        state.withLock { $0.statistics.handedOver += pushes.count }
        startBatch(pushes, credentials: credentials)
    }

    /// Sends `pushes` (already counted in flight) in a task of its own, then settles them.
    private func startBatch(_ pushes: [APNsPush], credentials: [String: APNsCredentials]) {
        state.withLock { state in
            let number = state.nextBatch
            state.nextBatch += 1
            state.batches[number] = Task { [self] in
                await send(pushes, credentials: credentials)
                self.state.withLock { state in
                    state.inFlight -= pushes.count
                    state.batches[number] = nil
                }
                kick()
            }
        }
    }

    /// Sends a batch (concurrently, as HTTP/2 streams) and settles it.
    private func send(_ pushes: [APNsPush], credentials: [String: APNsCredentials]) async {
        let settlements = await deliver(pushes, credentials: credentials)
        do {
            let delta = try await settle(settlements)
            metrics.record(delta)
            state.withLock { $0.statistics = $0.statistics + delta }
        } catch {
            logger.error("APNs delivery could not record \(settlements.count) results: \(error); their leases will pass and they go out again")
        }
        let retries = settlements.compactMap { settlement -> Int64? in
            if case .retry(let notBefore, _) = settlement.1 { return notBefore }
            return nil
        }
        if let earliest = retries.min() { scheduleRetry(at: earliest) }
    }

    /// Kicks when the earliest retry is due (unless an earlier wake-up is already set).
    private func scheduleRetry(at deadline: Int64) {
        let delay = max(0, deadline - configuration.now())
        guard !runner.isClosed else { return }
        state.withLock { state in
            if let timer = state.retryTimer, timer.deadline <= deadline { return }
            state.retryTimer?.task.cancel()
            state.retryTimer = (
                deadline,
                Task { [weak self] in
                    try? await Task.sleep(for: .milliseconds(delay))
                    guard !Task.isCancelled, let self else { return }
                    self.state.withLock { state in
                        if state.retryTimer?.deadline == deadline { state.retryTimer = nil }
                    }
                    kick()
                }
            )
        }
    }

    static func credentialsKey(_ push: NewAPNsPush) -> String {
        push.container + "\u{0}" + push.environment.rawValue
    }
}
