public import StratusWire

/// APNs read primitives, valid inside a store transaction: credentials and device tokens.
///
/// ``RecordStoreReader`` refines this protocol, so every back end provides it (design note 0013).
public protocol APNsStoreReader {
    /// The APNs credentials of a container environment, if an operator set them.
    func apnsCredentials(container: String, environment: Environment) throws -> APNsCredentials?

    /// Every container environment's APNs credentials, by container then environment.
    func allAPNsCredentials() throws -> [APNsCredentials]

    /// The APNs device tokens `user` registered in a container environment, oldest registration first.
    func apnsDeviceTokens(of user: String, container: String, environment: Environment) throws -> [APNsDeviceToken]
}

/// APNs write primitives, valid inside ``RecordStore/write(_:)``: credentials, device tokens and the delivery queue.
///
/// The queue is durable: fan-out appends a row per device in its own transaction, and a node
/// deletes the row only once APNs answered it, so a crash between the two loses nothing. Rows
/// are claimed with a lease, so that of several nodes sharing a database only one sends each.
public protocol APNsStoreWriter: APNsStoreReader {
    /// Sets (inserts or replaces) a container environment's credentials.
    func putAPNsCredentials(_ credentials: APNsCredentials) throws

    /// Removes a container's credentials, in one environment or (`nil`) both; returns how many were removed.
    func deleteAPNsCredentials(container: String, environment: Environment?) throws -> Int

    /// Registers a device token to `token.owner` — moving it from any other user of that container
    /// environment, since a device has one signed-in user, and then dropping the pushes still queued
    /// for the previous user — and keeps at most `maximumPerUser` tokens
    /// of that user there, removing the least recently registered beyond it (with their queued pushes).
    ///
    /// - Returns: How many of the user's older tokens were removed to make room.
    func registerAPNsDeviceToken(_ token: APNsDeviceToken, maximumPerUser: Int) throws -> Int

    /// Removes a device token APNs declared invalid, with its queued pushes, unless it was registered
    /// again after `invalidSince` (APNs' `timestamp`, milliseconds since 1970).
    ///
    /// - Returns: Whether the token was removed.
    func deleteAPNsDeviceToken(
        _ token: String, apnsEnvironment: APNsEnvironment, container: String, environment: Environment, invalidSince: Int64
    ) throws -> Bool

    /// Appends pushes to the delivery queue; each token keeps at most `maximumPerToken` queued,
    /// the oldest beyond it being dropped.
    ///
    /// With `leasing`, the first `leasing.limit` of them are claimed at once for the caller (leased
    /// until `leasing.until`, their first attempt counted), as ``claimAPNsPushes(limit:now:leaseUntil:)``
    /// would: fan-out hands them to this node's sender without another transaction.
    ///
    /// - Returns: How many queued pushes were dropped, and the pushes leased (that were not).
    func enqueueAPNsPushes(_ pushes: [NewAPNsPush], maximumPerToken: Int, leasing: APNsLease?) throws -> APNsEnqueued

    /// Claims up to `limit` pushes that are due (`notBefore` and any earlier lease passed), oldest
    /// first, leasing them until `leaseUntil` and counting the attempt; rows another transaction
    /// is claiming are skipped.
    func claimAPNsPushes(limit: Int, now: Int64, leaseUntil: Int64) throws -> [APNsPush]

    /// Deletes pushes that are done with (delivered, or failed for good).
    func finishAPNsPushes(_ ids: [Int64]) throws

    /// Releases a claimed push to be tried again at `notBefore`.
    func deferAPNsPush(_ id: Int64, notBefore: Int64) throws
}

