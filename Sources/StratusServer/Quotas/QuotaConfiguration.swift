/// Request rates and storage quotas, with CloudKit-like defaults, configurable per container.
///
/// ```swift
/// var configuration = ServiceConfiguration(tokenSecret: secret)
/// configuration.quotas.defaults.requestsPerSecond = 100
/// configuration.quotas.containers["iCloud.com.example.Big"] = QuotaLimits(publicRecordBytes: 1 << 30)
/// ```
public struct QuotaConfiguration: Sendable {
    /// The limits of every container without an entry in ``containers``.
    public var defaults = QuotaLimits()
    /// Limits of particular containers, by identifier.
    public var containers: [String: QuotaLimits] = [:]
    /// The clock of the rate limiter in milliseconds since 1970; the service's clock when `nil`.
    public var now: (@Sendable () -> Int64)? = nil
    /// Requests per second that one client address may make whose credentials fail (or are missing
    /// where the operation needs them). Such requests never spend a container's budget; they
    /// spend their address's own bucket, and past it are answered 429 `THROTTLED` instead of 401.
    /// 10 by default; `nil` for no limit. Kept by each node.
    public var unauthenticatedRequestsPerSecond: Double? = 10
    /// Failed requests one address may make at once above ``unauthenticatedRequestsPerSecond``; 20 by default.
    public var unauthenticatedBurst: Double = 20

    /// The defaults everywhere.
    public init() {}

    /// The limits of `container`.
    public func limits(for container: String) -> QuotaLimits {
        containers[container] ?? defaults
    }
}

/// The request rate and storage quotas of one container.
public struct QuotaLimits: Hashable, Sendable {
    /// Requests per second per container (token bucket refill rate); CloudKit allows about 40.
    public var requestsPerSecond: Double
    /// Requests a container may make at once above the steady rate (the bucket holds
    /// `requestsPerSecond + burst` requests).
    public var burst: Double
    /// Bytes of record data (assets excluded) in each environment's public database.
    public var publicRecordBytes: Int64
    /// Bytes of assets referenced by records of each environment's public database.
    public var publicAssetBytes: Int64
    /// Bytes of record data and assets in each user's private database.
    public var privateBytesPerUser: Int64
    /// Requests per second of one client within the container — a signed-in user, an API token
    /// used alone, a server-to-server key, or in open mode a client address — so one client
    /// cannot spend the whole container budget; `nil` (the default) for no per-client bucket.
    ///
    /// ```swift
    /// configuration.quotas.defaults.clientRequestsPerSecond = 10   // each client 10/s of the container's 40/s
    /// ```
    public var clientRequestsPerSecond: Double?
    /// Requests one client may make at once above its steady rate; `nil` for as many as ``clientRequestsPerSecond``.
    public var clientBurst: Double?

    /// Creates limits; the defaults are CloudKit's: 40 requests/s plus a burst of 40, public database
    /// 100 MB of records and 10 GB of assets, 1 GB per user's private database.
    /// Per-client buckets are off unless `clientRequestsPerSecond` is given.
    public init(
        requestsPerSecond: Double = 40, burst: Double = 40, publicRecordBytes: Int64 = 100 << 20,
        publicAssetBytes: Int64 = 10 << 30, privateBytesPerUser: Int64 = 1 << 30,
        clientRequestsPerSecond: Double? = nil, clientBurst: Double? = nil
    ) {
        self.requestsPerSecond = requestsPerSecond
        self.burst = burst
        self.publicRecordBytes = publicRecordBytes
        self.publicAssetBytes = publicAssetBytes
        self.privateBytesPerUser = privateBytesPerUser
        self.clientRequestsPerSecond = clientRequestsPerSecond
        self.clientBurst = clientBurst
    }

    /// Limits no test or development server reaches.
    public static let unlimited = QuotaLimits(
        requestsPerSecond: 1_000_000_000, burst: 1_000_000_000, publicRecordBytes: .max / 4, publicAssetBytes: .max / 4,
        privateBytesPerUser: .max / 4
    )
}
