public import Foundation
public import StratusLogging

/// How a ``Container`` sends requests: deadline, retries, clocks and logging.
///
/// ```swift
/// var configuration = ClientConfiguration()
/// configuration.requestTimeout = .seconds(10)
/// configuration.retryPolicy.maximumAttempts = 6
/// ```
public struct ClientConfiguration: Sendable {
    /// The total time one HTTP request may take (each retry gets its own).
    public var requestTimeout: Duration = .seconds(60)
    /// When and how failed requests are retried.
    public var retryPolicy = RetryPolicy()
    /// Waits between retries; tests inject one that records and returns at once.
    public var sleep: @Sendable (Duration) async throws -> Void = LiveEnvironment.sleep
    /// A random number in `0..<1` for backoff jitter.
    public var random: @Sendable () -> Double = LiveEnvironment.random
    /// The current date, used to sign server-to-server requests.
    public var now: @Sendable () -> Date = LiveEnvironment.now
    /// Where the SDK logs retries and failures.
    public var logger: Logger = .disabled

    /// Creates the default configuration.
    public init() {}
}

/// When failed requests are retried: exponential backoff with jitter, honouring `retryAfter`.
///
/// Retried: ``StratusError/Code/requestRateLimited`` and ``StratusError/Code/serviceUnavailable``
/// for every request; network failures and timeouts only for requests that change nothing
/// (lookups, queries, change feeds, listing). The wait before retry `n` (1-based) is the server's
/// `retryAfter` when given, else `initialBackoff × multiplier^(n-1)` capped at `maximumBackoff`,
/// randomised by ±`jitter`.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included; `1` disables retries.
    public var maximumAttempts = 4
    /// The wait before the first retry.
    public var initialBackoff: Duration = .milliseconds(200)
    /// The longest wait between attempts.
    public var maximumBackoff: Duration = .seconds(30)
    /// The growth factor of the wait.
    public var multiplier = 2.0
    /// The random spread of a computed wait, as a fraction (0.2 ⇒ ±20 %).
    public var jitter = 0.2
    /// A `retryAfter` longer than this is not waited for; the error goes to the caller.
    public var maximumRetryAfter: Duration = .seconds(120)

    /// Creates the default policy (4 attempts, 200 ms doubling to 30 s, ±20 % jitter).
    public init() {}

    /// A policy that never retries.
    public static var never: RetryPolicy {
        var policy = RetryPolicy()
        policy.maximumAttempts = 1
        return policy
    }

    /// The wait before retry `retry` (1-based), or `nil` when the policy gives up.
    ///
    /// - Parameters:
    ///   - retry: Which retry this would be (1 for the second attempt).
    ///   - retryAfter: The server's requested wait, if any.
    ///   - random: A number in `0..<1`.
    /// - Returns: How long to wait, or `nil` to stop.
    public func delay(beforeRetry retry: Int, retryAfter: Duration?, random: Double) -> Duration? {
        guard retry < maximumAttempts else { return nil }
        if let retryAfter {
            return retryAfter <= maximumRetryAfter ? retryAfter : nil
        }
        let exponential = initialBackoff.seconds * pow(multiplier, Double(retry - 1))
        let capped = min(exponential, maximumBackoff.seconds)
        let spread = capped * jitter * (random * 2 - 1)
        return .milliseconds(Int64((max(0, capped + spread) * 1000).rounded()))
    }
}
