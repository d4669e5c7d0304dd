import StratusHTTP
import StratusWire

extension CloudKitService {
    /// Takes one request from the container's rate budget (shared by every node when the store keeps rate buckets).
    ///
    /// - Throws: `THROTTLED` (429) with `retryAfter` in seconds past the container's rate.
    func throttle(container: String) async throws(ServiceError) {
        let limits = configuration.quotas.limits(for: container)
        let now = configuration.quotas.now?() ?? configuration.now()
        if let wait = await rateLimiter.admit(container, limits: limits, now: now) {
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
        let limits = configuration.quotas.limits(for: container)
        guard let rate = limits.clientRequestsPerSecond else { return }
        let now = configuration.quotas.now?() ?? configuration.now()
        let (key, who) = Self.client(principal, request)
        guard let wait = clientRateLimiter.admit(container + "\u{0}" + key, requestsPerSecond: rate, burst: limits.clientBurst ?? rate, now: now) else {
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
        guard let rate = configuration.quotas.unauthenticatedRequestsPerSecond else { return error }
        let now = configuration.quotas.now?() ?? configuration.now()
        let address = request.remoteAddress ?? "unknown"
        guard let wait = addressRateLimiter.admit(address, requestsPerSecond: rate, burst: configuration.quotas.unauthenticatedBurst, now: now) else {
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

    /// Counts the usage `changes` add to `zone` and refuses them, inside the write transaction,
    /// when they would take the database past its quota. Only growth is refused: a write that
    /// frees space always passes.
    ///
    /// - Throws: `QUOTA_EXCEEDED` (413); the transaction then rolls back whole.
    static func account(
        _ changes: [RecordChange], zone: ZoneRow, database: DatabaseKey, limits: QuotaLimits, _ tx: any RecordStoreWriter
    ) throws {
        guard !changes.isEmpty else { return }
        let counters = tx
        var delta = StorageUsage.zero
        for change in changes {
            delta = delta + RecordUsage.of(change.after) - RecordUsage.of(change.before)
        }
        if delta == .zero { return }
        let limited: Bool
        switch database.scope {
        case .public: limited = limits.publicRecordBytes < QuotaLimits.unlimited.publicRecordBytes || limits.publicAssetBytes < QuotaLimits.unlimited.publicAssetBytes
        default: limited = limits.privateBytesPerUser < QuotaLimits.unlimited.privateBytesPerUser
        }
        // Only growth is checked, and only against a real limit; the counters move either way.
        if limited, delta.recordBytes > 0 || delta.assetBytes > 0 {
            let usage = try counters.usage(of: database) + delta
            switch database.scope {
            case .public:
                if delta.recordBytes > 0, usage.recordBytes > limits.publicRecordBytes {
                    throw quotaExceeded("the public database's records", usage.recordBytes, limits.publicRecordBytes)
                }
                if delta.assetBytes > 0, usage.assetBytes > limits.publicAssetBytes {
                    throw quotaExceeded("the public database's assets", usage.assetBytes, limits.publicAssetBytes)
                }
            default:
                let total = usage.recordBytes + usage.assetBytes
                if total > limits.privateBytesPerUser {
                    throw quotaExceeded("the private database of user '\(database.owner)'", total, limits.privateBytesPerUser)
                }
            }
        }
        try counters.addUsage(delta, zoneRowID: zone.rowID)
    }

    private static func quotaExceeded(_ what: String, _ bytes: Int64, _ limit: Int64) -> ServiceError {
        ServiceError(.quotaExceeded, "this write would take \(what) to \(bytes) bytes; the quota is \(limit) bytes; nothing was written")
    }
}
