import Synchronization

/// Token buckets per key (a container, or a client within a container): each request takes one
/// token; tokens come back at the configured rate up to the bucket's capacity (rate + burst).
///
/// Buckets live in memory, a restart refills them. The table is bounded: full buckets are
/// dropped first when it grows past its limit, as they hold no state worth keeping.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Int64
    }

    private let buckets = Mutex<[String: Bucket]>([:])
    private let maximumEntries = 10_000

    /// Takes a token from `key`'s bucket; returns the whole seconds to wait when it is empty.
    func admit(_ key: String, limits: QuotaLimits, now: Int64) -> Int? {
        admit(key, requestsPerSecond: limits.requestsPerSecond, burst: limits.burst, now: now)
    }

    /// Takes a token from `key`'s bucket of `requestsPerSecond` plus `burst`; returns the whole
    /// seconds to wait when it is empty.
    func admit(_ key: String, requestsPerSecond: Double, burst: Double, now: Int64) -> Int? {
        let rate = max(requestsPerSecond, 0.001)
        let capacity = max(requestsPerSecond + burst, 1)
        return buckets.withLock { table -> Int? in
            var bucket = table[key] ?? Bucket(tokens: capacity, updated: now)
            let elapsed = Double(max(0, now - bucket.updated)) / 1000
            bucket.tokens = min(capacity, bucket.tokens + elapsed * rate)
            bucket.updated = now
            defer { Self.store(bucket, key: key, in: &table, capacity: capacity, now: now, rate: rate, maximum: maximumEntries) }
            guard bucket.tokens >= 1 else {
                return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
            }
            bucket.tokens -= 1
            return nil
        }
    }

    /// Gives back the token a request took from `key`'s bucket (a request refused later, by
    /// another bucket, does not spend this one), up to the bucket's capacity.
    func refund(_ key: String, limits: QuotaLimits) {
        let capacity = max(limits.requestsPerSecond + limits.burst, 1)
        buckets.withLock { table in
            guard var bucket = table[key] else { return }
            bucket.tokens = min(capacity, bucket.tokens + 1)
            table[key] = bucket
        }
    }

    private static func store(
        _ bucket: Bucket, key: String, in table: inout [String: Bucket], capacity: Double, now: Int64, rate: Double, maximum: Int
    ) {
        if table[key] == nil, table.count >= maximum {
            table = table.filter { $0.value.tokens + Double(now - $0.value.updated) / 1000 * rate < capacity }
        }
        table[key] = bucket
    }
}
