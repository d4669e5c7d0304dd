public import StratusWire

/// Subscription and push-queue read primitives, valid inside a store transaction.
///
/// ``RecordStoreReader`` refines this protocol, so every back end provides it
/// and a records write can match subscriptions in the same transaction.
public protocol PushStoreReader {
    /// The subscriptions `subscriber` made in `database`, by ID.
    func subscriptions(in database: DatabaseKey, subscriber: String) throws -> [StoredSubscription]

    /// Every subscription of every subscriber in `database`, oldest first (for matching changes).
    func subscriptions(in database: DatabaseKey) throws -> [StoredSubscription]

    /// The push token, expired or not.
    func pushToken(_ token: String) throws -> PushTokenRow?
}

/// Subscription and push-queue write primitives, valid inside ``RecordStore/write(_:)``.
public protocol PushStoreWriter: PushStoreReader {
    /// Inserts or replaces a subscription (keyed by database, subscriber and ID).
    func putSubscription(_ subscription: StoredSubscription) throws

    /// Deletes a subscription; `false` if there was none.
    func deleteSubscription(id: String, in database: DatabaseKey, subscriber: String) throws -> Bool

    /// Stores a new, unbound push token.
    func createPushToken(_ token: PushTokenRow) throws

    /// Binds a live token to a user; `false` when the token does not exist or has expired.
    func bindPushToken(_ token: String, to user: String, now: Int64) throws -> Bool

    /// Removes tokens that expired at or before `now`, with their queued notifications; returns how many.
    func deleteExpiredPushTokens(now: Int64) throws -> Int

    /// The live tokens bound to `user` in a container environment.
    func pushTokens(of user: String, container: String, environment: Environment, now: Int64) throws -> [String]

    /// Appends a notification to a token's queue; past `maximumBacklog` the oldest is dropped and counted.
    func enqueueNotification(_ payload: [UInt8], token: String, maximumBacklog: Int) throws

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
    /// When it was created, in milliseconds since 1970.
    public var createdAt: Int64
    /// When it stops working, in milliseconds since 1970.
    public var expiresAt: Int64

    /// Creates a token row.
    public init(
        token: String, container: String, environment: Environment, apnsEnvironment: String, user: String?, createdAt: Int64,
        expiresAt: Int64
    ) {
        self.token = token
        self.container = container
        self.environment = environment
        self.apnsEnvironment = apnsEnvironment
        self.user = user
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
