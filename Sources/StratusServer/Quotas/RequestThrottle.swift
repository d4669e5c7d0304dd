import StratusHTTP
import StratusLogging
import StratusWire

/// The request budgets of one node (design note 0017): each container's (shared by every node
/// when the store keeps rate buckets), each client's within a container, and each client
/// address's for requests whose credentials fail.
final class RequestThrottle: Sendable {
    private let quotas: QuotaConfiguration
    private let now: @Sendable () -> Int64
    /// Request budgets per container: shared by every node when the store keeps rate buckets.
    private let rateLimiter: any RequestRateLimiter
    /// Buckets of clients within containers (``QuotaLimits/clientRequestsPerSecond``), a table of
    /// their own, kept by each node (per-client limits are node-local; the container's is shared).
    private let clientRateLimiter = RateLimiter()
    /// Buckets of client addresses whose credentials fail (``QuotaConfiguration/unauthenticatedRequestsPerSecond``), per node.
    private let addressRateLimiter = RateLimiter()

    /// Creates the budgets.
    ///
    /// - Parameters:
    ///   - configuration: The quotas; its clock, else the service's.
    ///   - sharing: Whether the containers' buckets are kept by the store, for every node.
    init(configuration: ServiceConfiguration, sharing: RateBucketSharing, logger: Logger) {
        quotas = configuration.quotas
        now = configuration.quotas.now ?? configuration.now
        switch sharing {
        case .perNode: rateLimiter = RateLimiter()
        case .shared(let buckets): rateLimiter = LeasedRateLimiter(shared: buckets, logger: logger)
        }
    }

    /// Takes one request from the container's rate budget (shared by every node when the store keeps rate buckets).
    ///
    /// - Throws: `THROTTLED` (429) with `retryAfter` in seconds past the container's rate.
    func throttle(container: String) async throws(ServiceError) {
        let limits = quotas.limits(for: container)
        if let wait = await rateLimiter.admit(container, limits: limits, now: now()) {
            throw ServiceError(
                .throttled,
                "container '\(container)' is over its limit of \(Self.rate(limits.requestsPerSecond)) requests per second; retry after \(wait) s",
                retryAfter: wait
            )
        }
    }

    /// Takes one request from the client's own rate budget in the container, when
    /// ``QuotaLimits/clientRequestsPerSecond`` is set; a refused request gives its token back to
    /// the container's bucket, so a client over its rate cannot spend the others' budget.
    ///
    /// - Throws: `THROTTLED` (429) with `retryAfter` in seconds past the client's rate.
    func throttle(client principal: Principal, of request: HTTPRequest, container: String) throws(ServiceError) {
        let limits = quotas.limits(for: container)
        guard let rate = limits.clientRequestsPerSecond else { return }
        let (key, who) = Self.client(principal, request)
        guard let wait = clientRateLimiter.admit(container + "\u{0}" + key, requestsPerSecond: rate, burst: limits.clientBurst ?? rate, now: now()) else {
            return
        }
        rateLimiter.refund(container, limits: limits)
        throw ServiceError(
            .throttled,
            "\(who) is over its limit of \(Self.rate(rate)) requests per second in container '\(container)'; retry after \(wait) s",
            retryAfter: wait
        )
    }

    /// Charges a request whose credentials failed (or were missing where the operation needs
    /// them) to its client address's own bucket — never to a container's, so a flood without
    /// credentials cannot lock the container's users out — and returns the error to answer:
    /// `error` itself, or `THROTTLED` (429) once the address is over
    /// ``QuotaConfiguration/unauthenticatedRequestsPerSecond``.
    func chargeFailedAuthentication(_ request: HTTPRequest, _ error: ServiceError) -> ServiceError {
        guard let rate = quotas.unauthenticatedRequestsPerSecond else { return error }
        let address = request.remoteAddress ?? "unknown"
        guard let wait = addressRateLimiter.admit(address, requestsPerSecond: rate, burst: quotas.unauthenticatedBurst, now: now()) else {
            return error
        }
        return ServiceError(
            .throttled,
            "client address '\(address)' is over its limit of \(Self.rate(rate)) requests per second without valid credentials; retry after \(wait) s",
            retryAfter: wait
        )
    }

    /// The bucket key of a client and how the error names it (never by its secret).
    private static func client(_ principal: Principal, _ request: HTTPRequest) -> (key: String, name: String) {
        switch principal {
        case .user(let userRecordName, _, _): ("user " + userRecordName, "user '\(userRecordName)'")
        case .anonymous(let apiToken): ("token " + apiToken, "this API token")
        case .serverKey(let keyID, _): ("key " + keyID, "server-to-server key '\(keyID)'")
        case .openMode:
            // Every open-mode request is the same user: the socket's address tells clients apart.
            ("address " + (request.remoteAddress ?? "unknown"), "client address '\(request.remoteAddress ?? "unknown")'")
        }
    }

    private static func rate(_ value: Double) -> String {
        value == value.rounded() && value < 1e15 ? String(Int64(value)) : String(value)
    }
}
