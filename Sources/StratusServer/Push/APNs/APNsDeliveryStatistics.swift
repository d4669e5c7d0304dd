import StratusMetrics

/// What APNs delivery did on this node so far.
public struct APNsDeliveryStatistics: Hashable, Sendable {
    /// Pushes APNs accepted.
    public var sent = 0
    /// Pushes given up: refused by APNs, out of attempts, without credentials, too large.
    public var failed = 0
    /// Sends repeated: after 429, 5xx, no answer, or an expired provider token.
    public var retried = 0
    /// Device tokens removed because APNs called them invalid (410, `BadDeviceToken`, `Unregistered`).
    public var tokensRemoved = 0
    /// Provider tokens signed anew after APNs called one expired.
    public var providerTokenRefreshes = 0
    /// Pushes fan-out leased to this node in its own transaction and handed over to send at once,
    /// without a claim of their own.
    public var handedOver = 0

    /// No deliveries yet.
    public init() {}
}

/// The Prometheus counters of APNs delivery (`stratus_apns_pushes_total` by outcome,
/// `stratus_apns_tokens_removed_total`); no-ops without a registry.
struct APNsMetrics: Sendable {
    private let sent: Counter?
    private let failed: Counter?
    private let retried: Counter?
    private let tokensRemoved: Counter?

    init(_ registry: MetricsRegistry?) {
        let help = "Pushes to APNs by outcome: sent (accepted), failed (given up), retried (sent again)."
        sent = registry?.counter("stratus_apns_pushes_total", help: help, labels: ["outcome": "sent"])
        failed = registry?.counter("stratus_apns_pushes_total", help: help, labels: ["outcome": "failed"])
        retried = registry?.counter("stratus_apns_pushes_total", help: help, labels: ["outcome": "retried"])
        tokensRemoved = registry?.counter(
            "stratus_apns_tokens_removed_total", help: "APNs device tokens removed because APNs called them invalid."
        )
    }

    /// Adds one settled batch's counts.
    func record(_ delta: APNsDeliveryStatistics) {
        if delta.sent > 0 { sent?.increment(by: Int64(delta.sent)) }
        if delta.failed > 0 { failed?.increment(by: Int64(delta.failed)) }
        if delta.retried > 0 { retried?.increment(by: Int64(delta.retried)) }
        if delta.tokensRemoved > 0 { tokensRemoved?.increment(by: Int64(delta.tokensRemoved)) }
    }
}

extension APNsDeliveryStatistics {
    /// Both counts added.
    static func + (lhs: APNsDeliveryStatistics, rhs: APNsDeliveryStatistics) -> APNsDeliveryStatistics {
        var sum = lhs
        sum.sent += rhs.sent
        sum.failed += rhs.failed
        sum.retried += rhs.retried
        sum.tokensRemoved += rhs.tokensRemoved
        sum.providerTokenRefreshes += rhs.providerTokenRefreshes
        sum.handedOver += rhs.handedOver
        return sum
    }
}
