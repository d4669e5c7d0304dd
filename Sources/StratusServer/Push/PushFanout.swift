import StratusWire

/// Queues the notifications a records write causes, inside that write's transaction.
///
/// Runs after the write's operations, in the same store transaction, so only
/// committed changes notify and a crash loses nothing: the queue rows commit
/// with the records. Each change gets one notification ID (`nid`), shared by
/// every subscription it fires; each (subscription, recipient token) pair gets
/// its own queued copy. Zone subscriptions fire once per write per zone.
/// `firesOnce` subscriptions are deleted when they fire. The caller wakes the
/// returned tokens' parked polls after the commit.
struct PushFanout {
    let configuration: PushConfiguration
    let now: Int64
    /// A token that must not receive this write's notifications (the author's own device), if any.
    let skippedToken: String?

    /// Queues notifications for `changes` in `zone`; returns the tokens that received any.
    func enqueue(_ changes: [RecordChange], zone: ZoneRow, _ tx: any RecordStoreWriter) throws -> Set<String> {
        guard !changes.isEmpty else { return [] }
        let subscriptions = try tx.subscriptions(in: zone.database).filter { PushAudience.mayRead($0.subscriber, zone.database) }
        guard !subscriptions.isEmpty else { return [] }
        var tokensByUser: [String: [String]] = [:]
        var woken: Set<String> = []
        var firedZoneSubscriptions: Set<String> = []
        var spent: Set<Int> = []

        for change in changes {
            let notificationID = configuration.makeNotificationID()
            for (index, stored) in subscriptions.enumerated() where !spent.contains(index) {
                let subscription = stored.subscription
                guard SubscriptionMatcher.fires(subscription, for: change, inZone: zone.zoneName) else { continue }
                let notification: CourierNotification
                if subscription.subscriptionType == .zone {
                    let key = stored.subscriber + "\u{0}" + subscription.subscriptionID
                    guard firedZoneSubscriptions.insert(key).inserted else { continue }
                    notification = NotificationPayload.zone(
                        stored, zone: zone, recipient: stored.subscriber, notificationID: notificationID, record: change.after ?? change.before
                    )
                } else {
                    notification = NotificationPayload.query(
                        stored, change: change, zone: zone, recipient: stored.subscriber, notificationID: notificationID
                    )
                }
                if subscription.firesOnce == true, subscription.subscriptionType == .query {
                    spent.insert(index)
                    _ = try tx.deleteSubscription(id: subscription.subscriptionID, in: stored.database, subscriber: stored.subscriber)
                }
                let tokens = try tokensByUser[stored.subscriber] ?? {
                    let tokens = try tx.pushTokens(
                        of: stored.subscriber, container: zone.database.container, environment: zone.database.environment, now: now
                    ).filter { $0 != skippedToken }
                    tokensByUser[stored.subscriber] = tokens
                    return tokens
                }()
                guard !tokens.isEmpty else { continue }
                let payload = try NotificationPayload.bytes(notification)
                for token in tokens {
                    try tx.enqueueNotification(payload, token: token, maximumBacklog: configuration.maximumBacklog)
                    woken.insert(token)
                }
            }
        }
        return woken
    }
}
