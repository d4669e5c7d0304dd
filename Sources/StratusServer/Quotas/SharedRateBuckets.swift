/// Request-rate buckets every node of a cluster shares, kept by the store: a ``RecordStore``
/// offers them through ``RecordStore/rateBucketSharing`` (the PostgreSQL store does). With them,
/// a container's request rate holds across nodes; without them, each node counts alone.
///
/// Nodes do not ask for every request: ``LeasedRateLimiter`` takes tokens in small batches
/// (leases) and spends them locally (Documentation/0008-postgres.md).
///
/// ```swift
/// let lease = try await buckets.takeTokens(upTo: 8, key: "iCloud.com.example.Notes", limits: limits, now: now)
/// if lease.granted == 0 { /* throttled */ }
/// ```
public protocol SharedRateBuckets: Sendable {
    /// Refills `key`'s bucket at `limits.requestsPerSecond` for the time since it was last
    /// touched (up to `requestsPerSecond + burst`), then takes up to `count` whole tokens.
    ///
    /// - Parameters:
    ///   - count: The most tokens to take.
    ///   - key: The bucket, a container identifier.
    ///   - limits: The rate and burst.
    ///   - now: Milliseconds since 1970 (the bucket never goes back in time).
    /// - Returns: The tokens taken and the tokens left in the bucket.
    func takeTokens(upTo count: Int, key: String, limits: QuotaLimits, now: Int64) async throws -> RateLease
}

/// How a ``RecordStore`` keeps request-rate buckets.
///
/// ```swift
/// func isShared(_ store: any RecordStore) -> Bool {
///     switch store.rateBucketSharing {
///     case .perNode: false  // this node counts its own requests
///     case .shared: true  // every node draws from the store's buckets
///     }
/// }
/// ```
public enum RateBucketSharing: Sendable {
    /// The store keeps none: each node counts its requests alone (a single-node store, such as SQLite).
    case perNode
    /// Every node draws from the store's buckets.
    case shared(any SharedRateBuckets)
}

/// What ``SharedRateBuckets/takeTokens(upTo:key:limits:now:)`` took.
///
/// ```swift
/// let lease = RateLease(granted: 0, remaining: 0.4)  // empty: retry in (1 - 0.4) / rate seconds
/// ```
public struct RateLease: Hashable, Sendable {
    /// Whole tokens taken, at most the count asked for.
    public var granted: Int
    /// Tokens left in the shared bucket (fractional while refilling).
    public var remaining: Double

    /// Creates a lease.
    public init(granted: Int, remaining: Double) {
        self.granted = granted
        self.remaining = remaining
    }
}

/// Admits or throttles one request of a container.
protocol RequestRateLimiter: Sendable {
    /// Takes a token from `key`'s budget; returns the whole seconds to wait when there is none.
    func admit(_ key: String, limits: QuotaLimits, now: Int64) async -> Int?
    /// Gives back the token an admitted request took, when a later check refused the request.
    func refund(_ key: String, limits: QuotaLimits)
}

extension RateLimiter: RequestRateLimiter {}
