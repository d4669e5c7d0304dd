public import StratusWire

/// A push subscription: a query or zone watched by the server (`CKSubscription`).
public typealias Subscription = StratusWire.Subscription
/// Which changes fire a query subscription.
public typealias SubscriptionEvent = StratusWire.SubscriptionEvent
/// How a subscription's push is presented.
public typealias NotificationInfo = StratusWire.NotificationInfo

extension Database {
    /// Saves a subscription (creating an ID that exists returns the existing one unchanged).
    ///
    /// ```swift
    /// let notes = Subscription(subscriptionID: "notes", subscriptionType: .zone, zoneID: inbox)
    /// try await container.privateCloudDatabase.save(notes)
    /// ```
    ///
    /// - Parameter subscription: The subscription.
    /// - Returns: The subscription as the server stored it, defaults filled in.
    /// - Throws: ``StratusError``; ``StratusError/Code/zoneNotFound`` for a zone subscription to a missing zone.
    ///
    /// CloudKit reference: subscriptions/modify.
    @discardableResult
    public func save(_ subscription: Subscription) async throws -> Subscription {
        let request = SubscriptionsModify.Request(operations: [.create(subscription)])
        let response = try await client.send(SubscriptionsModify.self, request, database: scope, idempotent: false)
        return try Self.single(response, subscriptionID: subscription.subscriptionID)
    }

    /// Fetches one subscription.
    ///
    /// - Parameter subscriptionID: The subscription's ID.
    /// - Returns: The subscription.
    /// - Throws: ``StratusError``; ``StratusError/Code/unknownItem`` when it does not exist.
    ///
    /// CloudKit reference: subscriptions/lookup.
    public func subscription(for subscriptionID: String) async throws -> Subscription {
        let request = SubscriptionsLookup.Request(subscriptions: [SubscriptionsLookup.Item(subscriptionID: subscriptionID)])
        let response = try await client.send(SubscriptionsLookup.self, request, database: scope, idempotent: true)
        return try Self.single(response, subscriptionID: subscriptionID)
    }

    /// Fetches every subscription of the signed-in user in this database.
    ///
    /// - Returns: The subscriptions, in the server's order.
    /// - Throws: ``StratusError``.
    ///
    /// CloudKit reference: subscriptions/list.
    public func allSubscriptions() async throws -> [Subscription] {
        let response = try await client.send(SubscriptionsList.self, EmptyBody(), database: scope, idempotent: true)
        var subscriptions: [Subscription] = []
        for result in response.subscriptions {
            switch result {
            case .subscription(let subscription): subscriptions.append(subscription)
            case .deleted: continue
            case .error(let error): throw StratusError(error)
            }
        }
        return subscriptions
    }

    /// Deletes a subscription.
    ///
    /// - Parameter subscriptionID: The subscription's ID.
    /// - Returns: The deleted subscription's ID.
    /// - Throws: ``StratusError``; ``StratusError/Code/unknownItem`` when it does not exist.
    ///
    /// CloudKit reference: subscriptions/modify (`delete`).
    @discardableResult
    public func deleteSubscription(withID subscriptionID: String) async throws -> String {
        let request = SubscriptionsModify.Request(operations: [.delete(subscriptionID: subscriptionID)])
        let response = try await client.send(SubscriptionsModify.self, request, database: scope, idempotent: false)
        guard let result = response.subscriptions.first else {
            throw StratusError(.serverResponseLost, "the server did not answer for subscription '\(subscriptionID)'")
        }
        if case .error(let error) = result { throw StratusError(error) }
        return subscriptionID
    }

    /// The one subscription of a response, or its error.
    private static func single(_ response: SubscriptionsResponse, subscriptionID: String) throws -> Subscription {
        guard let result = response.subscriptions.first else {
            throw StratusError(.serverResponseLost, "the server did not answer for subscription '\(subscriptionID)'")
        }
        switch result {
        case .subscription(let subscription): return subscription
        case .deleted: throw StratusError(.serverResponseLost, "the server answered a deletion for subscription '\(subscriptionID)'")
        case .error(let error): throw StratusError(error)
        }
    }
}

extension StratusError {
    /// Creates the error of one subscription in a batch response.
    ///
    /// - Parameter error: The subscription fetch error dictionary.
    public init(_ error: SubscriptionFetchError) {
        let code = Code(serverErrorCode: error.serverErrorCode, httpStatus: nil, reason: error.reason)
        self.init(code, error.reason ?? "subscription '\(error.subscriptionID ?? "?")' failed with \(error.serverErrorCode)")
        serverErrorCode = error.serverErrorCode
        reason = error.reason
        redirectURL = error.redirectURL
    }
}
