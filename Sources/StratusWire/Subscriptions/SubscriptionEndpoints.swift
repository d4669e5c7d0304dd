/// `subscriptions/list` (GET): every subscription of the caller in the database.
///
/// CloudKit reference: Fetching All Subscriptions (subscriptions/list); Apple's CloudKit Web Services Reference: “subscriptions/list”.
public enum SubscriptionsList: WireEndpoint {
    /// `subscriptions/list`.
    public static let operation = EndpointOperation.subscriptionsList
    /// No body (GET).
    public typealias Request = EmptyBody
    /// `{"subscriptions": […]}`.
    public typealias Response = SubscriptionsResponse
}

/// `subscriptions/lookup`: fetch subscriptions by ID.
///
/// CloudKit reference: Fetching Subscriptions by Identifier (subscriptions/lookup); Apple's CloudKit Web Services Reference: “subscriptions/lookup”.
public enum SubscriptionsLookup: WireEndpoint {
    /// `subscriptions/lookup`.
    public static let operation = EndpointOperation.subscriptionsLookup

    /// One ID to fetch: `{"subscriptionID": …}`.
    public struct Item: Hashable, Sendable, Codable {
        /// The subscription's ID.
        public var subscriptionID: String

        /// Creates a lookup item.
        ///
        /// - Parameter subscriptionID: The subscription's ID.
        public init(subscriptionID: String) {
            self.subscriptionID = subscriptionID
        }
    }

    /// The `subscriptions/lookup` request body.
    public struct Request: Hashable, Sendable, Codable {
        /// The subscriptions to fetch.
        public var subscriptions: [Item]

        /// Creates a request.
        ///
        /// - Parameter subscriptions: The subscriptions to fetch.
        public init(subscriptions: [Item]) {
            self.subscriptions = subscriptions
        }
    }

    /// `{"subscriptions": […]}`, with `NOT_FOUND` errors for unknown IDs.
    public typealias Response = SubscriptionsResponse
}

/// `subscriptions/modify`: create, update and delete subscriptions.
///
/// CloudKit reference: Modifying Subscriptions (subscriptions/modify); Apple's CloudKit Web Services Reference: “subscriptions/modify”.
public enum SubscriptionsModify: WireEndpoint {
    /// `subscriptions/modify`.
    public static let operation = EndpointOperation.subscriptionsModify

    /// The `subscriptions/modify` request body.
    public struct Request: Hashable, Sendable, Codable {
        /// The operations (at most 200).
        public var operations: [SubscriptionOperation]

        /// Creates a request.
        ///
        /// - Parameter operations: The operations.
        public init(operations: [SubscriptionOperation]) {
            self.operations = operations
        }
    }

    /// `{"subscriptions": […]}`: full subscriptions, delete acknowledgements or errors.
    public typealias Response = SubscriptionsResponse
}

/// The response body of every subscriptions endpoint: `{"subscriptions": […]}`.
public struct SubscriptionsResponse: Hashable, Sendable, Codable {
    /// One result per subscription or operation.
    public var subscriptions: [SubscriptionResult]

    /// Creates a response.
    ///
    /// - Parameter subscriptions: The results.
    public init(subscriptions: [SubscriptionResult]) {
        self.subscriptions = subscriptions
    }
}
