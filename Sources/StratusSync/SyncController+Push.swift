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
    /// Notifications that arrive while a sync runs are folded into one more sync. Once the push
    /// token is registered, one catch-up sync fetches what changed before it (pushes go to registered
    /// tokens only). Waits at most `listeningTimeout` for that registration; offline, push keeps
    /// trying in the background (and the reconnection retry replays the outbox).
    ///
    /// ```swift
    /// try await sync.startPush()
    /// // another device saves → the delegate's didFinishSync runs on this one
    /// await sync.stopPush()
    /// ```
    ///
    /// - Parameters:
    ///   - notifications: How the web courier is polled (its transport is wrapped, not replaced).
    ///   - listeningTimeout: The longest wait for the push token to be registered before returning.
    /// - Throws: ``StratusError`` when the zone or the subscription cannot be saved (nothing is started).
    public func startPush(notifications: NotificationConfiguration = NotificationConfiguration(), listeningTimeout: Duration = .seconds(10))
        async throws
    {
        guard pushTasks.isEmpty else { return }
        if configuration.databaseScope != .public { try await ensureZone() }
        for subscription in pushSubscriptions {
            _ = try await database.save(subscription)
        }
        let listening = PushListeningSignal()
        var courier = notifications
        courier.transport = ListeningSignalTransport(inner: notifications.transport ?? URLSessionTransport(), signal: listening)
        let stream = configuration.container.notifications(configuration: courier)
        // A buffer of one: notifications arriving during a sync fold into one more sync.
        let (triggers, trigger) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let zoneID = zoneID
        let subscriptionIDs = Set(pushSubscriptions.map(\.subscriptionID))
        let logger = logger
        let listener = Task {
            do {
                for try await notification in stream {
                    if notification.zoneID?.zoneName == zoneID.zoneName || notification.subscriptionID.map(subscriptionIDs.contains) == true
                        || notification.isResync
                    {
                        trigger.yield()
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
        let catchUp = Task {
            await listening.wait()
            trigger.yield()
        }
        pushTasks = [listener, worker, catchUp]
        let deadline = ContinuousClock.now + listeningTimeout
        while !listening.isSet, ContinuousClock.now < deadline, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(5))
        }
        logger.debug(listening.isSet ? "push listening" : "push not listening yet; it keeps trying in the background")
    }

    /// Stops push-triggered sync (the subscription stays on the server for the next ``startPush(notifications:listeningTimeout:)``).
    public func stopPush() {
        for task in pushTasks { task.cancel() }
        pushTasks = []
    }

    /// Whether push-triggered sync is running.
    public var isPushing: Bool { !pushTasks.isEmpty }

    /// One sync for one or more notifications.
    private func pushTriggeredSync() async {
        guard !machine.status.isPaused else { return }
        logger.debug("push: fetching changes")
        do {
            try await sync()
        } catch {
            logger.info("push-triggered sync failed: \(error)")
        }
    }
}

/// Set once the web courier's first long-poll goes out: the push token is registered by then.
final class PushListeningSignal: Sendable {
    private let state = Mutex(false)

    var isSet: Bool { state.withLock { $0 } }

    func set() { state.withLock { $0 = true } }

    /// Returns once set, or when the task is cancelled.
    func wait() async {
        while !isSet, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// The courier's transport, signalling when the first poll (a `GET`) is sent.
struct ListeningSignalTransport: HTTPTransport {
    let inner: any HTTPTransport
    let signal: PushListeningSignal

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        if request.method == "GET" { signal.set() }
        return try await inner.send(request)
    }
}
