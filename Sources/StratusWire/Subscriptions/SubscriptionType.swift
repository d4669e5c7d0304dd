/// A subscription's kind: `query` or `zone` (an open set; `database` exists natively).
///
/// CloudKit reference: Types ("Subscription Dictionary"); Apple's CloudKit Web Services Reference: “Subscription and notification-info dictionaries”.
public struct SubscriptionType: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The wire string.
    public var rawValue: String

    /// Creates a type from its wire string.
    ///
    /// - Parameter rawValue: The wire string.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The wire string.
    public var description: String { rawValue }

    /// `query`: fires when records matching a query change.
    public static let query = SubscriptionType(rawValue: "query")
    /// `zone`: fires when anything in a zone changes.
    public static let zone = SubscriptionType(rawValue: "zone")
}

/// A change that fires a query subscription: `create`, `update` or `delete` (an open set).
public struct SubscriptionEvent: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The wire string.
    public var rawValue: String

    /// Creates an event from its wire string.
    ///
    /// - Parameter rawValue: The wire string.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The wire string.
    public var description: String { rawValue }

    /// A matching record was created.
    public static let create = SubscriptionEvent(rawValue: "create")
    /// A matching record was updated.
    public static let update = SubscriptionEvent(rawValue: "update")
    /// A matching record was deleted.
    public static let delete = SubscriptionEvent(rawValue: "delete")
}
