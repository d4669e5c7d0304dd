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
    public func startPush(
        notifications: NotificationConfiguration = NotificationConfiguration(), listeningTimeout: Duration = .seconds(10)
    )
        async throws
    {
        try ensureOpen("startPush()")
        guard tasks.push.isEmpty else { return }
        do {
            try await savePushSubscriptions()
        } catch {
            machine.failed("\(error)")
            publish()
            if !(error is SyncError) { scheduleReconnect() }
            throw error
        }
        // While the subscriptions were saved, close() may have run (start nothing it would not stop)
        // or another startPush() may have started push (start it once).
        try ensureOpen("startPush()")
        guard tasks.push.isEmpty else { return }
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
                        if Self.concerns(notification, zoneName: zoneID.zoneName, subscriptionIDs: subscriptionIDs) { trigger.yield() }
                    }
                }
            } catch  where !Task.isCancelled {
                logger.warning("push stopped; syncs now run only when the app asks: \(error)")
            } catch {}
            trigger.finish()
        }
        let worker = Task { [weak self] in
            for await _ in triggers {
                await self?.pushTriggeredSync()
            }
        }
        tasks.push = [listener, worker]
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
    /// before the catch-up sync (which the listener triggers; the state machine remembers it).
    private func courierListening() {
        _ = machine.courierListening()
    }

    /// Whether a push is about this controller's records: its zone, one of its subscriptions, or the
    /// server's resync marker (notifications were dropped: fetch everything that changed).
    static func concerns(_ notification: CloudNotification, zoneName: String, subscriptionIDs: Set<String>) -> Bool {
        notification.zoneID?.zoneName == zoneName || notification.subscriptionID.map(subscriptionIDs.contains) == true || notification.isResync
    }

    /// Hands the controller a push it received — from the web courier, or the `userInfo` of an APNs
    /// remote notification (``handleNotification(userInfo:)``) — as ZenCloudKit's
    /// `handleCloudKitNotificationWithUserInfo` did: when it is about this controller's records, the
    /// changes since the last sync are fetched and delivered to the delegate (`didFinishSync`).
    ///
    /// ```swift
    /// import StratusClient
    /// import StratusSync
    ///
    /// func listen(_ sync: SyncController, to container: Container) async throws {
    ///     for try await notification in container.notifications() {
    ///         try await sync.handleNotification(notification)
    ///     }
    /// }
    /// ```
    ///
    /// - Parameter notification: The push.
    /// - Returns: The changes delivered; empty when the push was about something else (or paused).
    /// - Throws: What ``sync()`` throws.
    @discardableResult
    public func handleNotification(_ notification: CloudNotification) async throws -> SyncChanges {
        guard Self.concerns(notification, zoneName: zoneID.zoneName, subscriptionIDs: Set(pushSubscriptions.map(\.subscriptionID))) else {
            logger.debug("push about something else (subscription \(notification.subscriptionID ?? "none")); nothing to fetch")
            return SyncChanges()
        }
        logger.debug("push: fetching changes")
        return try await sync()
    }

    /// ``handleNotification(_:)`` for the `userInfo` of an APNs remote notification (the same `aps`
    /// and `ck` payload the courier delivers). The payload is decoded before this returns, on the
    /// caller's thread, so it works from any isolation (an app delegate on the main actor).
    ///
    /// ```swift
    /// import StratusSync
    ///
    /// func didReceiveRemoteNotification(_ userInfo: [AnyHashable: Any], sync: SyncController) async throws {
    ///     let changes = try await sync.handleNotification(userInfo: userInfo).value
    ///     print("\(changes.inserted.count) new, \(changes.updated.count) updated, \(changes.deleted.count) deleted")
    /// }
    /// ```
    ///
    /// - Parameter userInfo: The notification's payload.
    /// - Returns: The fetch, running: its value is the changes delivered (empty for a push that is not
    ///   CloudKit's, or about something else); it throws ``SyncError/Code/invalidNotification`` for a
    ///   CloudKit payload that does not decode, or what ``sync()`` throws.
    @discardableResult
    public nonisolated func handleNotification(userInfo: [AnyHashable: Any]) -> Task<SyncChanges, any Error> {
        let decoded = Result { try PushPayload.notification(userInfo: userInfo) }
        return Task {
            guard let notification = try decoded.get() else { return SyncChanges() }
            return try await self.handleNotification(notification)
        }
    }

    /// Stops push-triggered sync (the subscription stays on the server for the next ``startPush(notifications:listeningTimeout:)``).
    public func stopPush() {
        for task in tasks.push { task.cancel() }
        tasks.push = []
    }

    /// Whether push-triggered sync is running.
    public var isPushing: Bool { !tasks.push.isEmpty }

    /// One sync for one or more notifications (after a reconnection, the subscriptions first).
    private func pushTriggeredSync() async {
        guard !machine.status.isPaused else { return }
        logger.debug("push: fetching changes")
        do {
            if machine.takeResubscribe() {
                do {
                    try await savePushSubscriptions()
                } catch {
                    machine.resubscribeFailed()  // the next push-triggered sync tries again
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
