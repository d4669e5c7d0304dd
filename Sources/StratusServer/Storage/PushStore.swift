public import StratusWire

/// Subscription and push-queue read primitives, valid inside a store transaction.
///
/// ``RecordStoreReader`` refines this protocol, so every back end provides it: a records write
/// finds out whether any subscription could fire, and fan-out reads its candidates (design note 0007).
public protocol PushStoreReader {
    /// The subscriptions `subscriber` made in `database`, by ID.
    func subscriptions(in database: DatabaseKey, subscriber: String) throws -> [StoredSubscription]

    /// The subscriptions of `database` that a change of a record of one of `recordTypes` in
    /// `zoneName` could fire, after `cursor`, at most `limit`, in ``SubscriptionKey`` order.
    ///
    /// The candidates are those whose ``StoredSubscription/watch`` names one of the record types
    /// (or none: a zone subscription) and the zone (or none: a zone-wide query subscription). A
    /// back end answers from an index on (database, record type, zone), so subscriptions on other
    /// types and zones cost nothing (design note 0007).
    ///
    /// - Parameters:
    ///   - database: The database written.
    ///   - zoneName: The zone written.
    ///   - recordTypes: The types of the changed records.
    ///   - cursor: Only subscriptions ordered after this key; `nil` for the first.
    ///   - limit: The most to return.
    func subscriptionCandidates(
        in database: DatabaseKey, zoneName: String, recordTypes: Set<String>, after cursor: SubscriptionKey?, limit: Int
    ) throws -> [StoredSubscription]

    /// Whether any subscription could fire on a change of a `recordType` record in `zoneName`:
    /// one of that type on that zone or on every zone, or a zone subscription of that zone.
    ///
    /// What ``subscriptionCandidates(in:zoneName:recordTypes:after:limit:)`` finds, asked only
    /// whether there is one: every records write asks it for each type it changed, so it is a
    /// fixed statement of index probes that reads no subscription.
    ///
    /// - Parameters:
    ///   - recordType: The type of the changed record.
    ///   - database: The database written.
    ///   - zoneName: The zone written.
    func hasSubscription(watching recordType: String, in database: DatabaseKey, zoneName: String) throws -> Bool

    /// The push token, expired or not.
    func pushToken(_ token: String) throws -> PushTokenRow?

    /// The live tokens bound to `user` in a container environment.
    func pushTokens(of user: String, container: String, environment: Environment, now: Int64) throws -> [String]

    /// How many live tokens `owner` created in a container environment.
    func pushTokenCount(ownedBy owner: String, container: String, environment: Environment, now: Int64) throws -> Int

    /// The oldest entries of the push outbox (changes committed but not yet fanned out), oldest first.
    func pushOutbox(limit: Int) throws -> [PushOutboxEntry]
}

/// Subscription and push-queue write primitives, valid inside ``RecordStore/write(_:)``.
public protocol PushStoreWriter: PushStoreReader {
    /// Inserts or replaces a subscription (keyed by database, subscriber and ID).
    func putSubscription(_ subscription: StoredSubscription) throws

    /// Deletes a subscription; `false` if there was none.
    func deleteSubscription(id: String, in database: DatabaseKey, subscriber: String) throws -> Bool

    /// Stores a new, unbound push token.
    func createPushToken(_ token: PushTokenRow) throws

    /// Binds a live token to the user who created it, in the container environment it was created for.
    ///
    /// A token made before tokens had owners may be bound again only by the user it is bound to.
    ///
    /// - Returns: `false` when no such live token exists there, or another user created it.
    func bindPushToken(_ token: String, to user: String, container: String, environment: Environment, now: Int64) throws -> Bool

    /// Removes tokens that expired at or before `now`, with their queued notifications; returns how many.
    func deleteExpiredPushTokens(now: Int64) throws -> Int

    /// Appends notifications, in order, to a live token's queue; past `maximumBacklog` the oldest are dropped and counted.
    ///
    /// - Returns: `false` (and queues nothing) when the token no longer exists.
    func enqueueNotifications(_ payloads: [[UInt8]], token: String, maximumBacklog: Int) throws -> Bool

    /// Appends an entry to the push outbox, in the transaction of the changes it describes.
    func appendPushOutbox(_ entry: NewPushOutboxEntry) throws

    /// Records how far fan-out got with an outbox entry, deleting it once ``PushOutboxProgress/finished``.
    ///
    /// - Parameters:
    ///   - id: The entry.
    ///   - expected: The entry's cursor as the fan-out read it.
    ///   - progress: The new cursor, or finished.
    /// - Returns: `false` (changing nothing) when the entry is gone or its cursor is no longer
    ///   `expected`: another fan-out (another node) handled it first.
    func advancePushOutbox(id: Int64, from expected: SubscriptionKey?, to progress: PushOutboxProgress) throws -> Bool

    /// Removes and returns the oldest queued item of a token: a resync marker first when notifications were dropped.
    func dequeueNotification(token: String) throws -> DequeuedNotification?
}

/// A subscription as the server keeps it: the wire dictionary, whose it is and where it lives.
public struct StoredSubscription: Hashable, Sendable {
    /// The database watched.
    public var database: DatabaseKey
    /// The user who made it and receives its pushes (the owner, in a private database).
    public var subscriber: String
    /// The normalized subscription dictionary.
    public var subscription: Subscription
    /// When it was created, in milliseconds since 1970.
    public var createdAt: Int64

    /// Creates a stored subscription.
    public init(database: DatabaseKey, subscriber: String, subscription: Subscription, createdAt: Int64) {
        self.database = database
        self.subscriber = subscriber
        self.subscription = subscription
        self.createdAt = createdAt
    }
}

/// A web courier token.
public struct PushTokenRow: Hashable, Sendable {
    /// The opaque token (also the last path segment of its courier URL).
    public var token: String
    /// The container it was created for.
    public var container: String
    /// The CloudKit environment it was created for.
    public var environment: Environment
    /// The APNs environment the client asked for.
    public var apnsEnvironment: String
    /// The user it is bound to, after `tokens/register`.
    public var user: String?
    /// The user who created it, the only one who may register it; `nil` for tokens made before tokens had owners.
    public var owner: String?
    /// When it was created, in milliseconds since 1970.
    public var createdAt: Int64
    /// When it stops working, in milliseconds since 1970.
    public var expiresAt: Int64

    /// Creates a token row.
    public init(
        token: String, container: String, environment: Environment, apnsEnvironment: String, user: String?, owner: String? = nil,
        createdAt: Int64, expiresAt: Int64
    ) {
        self.token = token
        self.container = container
        self.environment = environment
        self.apnsEnvironment = apnsEnvironment
        self.user = user
        self.owner = owner
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// What a token's queue hands out next.
public enum DequeuedNotification: Hashable, Sendable {
    /// A stored notification's JSON.
    case notification([UInt8])
    /// Notifications were dropped past the backlog limit: the client must run a full fetch.
    case resync(dropped: Int)
}
