import StratusWire

/// One fan-out transaction, planned on a reader by ``PushFanoutPlanner`` and applied on the writer.
///
/// Applying it is short: claim each outbox entry's progress (a compare-and-set on its cursor, so
/// two nodes never fan out the same changes twice), delete the `firesOnce` subscriptions that
/// fired, look up each recipient's tokens once, and append each token's notifications in one go.
/// Evaluating filters and building payloads happened before, outside the writer.
struct PushFanoutBatch: Sendable {
    /// How far one outbox entry gets.
    struct Claim: Sendable {
        var id: Int64
        var expected: SubscriptionKey?
        var progress: PushOutboxProgress
    }

    /// One notification for one subscriber, copied to each of their live tokens.
    struct Delivery: Sendable {
        var database: DatabaseKey
        var subscriber: String
        var payload: [UInt8]
        /// The push for the subscriber's APNs device tokens, when the container environment has
        /// APNs credentials and the subscriber registered devices.
        var apns: APNsPayload?
        /// The token of the write's author, which gets nothing.
        var skippedToken: String?
        /// A `firesOnce` subscription this notification uses up; it is delivered only if that
        /// subscription still exists when the batch is applied.
        var spends: SubscriptionKey?
    }

    var claims: [Claim] = []
    var deliveries: [Delivery] = []
    /// Candidate subscriptions evaluated while planning.
    var evaluatedSubscriptions = 0
    /// Entries dropped because their payload could not be read, each with the decoding error.
    var unreadable: [String] = []

    /// Whether there was nothing in the outbox.
    var isEmpty: Bool { claims.isEmpty }

    /// Thrown inside the write when another fan-out advanced an entry first: roll back and plan again.
    struct Overtaken: Error {}

    /// What applying a batch did.
    struct Outcome: Sendable {
        /// Tokens that received notifications (to wake after the commit).
        var woken: Set<String> = []
        /// Notifications appended, counting each token's copy.
        var queued = 0
        /// APNs pushes appended to the delivery queue.
        var apnsQueued = 0
        /// The ones leased to this node's sender in the same transaction, to send at once.
        var apnsLeased: [APNsPush] = []
        /// The credentials of the leased pushes, by ``APNsDelivery/credentialsKey(_:)``.
        var apnsCredentials: [String: APNsCredentials] = [:]
    }

    /// Applies the batch in the write transaction `tx`.
    ///
    /// - Throws: ``Overtaken`` when an entry's cursor moved since planning; store errors.
    func apply(_ tx: any RecordStoreWriter, maximumBacklog: Int, maximumAPNsQueued: Int, apnsLease: APNsLease?, now: Int64) throws -> Outcome {
        for claim in claims {
            guard try tx.advancePushOutbox(id: claim.id, from: claim.expected, to: claim.progress) else { throw Overtaken() }
        }
        var devicesOf: [String: [APNsDeviceToken]] = [:]
        var pushes: [NewAPNsPush] = []
        var tokensOf: [String: [String]] = [:]
        var queues: [String: [[UInt8]]] = [:]
        var order: [String] = []
        for delivery in deliveries {
            if let spent = delivery.spends {
                guard try tx.deleteSubscription(id: spent.subscriptionID, in: delivery.database, subscriber: spent.subscriber) else { continue }
            }
            let database = delivery.database
            let key = delivery.subscriber + "\u{0}" + database.container + "\u{0}" + database.environment.rawValue
            let tokens =
                try tokensOf[key]
                ?? {
                    let tokens = try tx.pushTokens(of: delivery.subscriber, container: database.container, environment: database.environment, now: now)
                    tokensOf[key] = tokens
                    return tokens
                }()
            for token in tokens where token != delivery.skippedToken {
                if queues[token] == nil { order.append(token) }
                queues[token, default: []].append(delivery.payload)
            }
            if let apns = delivery.apns {
                let devices =
                    try devicesOf[key]
                    ?? {
                        let devices = try tx.apnsDeviceTokens(of: delivery.subscriber, container: database.container, environment: database.environment)
                        devicesOf[key] = devices
                        return devices
                    }()
                for device in devices where device.token != delivery.skippedToken {
                    pushes.append(
                        NewAPNsPush(
                            token: device.token, container: database.container, environment: database.environment,
                            apnsEnvironment: device.apnsEnvironment, payload: apns.body, pushType: apns.pushType, createdAt: now
                        )
                    )
                }
            }
        }
        var outcome = Outcome()
        if !pushes.isEmpty {
            outcome.apnsLeased = try tx.enqueueAPNsPushes(pushes, maximumPerToken: maximumAPNsQueued, leasing: apnsLease).leased
            outcome.apnsQueued = pushes.count
            for push in outcome.apnsLeased where outcome.apnsCredentials[APNsDelivery.credentialsKey(push.push)] == nil {
                outcome.apnsCredentials[APNsDelivery.credentialsKey(push.push)] = try tx.apnsCredentials(
                    container: push.push.container, environment: push.push.environment
                )
            }
        }
        for token in order {
            let payloads = queues[token] ?? []
            guard try tx.enqueueNotifications(payloads, token: token, maximumBacklog: maximumBacklog) else { continue }
            outcome.woken.insert(token)
            outcome.queued += payloads.count
        }
        return outcome
    }
}
