public import StratusWire

/// Orders a database's subscriptions for fan-out: by subscriber, then subscription ID.
///
/// Fan-out walks an outbox entry's candidate subscriptions in this order, a bounded number per
/// transaction, and persists the last key it handled as the entry's cursor.
public struct SubscriptionKey: Hashable, Sendable {
    /// The subscriber.
    public var subscriber: String
    /// The subscription ID.
    public var subscriptionID: String

    /// Creates a key.
    public init(subscriber: String, subscriptionID: String) {
        self.subscriber = subscriber
        self.subscriptionID = subscriptionID
    }
}

/// Which changes can fire a subscription: the record type and zone it watches.
///
/// Subscriptions are indexed by these two values, so a write looks only at the subscriptions
/// that could fire for it. `nil` means any: a zone subscription watches every record type, a
/// zone-wide query subscription every zone.
public struct SubscriptionWatch: Hashable, Sendable {
    /// The record type watched; `nil` for every type.
    public var recordType: String?
    /// The zone watched; `nil` for every zone.
    public var zoneName: String?

    /// Creates a watch.
    public init(recordType: String?, zoneName: String?) {
        self.recordType = recordType
        self.zoneName = zoneName
    }

    /// What `subscription` watches.
    ///
    /// A query subscription watches its query's record type in its `zoneID`, else every zone
    /// when `zoneWide` (the default), else the default zone. A zone subscription watches every
    /// type in its zone (the default zone when it names none). Other kinds are never fired: they
    /// watch a record type no record has (the empty name).
    public init(_ subscription: Subscription) {
        switch subscription.subscriptionType {
        case .query:
            recordType = subscription.query?.recordType ?? ""
            if let zoneID = subscription.zoneID {
                zoneName = zoneID.zoneName
            } else {
                zoneName = (subscription.zoneWide ?? true) ? nil : ZoneID.defaultZoneName
            }
        case .zone:
            recordType = nil
            zoneName = subscription.zoneID?.zoneName ?? ZoneID.defaultZoneName
        default:
            recordType = ""
            zoneName = ""
        }
    }

    /// Every watch that covers a change of one of `recordTypes` in `zoneName`, in a stable order:
    /// for each type (sorted) the type in that zone and in every zone, then every type in that
    /// zone. A back end probes its (record type, zone) index once per watch.
    public static func covering(recordTypes: Set<String>, zoneName: String) -> [SubscriptionWatch] {
        recordTypes.sorted().flatMap { [SubscriptionWatch(recordType: $0, zoneName: zoneName), SubscriptionWatch(recordType: $0, zoneName: nil)] }
            + [SubscriptionWatch(recordType: nil, zoneName: zoneName)]
    }

    /// Whether a change of a `recordType` record in `zoneName` could fire the subscription.
    public func covers(recordType: String, zoneName: String) -> Bool {
        (self.recordType == nil || self.recordType == recordType) && (self.zoneName == nil || self.zoneName == zoneName)
    }
}

extension StoredSubscription {
    /// The record type and zone the subscription watches (the columns it is indexed by).
    public var watch: SubscriptionWatch { SubscriptionWatch(subscription) }

    /// The subscription's place in fan-out order.
    public var key: SubscriptionKey { SubscriptionKey(subscriber: subscriber, subscriptionID: subscription.subscriptionID) }
}

/// A write's record changes awaiting fan-out to subscriptions, appended in the write's transaction.
public struct NewPushOutboxEntry: Hashable, Sendable {
    /// The database written.
    public var database: DatabaseKey
    /// The zone written.
    public var zoneName: String
    /// The changes, as the service encoded them; opaque to the store.
    public var payload: [UInt8]
    /// When the write committed, in milliseconds since 1970.
    public var createdAt: Int64

    /// Creates an entry.
    public init(database: DatabaseKey, zoneName: String, payload: [UInt8], createdAt: Int64) {
        self.database = database
        self.zoneName = zoneName
        self.payload = payload
        self.createdAt = createdAt
    }
}

/// An entry of the push outbox, as stored.
public struct PushOutboxEntry: Hashable, Sendable {
    /// The entry's position: entries are fanned out in this order.
    public var id: Int64
    /// The database written.
    public var database: DatabaseKey
    /// The zone written.
    public var zoneName: String
    /// The changes, as the service encoded them.
    public var payload: [UInt8]
    /// When the write committed, in milliseconds since 1970.
    public var createdAt: Int64
    /// The last candidate subscription fan-out handled; `nil` before the first.
    public var cursor: SubscriptionKey?

    /// Creates an entry.
    public init(id: Int64, database: DatabaseKey, zoneName: String, payload: [UInt8], createdAt: Int64, cursor: SubscriptionKey?) {
        self.id = id
        self.database = database
        self.zoneName = zoneName
        self.payload = payload
        self.createdAt = createdAt
        self.cursor = cursor
    }
}

extension PushOutboxEntry {
    /// An entry from the columns a back end stores; `nil` when the environment or scope is not
    /// one Stratus knows (a corrupt row). A cursor needs both of its columns.
    public init?(
        id: Int64, container: String, environment: String, scope: String, owner: String, zoneName: String, payload: [UInt8],
        createdAt: Int64, cursorSubscriber: String?, cursorSubscription: String?
    ) {
        guard let environment = Environment(rawValue: environment), let scope = DatabaseScope(rawValue: scope) else { return nil }
        var cursor: SubscriptionKey?
        if let cursorSubscriber, let cursorSubscription {
            cursor = SubscriptionKey(subscriber: cursorSubscriber, subscriptionID: cursorSubscription)
        }
        self.init(
            id: id, database: DatabaseKey(container: container, environment: environment, scope: scope, owner: owner), zoneName: zoneName,
            payload: payload, createdAt: createdAt, cursor: cursor
        )
    }
}

/// How far fan-out got with an outbox entry.
public enum PushOutboxProgress: Hashable, Sendable {
    /// Every candidate subscription was handled: the entry is deleted.
    case finished
    /// Candidates up to and including this key were handled.
    case handled(through: SubscriptionKey)
}

extension PushStoreWriter {
    /// Appends one notification to a live token's queue (see ``enqueueNotifications(_:token:maximumBacklog:)``).
    public func enqueueNotification(_ payload: [UInt8], token: String, maximumBacklog: Int) throws {
        _ = try enqueueNotifications([payload], token: token, maximumBacklog: maximumBacklog)
    }
}
