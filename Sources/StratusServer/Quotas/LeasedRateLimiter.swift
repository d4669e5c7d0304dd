import StratusLogging
import Synchronization

/// A container's request rate across every node: tokens come from a bucket in the shared
/// store (``SharedRateBuckets``), taken a few at a time and spent locally, so a node reaches
/// the store about once per lease rather than once per request.
///
/// A lease is a tenth of the bucket's capacity (at least 1, at most 100) and lasts one second;
/// tokens a node leased but did not spend in that time are lost, which can only make the
/// limit stricter, by at most one lease per node per second. When the store cannot be
/// reached, the node falls back to its own bucket (``RateLimiter``) rather than refusing or
/// admitting everything.
final class LeasedRateLimiter: RequestRateLimiter {
    private struct Lease {
        var tokens: Int
        var expires: Int64
    }

    private let shared: any SharedRateBuckets
    private let fallback = RateLimiter()
    private let leases = Mutex<[String: Lease]>([:])
    private let logger: Logger
    /// How long leased tokens may be spent, in milliseconds.
    static let leaseLifetime: Int64 = 1000
    private let maximumEntries = 10_000

    init(shared: any SharedRateBuckets, logger: Logger) {
        self.shared = shared
        self.logger = logger
    }

    /// How many tokens one lease asks for.
    static func leaseSize(_ limits: QuotaLimits) -> Int {
        let capacity = max(limits.requestsPerSecond + limits.burst, 1)
        return Int(min(100, max(1, (capacity / 10).rounded(.down))))
    }

    func admit(_ key: String, limits: QuotaLimits, now: Int64) async -> Int? {
        // Limits no one reaches (tests, `--requests-per-second 0`) cost nothing.
        if limits.requestsPerSecond >= QuotaLimits.unlimited.requestsPerSecond { return nil }
        if spendLeased(key, now: now) { return nil }
        let lease: RateLease
        do {
            lease = try await shared.takeTokens(upTo: Self.leaseSize(limits), key: key, limits: limits, now: now)
        } catch {
            logger.warning("shared rate bucket unavailable; limiting on this node alone", metadata: ["error": "\(error)"])
            return fallback.admit(key, limits: limits, now: now)
        }
        guard lease.granted > 0 else {
            let rate = max(limits.requestsPerSecond, 0.001)
            return max(1, Int(((1 - lease.remaining) / rate).rounded(.up)))
        }
        leases.withLock { table in
            if table.count >= maximumEntries { table = table.filter { $0.value.expires > now && $0.value.tokens > 0 } }
            var current = table[key].flatMap { $0.expires > now ? $0 : nil } ?? Lease(tokens: 0, expires: now + Self.leaseLifetime)
            current.tokens += lease.granted - 1
            current.expires = now + Self.leaseLifetime
            table[key] = current
        }
        return nil
    }

    /// Puts the token back into `key`'s unexpired lease (or the fallback bucket), so a request a
    /// client bucket refused spends none of the container's budget on this node.
    func refund(_ key: String, limits: QuotaLimits) {
        let returned = leases.withLock { table in
            guard var lease = table[key] else { return false }
            lease.tokens += 1
            table[key] = lease
            return true
        }
        if !returned { fallback.refund(key, limits: limits) }
    }

    /// Spends one leased token of `key` if an unexpired lease has one.
    private func spendLeased(_ key: String, now: Int64) -> Bool {
        leases.withLock { table in
            guard var lease = table[key], lease.tokens > 0, lease.expires > now else { return false }
            lease.tokens -= 1
            table[key] = lease
            return true
        }
    }
}
