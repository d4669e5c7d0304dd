import Foundation
public import StratusClient
import StratusLogging
import StratusWire
import Synchronization

extension SyncController {
    /// The ID of the zone subscription push uses: `StratusSync.<zone name>`.
    public nonisolated var pushSubscriptionID: String { "StratusSync.\(configuration.zoneName)" }

    /// The subscriptions push needs: one zone subscription for the private database; for the
    /// public database (no change feed of zones), one query subscription per record type plus one
    /// on the DeleteQueue entries addressed to this device, which are written *after* a deletion
    /// (the record type's own deletion push may fetch before they exist).
    nonisolated var pushSubscriptions: [Subscription] {
        switch configuration.databaseScope {
        case .public:
            configuration.entityTypes.map { type in
                Subscription(
                    subscriptionID: "StratusSync.\(type.recordType)", subscriptionType: .query, query: Query(recordType: type.recordType),
                    firesOn: [.create, .update, .delete])
            } + [
                Subscription(
                    subscriptionID: PublicRecords.queueSubscriptionID(configuration.deviceID), subscriptionType: .query,
                    query: Query(
                        recordType: PublicRecords.deleteQueueType,
                        filters: [.equals(.field(PublicRecords.queueDeviceField), configuration.deviceID)]),
                    firesOn: [.create])
            ]
        default:
            [Subscription(subscriptionID: pushSubscriptionID, subscriptionType: .zone, zoneID: zoneID)]
        }
    }

    /// Starts push-triggered sync: subscribes to the zone's changes — on the public database, to
    /// each record type and to this device's DeleteQueue entries — (creating an existing
    /// subscription is a no-op on the server), listens to the container's notifications, and runs a
    /// delta sync for each one about this zone — the delegate receives the changes without the app
    /// ever calling ``sync()``.
    ///
    /// Notifications that arrive while a sync runs are folded into one more sync. Each time the
    /// courier registers a push token — when it starts, and after every reconnection that needed a
    /// new one — one catch-up sync fetches what changed while no token was registered (pushes go to
    /// registered tokens only); after a reconnection the subscriptions are saved again first (a reset
    /// server has lost them). Waits at most `listeningTimeout` for the first registration; offline,
    /// push keeps trying in the background (and the reconnection retry replays the outbox).
    ///
    /// A zone the bookkeeping believes created but the server does not have (a reset server) is made
    /// again before subscribing; a failure is shown in ``status`` and retried by the reconnection retry.
    ///
    /// ```swift
    /// try await sync.startPush()
    /// // another device saves → the delegate's didFinishSync runs on this one
    /// await sync.stopPush()
    /// ```
    ///
    /// - Parameters:
    ///   - notifications: How the web courier is polled.
    ///   - listeningTimeout: The longest wait for the push token to be registered before returning.
    /// - Throws: ``StratusError`` when the zone or the subscription cannot be saved (nothing is started).
    public func startPush(notifications: NotificationConfiguration = NotificationConfiguration(), listeningTimeout: Duration = .seconds(10))
        async throws
    {
        guard pushTasks.isEmpty else { return }
        do {
            try await savePushSubscriptions()
        } catch {
            machine.failed("\(error)")
            publish()
            if !(error is SyncError) { scheduleReconnect() }
            throw error
        }
        machine.pushStarted()
        let listening = PushListeningSignal()
        let stream = configuration.container.notificationEvents(configuration: notifications)
        // A buffer of one: notifications arriving during a sync fold into one more sync.
        let (triggers, trigger) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let zoneID = zoneID
        let subscriptionIDs = Set(pushSubscriptions.map(\.subscriptionID))
        let logger = logger
        let listener = Task { [weak self] in
            do {
                for try await event in stream {
                    switch event {
                    case .listening:
                        await self?.courierListening()
                        listening.set()
                        trigger.yield()
                    case .notification(let notification):
                        if notification.zoneID?.zoneName == zoneID.zoneName
                            || notification.subscriptionID.map(subscriptionIDs.contains) == true || notification.isResync
                        {
                            trigger.yield()
                        }
                    }
                }
            } catch where !Task.isCancelled {
                logger.warning("push stopped; syncs now run only when the app asks: \(error)")
            } catch {}
            trigger.finish()
        }
        let worker = Task { [weak self] in
            for await _ in triggers {
                await self?.pushTriggeredSync()
            }
        }
        pushTasks = [listener, worker]
        await listening.wait(upTo: listeningTimeout)
        logger.debug(listening.isSet ? "push listening" : "push not listening yet; it keeps trying in the background")
    }

    /// Saves the zone (unless known to exist) and the push subscriptions; a `zoneNotFound` (the
    /// bookkeeping's zone flag is stale: a reset server) clears the flag, and the zone is made again.
    private func savePushSubscriptions() async throws {
        for attempt in 1...2 {
            do {
                if configuration.databaseScope != .public { try await ensureZone() }
                for subscription in pushSubscriptions {
                    _ = try await database.save(subscription)
                }
                return
            } catch let error as StratusError where error.code == .zoneNotFound && attempt == 1 {
                logger.info("the server has no zone '\(zoneID.zoneName)' although this device made it; making it again")
                noteContradiction(error)
            }
        }
    }

    /// The courier registered a push token; after a reconnection the subscriptions are saved again
    /// before the catch-up sync (which the listener triggers).
    private func courierListening() async {
        guard machine.courierListening() == .resubscribeAndCatchUp else { return }
        pendingResubscribe = true
    }

    /// Stops push-triggered sync (the subscription stays on the server for the next ``startPush(notifications:listeningTimeout:)``).
    public func stopPush() {
        for task in pushTasks { task.cancel() }
        pushTasks = []
    }

    /// Whether push-triggered sync is running.
    public var isPushing: Bool { !pushTasks.isEmpty }

    /// One sync for one or more notifications (after a reconnection, the subscriptions first).
    private func pushTriggeredSync() async {
        guard !machine.status.isPaused else { return }
        logger.debug("push: fetching changes")
        do {
            if pendingResubscribe {
                pendingResubscribe = false
                do {
                    try await savePushSubscriptions()
                } catch {
                    pendingResubscribe = true  // the next push-triggered sync tries again
                    throw error
                }
            }
            try await sync()
        } catch {
            logger.info("push-triggered sync failed: \(error)")
        }
    }
}

/// Set once the courier has registered a push token.
final class PushListeningSignal: Sendable {
    private struct State {
        var set = false
        /// Whether the one wait gave up (timeout or cancellation).
        var released = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    var isSet: Bool { state.withLock { $0.set } }

    func set() {
        state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.set = true
            defer { state.waiter = nil }
            return state.waiter
        }?.resume()
    }

    /// Resumes the wait without setting the signal.
    private func release() {
        state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.released = true
            defer { state.waiter = nil }
            return state.waiter
        }?.resume()
    }

    /// Returns once set, after `timeout`, or when the task is cancelled (one wait per signal).
    func wait(upTo timeout: Duration) async {
        let timer = Task {
            try? await Task.sleep(for: timeout)
            self.release()
        }
        defer { timer.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    if state.set || state.released { return true }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            self.release()
        }
    }
}
