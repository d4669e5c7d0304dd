import StratusHTTP
import StratusWire

/// `subscriptions/list`, `subscriptions/lookup` and `subscriptions/modify`.
struct SubscriptionEndpoints: EndpointGroup {
    let store: any RecordStore
    let schemas: SchemaCache
    let configuration: ServiceConfiguration

    func register(on operations: inout DatabaseOperations) {
        operations.on(.subscriptionsList) { try await listSubscriptions($0) }
        operations.on(.subscriptionsLookup) { try await lookupSubscriptions($0) }
        operations.on(.subscriptionsModify) { try await modifySubscriptions($0) }
    }

    /// `subscriptions/list`: the caller's subscriptions in the database, by ID.
    func listSubscriptions(_ context: DatabaseRequest) async throws -> HTTPResponse {
        let database = context.database
        let caller = context.caller
        let stored = try await store.read { try $0.subscriptions(in: database, subscriber: caller) }
        return try context.encode(SubscriptionsList.Response(subscriptions: stored.map { .subscription($0.subscription) }), numbersAsStrings: nil)
    }

    /// `subscriptions/lookup`: one result per ID, `NOT_FOUND` for unknown ones.
    func lookupSubscriptions(_ context: DatabaseRequest) async throws -> HTTPResponse {
        let request = try context.decode(SubscriptionsLookup.Request.self)
        let limit = configuration.limits.maximumResultsPerResponse
        guard request.subscriptions.count <= limit else {
            throw ServiceError.badRequest("a lookup may name at most \(limit) subscriptions; this one names \(request.subscriptions.count)")
        }
        let database = context.database
        let caller = context.caller
        let stored = try await store.read { try $0.subscriptions(in: database, subscriber: caller) }
        let byID = Dictionary(stored.map { ($0.subscription.subscriptionID, $0.subscription) }, uniquingKeysWith: { first, _ in first })
        let results = request.subscriptions.map { item -> SubscriptionResult in
            guard let subscription = byID[item.subscriptionID] else {
                return .error(
                    SubscriptionFetchError(
                        subscriptionID: item.subscriptionID, serverErrorCode: .notFound,
                        reason: "subscription '\(item.subscriptionID)' does not exist"
                    )
                )
            }
            return .subscription(subscription)
        }
        return try context.encode(SubscriptionsLookup.Response(subscriptions: results), numbersAsStrings: nil)
    }

    /// `subscriptions/modify`: creates, replaces and deletes subscriptions, each on its own.
    ///
    /// Creating an ID that exists returns the existing subscription unchanged (Apple's
    /// behaviour, Documentation/0007-push-and-assets.md, “Subscriptions”); a delete is acknowledged with `{subscriptionID}` only. A
    /// user has at most ``PushConfiguration/maximumSubscriptionsPerUser`` subscriptions per
    /// database; a create past it fails with `QUOTA_EXCEEDED`.
    func modifySubscriptions(_ context: DatabaseRequest) async throws -> HTTPResponse {
        let schema = try await schemas.schema(for: context, in: store)
        let request = try context.decode(SubscriptionsModify.Request.self, schema: schema)
        try configuration.limits.checkOperationCount(request.operations.count)
        let database = context.database
        let caller = context.caller
        let now = configuration.now()
        let cap = configuration.push.maximumSubscriptionsPerUser
        let results = try await store.write { tx -> [SubscriptionResult] in
            try request.operations.map { operation -> SubscriptionResult in
                do {
                    return try tx.savepoint {
                        try Self.apply(operation, database: database, subscriber: caller, cap: cap, now: now, context: context, tx)
                    }
                } catch let error as ServiceError {
                    return .error(SubscriptionFetchError(subscriptionID: operation.subscriptionID, serverErrorCode: error.code, reason: error.reason))
                }
            }
        }
        return try context.encode(SubscriptionsModify.Response(subscriptions: results), numbersAsStrings: nil)
    }