/// A device token an app got from `registerForRemoteNotifications` and registered with `tokens/register`.
public struct APNsDeviceToken: Hashable, Sendable {
    /// The token, as lowercase hexadecimal.
    public var token: String
    /// The container it was registered in.
    public var container: String
    /// The CloudKit environment it was registered in.
    public var environment: Environment
    /// Which APNs service the token belongs to (sandbox for `development`).
    public var apnsEnvironment: APNsEnvironment
    /// The user whose pushes it receives.
    public var owner: String
    /// When it was last registered, in milliseconds since 1970.
    public var registeredAt: Int64

    /// Creates a device token row.
    public init(
        token: String, container: String, environment: Environment, apnsEnvironment: APNsEnvironment, owner: String, registeredAt: Int64
    ) {
        self.token = token
        self.container = container
        self.environment = environment
        self.apnsEnvironment = apnsEnvironment
        self.owner = owner
        self.registeredAt = registeredAt
    }
}

/// What kind of push APNs is asked to deliver (`apns-push-type`).
public enum APNsPushType: String, Hashable, Sendable {
    /// A silent push that wakes the app (`content-available: 1`), priority 5.
    case background
    /// A push that shows an alert, plays a sound or sets the badge, priority 10.
    case alert
}

/// A push fan-out appends to the delivery queue.
public struct NewAPNsPush: Hashable, Sendable {
    /// The device token.
    public var token: String
    /// The container the notification is about.
    public var container: String
    /// The CloudKit environment (whose credentials sign it).
    public var environment: Environment
    /// The APNs service the token belongs to.
    public var apnsEnvironment: APNsEnvironment
    /// The JSON body.
    public var payload: [UInt8]
    /// `apns-push-type`.
    public var pushType: APNsPushType
    /// When it was queued, in milliseconds since 1970.
    public var createdAt: Int64

    /// Creates a queued push.
    public init(
        token: String, container: String, environment: Environment, apnsEnvironment: APNsEnvironment, payload: [UInt8],
        pushType: APNsPushType, createdAt: Int64
    ) {
        self.token = token
        self.container = container
        self.environment = environment
        self.apnsEnvironment = apnsEnvironment
        self.payload = payload
        self.pushType = pushType
        self.createdAt = createdAt
    }
}

/// A push claimed from the delivery queue.
public struct APNsPush: Hashable, Sendable {
    /// The queue row.
    public var id: Int64
    /// What to send.
    public var push: NewAPNsPush
    /// Attempts so far, this one included.
    public var attempts: Int

    /// Creates a claimed push.
    public init(id: Int64, push: NewAPNsPush, attempts: Int) {
        self.id = id
        self.push = push
        self.attempts = attempts
    }
}

/// Pushes a transaction that queues them claims at once for its node's sender.
public struct APNsLease: Hashable, Sendable {
    /// The most to claim.
    public var limit: Int
    /// Until when, in milliseconds since 1970.
    public var until: Int64

    /// Creates a lease.
    public init(limit: Int, until: Int64) {
        self.limit = limit
        self.until = until
    }
}

/// What ``APNsStoreWriter/enqueueAPNsPushes(_:maximumPerToken:leasing:)`` did.
public struct APNsEnqueued: Hashable, Sendable {
    /// Queued pushes dropped past the per-token limit.
    public var dropped: Int
    /// The new pushes leased to the caller, oldest first.
    public var leased: [APNsPush]

    /// Creates a result.
    public init(dropped: Int, leased: [APNsPush]) {
        self.dropped = dropped
        self.leased = leased
    }

    /// The result of inserting `pushes` as rows `ids` (in the same order) and then dropping rows
    /// `dropped` past the per-token limit: the first `leasing.limit` pushes that were not dropped
    /// are leased, with their first attempt counted.
    public init(inserted ids: [Int64], pushes: [NewAPNsPush], dropped: Set<Int64>, leasing: APNsLease?) {
        self.dropped = dropped.count
        self.leased = zip(ids, pushes).prefix(leasing?.limit ?? 0).filter { !dropped.contains($0.0) }.map {
            APNsPush(id: $0.0, push: $0.1, attempts: 1)
        }
    }
}
