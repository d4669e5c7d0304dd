/// A push subscription: the Subscription dictionary.
///
/// ```swift
/// let subscription = Subscription(
///     subscriptionID: "new-notes", subscriptionType: .query,
///     query: Query(recordType: "Note"), firesOn: [.create, .update],
///     notificationInfo: NotificationInfo(alertBody: "New note", shouldBadge: true))
/// ```
///
/// CloudKit reference: Types ("Subscription Dictionary"); Apple's CloudKit Web Services Reference: “Subscription and notification-info dictionaries”.
public struct Subscription: Hashable, Sendable, Codable {
    /// The client-chosen ID.
    public var subscriptionID: String
    /// `query` or `zone`.
    public var subscriptionType: SubscriptionType
    /// The query (query subscriptions).
    public var query: Query?
    /// The zone watched (zone subscriptions) or the scope of a query subscription.
    public var zoneID: ZoneID?
    /// Query subscriptions: watch all zones (`true`, the default) or the default zone only.
    public var zoneWide: Bool?
    /// Query subscriptions: which changes fire.
    public var firesOn: [SubscriptionEvent]?
    /// Fire once, then stop (default `false`).
    public var firesOnce: Bool?
    /// How the push is presented.
    public var notificationInfo: NotificationInfo?

    /// Creates a subscription.
    ///
    /// - Parameters:
    ///   - subscriptionID: The client-chosen ID.
    ///   - subscriptionType: `query` or `zone`.
    ///   - query: The query.
    ///   - zoneID: The zone.
    ///   - zoneWide: Watch all zones.
    ///   - firesOn: Which changes fire.
    ///   - firesOnce: Fire once, then stop.
    ///   - notificationInfo: How the push is presented.
    public init(
        subscriptionID: String, subscriptionType: SubscriptionType, query: Query? = nil, zoneID: ZoneID? = nil,
        zoneWide: Bool? = nil, firesOn: [SubscriptionEvent]? = nil, firesOnce: Bool? = nil,
        notificationInfo: NotificationInfo? = nil
    ) {
        self.subscriptionID = subscriptionID
        self.subscriptionType = subscriptionType
        self.query = query
        self.zoneID = zoneID
        self.zoneWide = zoneWide
        self.firesOn = firesOn
        self.firesOnce = firesOnce
        self.notificationInfo = notificationInfo
    }
}
