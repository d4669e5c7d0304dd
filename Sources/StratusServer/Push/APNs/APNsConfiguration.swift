/// How pushes go to Apple's push service: where, how fast, how often again, and the limits.
///
/// Credentials are per container environment and live in the store (`stratus push apns set`);
/// this is the server's side of it (design note 0013).
///
/// ```swift
/// var configuration = ServiceConfiguration(tokenSecret: secret)
/// configuration.push.apns.endpoint = "https://127.0.0.1:8443"   // a test server or a proxy
/// configuration.push.apns.retryBaseDelay = .milliseconds(100)
/// ```
public struct APNsConfiguration: Sendable {
    /// The provider API of the production service.
    public static let productionEndpoint = "https://api.push.apple.com"
    /// The provider API of the sandbox (development) service.
    public static let sandboxEndpoint = "https://api.sandbox.push.apple.com"

    /// Sends every push here instead of Apple's host for the token's environment (`--apns-endpoint`):
    /// `https://host[:port]`, for tests and proxies.
    public var endpoint: String?
    /// How long one provider token (JWT) is used before a new one is signed. Apple refuses tokens
    /// older than an hour and refreshes more often than every 20 minutes; kept within 20…59 min.
    public var providerTokenLifetime: Duration = .seconds(50 * 60)
    /// The most pushes in flight at once on this node; more wait in the queue (in the store).
    public var maximumInFlight = 256
    /// The most pushes one claim takes from the queue.
    public var claimBatchSize = 64
    /// How long a claimed push stays reserved for this node; past it (a node that died) any node may send it.
    public var lease: Duration = .seconds(60)
    /// The deadline of one request to APNs.
    public var requestTimeout: Duration = .seconds(10)
    /// The first wait before retrying a push APNs answered 429 or 5xx (or did not answer); doubled each
    /// attempt, up to ``retryMaximumDelay``, and jittered (a random 50–100 % of it).
    public var retryBaseDelay: Duration = .seconds(1)
    /// The longest wait between attempts.
    public var retryMaximumDelay: Duration = .seconds(300)
    /// Attempts before a push is given up (counted as failed).
    public var maximumAttempts = 10
    /// The most APNs device tokens one user keeps per container environment (`--max-apns-tokens-per-user`);
    /// registering another removes that user's least recently registered one.
    public var maximumDeviceTokensPerUser = 20
    /// The most pushes queued per device token; past it the oldest are dropped (APNs itself keeps
    /// only the last push for a device that is offline).
    public var maximumQueuedPerToken = 100
    /// How often each node looks for pushes due again (retries, and leases of nodes that stopped).
    public var sweepInterval: Duration = .seconds(5)
    /// Now, in milliseconds since 1970: the provider tokens' `iat`, leases and retry times. The real
    /// clock by default (APNs checks `iat` against its own), separate from the service's clock.
    public var now: @Sendable () -> Int64 = LiveClock.milliseconds
    /// A random number in `0..<1`, for jitter.
    public var random: @Sendable () -> Double = { Double.random(in: 0..<1) }

    /// The defaults.
    public init() {}

    /// The base URL pushes for a token of `environment` go to.
    public func baseURL(for environment: String) -> String {
        if var endpoint {
            while endpoint.hasSuffix("/") { endpoint.removeLast() }
            return endpoint
        }
        return environment == "production" ? Self.productionEndpoint : Self.sandboxEndpoint
    }

    /// ``providerTokenLifetime`` in milliseconds, kept within Apple's window (20 to 59 minutes).
    var providerTokenLifetimeMilliseconds: Int64 {
        let (seconds, _) = providerTokenLifetime.components
        return min(max(seconds, 20 * 60), 59 * 60) * 1000
    }
}
