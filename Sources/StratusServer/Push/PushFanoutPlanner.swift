import StratusWire

/// Plans one fan-out transaction from a read snapshot: which outbox entries advance how far, and
/// which notifications that queues.
///
/// Runs on a reader, outside the store's writer: it reads the oldest outbox entries, each one's
/// candidate subscriptions (indexed by record type and zone) after its cursor, and evaluates
/// them — filters, `firesOn`, the security roles of public records, the notification payloads.
/// The work is bounded: at most ``PushConfiguration/fanoutBatchSize`` subscriptions evaluated
/// plus notifications planned; an entry that does not fit is continued by the next batch from
/// its cursor, and no later entry starts before it finishes, so every token receives its
/// notifications in commit order.
struct PushFanoutPlanner {
    let configuration: PushConfiguration
    /// Now, in milliseconds since 1970 (token liveness).
    let now: Int64
    /// Entries read per batch.
    var entryLimit = 64

    /// The next batch; empty when the outbox is.
    func plan(_ tx: any RecordStoreReader) throws -> PushFanoutBatch {
        var batch = PushFanoutBatch()
        var state = PlanState(budget: max(1, configuration.fanoutBatchSize))
        for entry in try tx.pushOutbox(limit: entryLimit) {
            guard state.budget > 0 else { break }
            let payload: PushOutboxPayload
            do {
                payload = try PushOutboxPayload.decode(entry.payload)
            } catch {
                // Unreadable (written by an incompatible version): dropped, and logged, rather than block every later entry.
                batch.claims.append(.init(id: entry.id, expected: entry.cursor, progress: .finished))
                batch.unreadable.append("outbox entry \(entry.id): \(error)")
                continue
            }
            let limit = state.budget
            let candidates = try tx.subscriptionCandidates(
                in: entry.database, zoneName: entry.zoneName, recordTypes: payload.recordTypes, after: entry.cursor, limit: limit
            )
            let context = EntryContext(entry: entry, payload: payload, schema: try state.schema(for: entry.database, tx))
            var handled = 0
            var deliveries: [(change: Int, delivery: PushFanoutBatch.Delivery)] = []
            for stored in candidates {
                guard state.budget > 0 else { break }
                state.budget -= 1
                handled += 1
                batch.evaluatedSubscriptions += 1
                let fired = try evaluate(stored, context, state: &state, tx)
                state.budget -= fired.count
                deliveries += fired
            }
            // Change-major within the entry, as the changes were applied.
            batch.deliveries += deliveries.enumerated().sorted { ($0.element.change, $0.offset) < ($1.element.change, $1.offset) }.map(\.element.delivery)
            let finished = handled == candidates.count && candidates.count < limit
            let progress: PushOutboxProgress = finished ? .finished : .handled(through: candidates[handled - 1].key)
            batch.claims.append(.init(id: entry.id, expected: entry.cursor, progress: progress))
            guard finished else { break }
        }
        return batch
    }

    /// The notifications `stored` fires for the entry's changes, each with its change's position.
    private func evaluate(
        _ stored: StoredSubscription, _ context: EntryContext, state: inout PlanState, _ tx: any RecordStoreReader
    ) throws
        -> [(change: Int, delivery: PushFanoutBatch.Delivery)]
    {
        let subscription = stored.subscription
        let database = context.entry.database
        guard PushAudience.mayRead(stored.subscriber, database), !state.spent.contains(stored.key) else { return [] }
        var fired: [(change: Int, delivery: PushFanoutBatch.Delivery)] = []
        for (index, item) in context.changes.enumerated() {
            let change = item.change
            guard let record = change.after ?? change.before,
                PushAudience.mayRead(stored.subscriber, record, in: database, schema: context.schema),
                SubscriptionMatcher.fires(subscription, for: change, inZone: context.zone.zoneName)
            else { continue }
            let firesOnce = subscription.subscriptionType == .query && subscription.firesOnce == true
            if firesOnce { state.spent.insert(stored.key) }
            // Only subscribers with a device get a payload built; a firesOnce one is spent regardless.
            let recipients = try state.recipients(stored.subscriber, database, now: now, tx)
            guard recipients.courier || recipients.apns || firesOnce else { break }
            let notification =
                subscription.subscriptionType == .zone
                ? NotificationPayload.zone(stored, zone: context.zone, recipient: stored.subscriber, notificationID: item.notificationID, record: record)
                : NotificationPayload.query(stored, change: change, zone: context.zone, recipient: stored.subscriber, notificationID: item.notificationID)
            fired.append(
                (
                    index,
                    PushFanoutBatch.Delivery(
                        database: database, subscriber: stored.subscriber, payload: try NotificationPayload.bytes(notification),
                        apns: recipients.apns ? APNsPayload.make(for: notification) : nil,
                        skippedToken: context.payload.skippedToken, spends: firesOnce ? stored.key : nil
                    )
                )
            )
            // A zone subscription fires once per write; a firesOnce subscription once ever.
            if subscription.subscriptionType == .zone || firesOnce { break }
        }
        return fired
    }

    /// One outbox entry, decoded once for all its candidates.
    private struct EntryContext {
        let entry: PushOutboxEntry
        let payload: PushOutboxPayload
        let schema: Schema
        let changes: [(notificationID: String, change: RecordChange)]
        let zone: ZoneRow

        init(entry: PushOutboxEntry, payload: PushOutboxPayload, schema: Schema) {
            self.entry = entry
            self.payload = payload
            self.schema = schema
            changes = payload.recordChanges
            zone = ZoneRow(
                rowID: payload.zoneRowID, database: entry.database, zoneName: entry.zoneName, changeSequence: 0, databaseSequence: 0,
                createdAt: 0, isDeleted: false
            )
        }
    }

    /// What one planning pass remembers across entries.
    private struct PlanState {
        /// Subscriptions evaluated plus notifications planned still allowed in this batch.
        var budget: Int
        /// `firesOnce` subscriptions that fired in this batch.
        var spent: Set<SubscriptionKey> = []
        private var schemas: [String: Schema] = [:]
        private var devices: [String: Recipients] = [:]
        private var apnsCredentials: [String: Bool] = [:]

        init(budget: Int) { self.budget = budget }

        mutating func schema(for database: DatabaseKey, _ tx: any RecordStoreReader) throws -> Schema {
            let key = database.container + "\u{0}" + database.environment.rawValue
            if let schema = schemas[key] { return schema }
            let schema = try tx.schema(container: database.container, environment: database.environment)
            schemas[key] = schema
            return schema
        }

        /// Whether `user` has live courier tokens, and APNs device tokens in a container environment with APNs credentials.
        mutating func recipients(_ user: String, _ database: DatabaseKey, now: Int64, _ tx: any RecordStoreReader) throws -> Recipients {
            let place = database.container + "\u{0}" + database.environment.rawValue
            let key = user + "\u{0}" + place
            if let known = devices[key] { return known }
            let apnsReady =
                try apnsCredentials[place]
                ?? {
                    let ready = try tx.apnsCredentials(container: database.container, environment: database.environment) != nil
                    apnsCredentials[place] = ready
                    return ready
                }()
            let known = Recipients(
                courier: try !tx.pushTokens(of: user, container: database.container, environment: database.environment, now: now).isEmpty,
                apns: try apnsReady && !tx.apnsDeviceTokens(of: user, container: database.container, environment: database.environment).isEmpty
            )
            devices[key] = known
            return known
        }
    }

    /// Where a subscriber's notifications can go.
    private struct Recipients {
        var courier: Bool
        var apns: Bool
    }
}