    private static func apply(
        _ operation: SubscriptionOperation, database: DatabaseKey, subscriber: String, cap: Int, now: Int64, context: DatabaseRequest,
        _ tx: any RecordStoreWriter
    ) throws -> SubscriptionResult {
        let existing = try tx.subscriptions(in: database, subscriber: subscriber)
        switch operation {
        case .create(let subscription):
            if let current = existing.first(where: { $0.subscription.subscriptionID == subscription.subscriptionID }) {
                return .subscription(current.subscription)
            }
            guard existing.count < cap else {
                throw ServiceError(
                    .quotaExceeded,
                    "subscription '\(subscription.subscriptionID)' not created: you already have \(existing.count) subscriptions in this "
                        + "database, the most allowed is \(cap); delete one first"
                )
            }
            let normalized = try normalize(subscription, context: context, tx)
            try tx.putSubscription(StoredSubscription(database: database, subscriber: subscriber, subscription: normalized, createdAt: now))
            return .subscription(normalized)
        case .update(let subscription):
            guard let current = existing.first(where: { $0.subscription.subscriptionID == subscription.subscriptionID }) else {
                throw ServiceError(.notFound, "subscription '\(subscription.subscriptionID)' does not exist; create it first")
            }
            let normalized = try normalize(subscription, context: context, tx)
            try tx.putSubscription(
                StoredSubscription(database: database, subscriber: subscriber, subscription: normalized, createdAt: current.createdAt)
            )
            return .subscription(normalized)
        case .delete(let id):
            guard try tx.deleteSubscription(id: id, in: database, subscriber: subscriber) else {
                throw ServiceError(.notFound, "subscription '\(id)' does not exist")
            }
            return .deleted(subscriptionID: id)
        }
    }

    /// Checks a subscription and fills in defaults: query subscriptions watch every zone and
    /// fire on every event unless told otherwise; zone subscriptions drop the query keys.
    static func normalize(_ subscription: Subscription, context: DatabaseRequest, _ tx: any RecordStoreWriter) throws -> Subscription {
        var subscription = subscription
        let id = subscription.subscriptionID
        guard !id.isEmpty, id.utf8.count <= 255 else {
            throw ServiceError.badRequest("subscription ID '\(id)' is invalid: use 1 to 255 bytes")
        }
        switch subscription.subscriptionType {
        case .query:
            guard let query = subscription.query else {
                throw ServiceError.badRequest("query subscription '\(id)' needs a 'query' with a 'recordType'")
            }
            try RecordModifier.validate(recordType: query.recordType)
            if (query.sortBy ?? []).count > 0 { subscription.query?.sortBy = nil }
            if let zoneID = subscription.zoneID {
                _ = try context.zoneName(of: zoneID)
                subscription.zoneWide = nil
            } else {
                subscription.zoneWide = subscription.zoneWide ?? true
            }
            let events = subscription.firesOn ?? []
            if let unknown = events.first(where: { ![.create, .update, .delete].contains($0) }) {
                throw ServiceError.badRequest("subscription '\(id)' has unknown firesOn value '\(unknown.rawValue)'; use create, update or delete")
            }
            subscription.firesOn = events.isEmpty ? [.create, .update, .delete] : events
            subscription.firesOnce = subscription.firesOnce ?? false
        case .zone:
            let zoneName = try context.zoneName(of: subscription.zoneID)
            if zoneName != ZoneID.defaultZoneName, try tx.zone(named: zoneName, in: context.database) == nil {
                throw ServiceError(.zoneNotFound, "zone '\(zoneName)' does not exist; create it before subscribing to it")
            }
            subscription.zoneID = subscription.zoneID ?? .defaultZone
            subscription.query = nil
            subscription.firesOn = nil
            subscription.firesOnce = nil
            subscription.zoneWide = nil
        default:
            throw ServiceError.badRequest(
                "subscription '\(id)' has type '\(subscription.subscriptionType.rawValue)'; use 'query' or 'zone'"
            )
        }
        return subscription
    }
}

extension SubscriptionOperation {
    /// The ID the operation addresses.
    var subscriptionID: String {
        switch self {
        case .create(let subscription), .update(let subscription): subscription.subscriptionID
        case .delete(let id): id
        }
    }
}
