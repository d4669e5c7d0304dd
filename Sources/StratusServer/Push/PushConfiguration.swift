/// How push delivery behaves: web courier tokens, long-polls and queues.
///
/// ```swift
/// var configuration = ServiceConfiguration(tokenSecret: secret)
/// configuration.push.pollTimeout = .seconds(10)
/// configuration.push.maximumBacklog = 1000
/// ```
public struct PushConfiguration: Sendable {
    /// How long a token from `tokens/create` lives, in seconds (`ttl` of the courier URL); 12 hours like Apple's.
    public var tokenLifetime: Int64 = 43_200
    /// How long a courier long-poll waits before answering with an empty body.
    public var pollTimeout: Duration = .seconds(30)
    /// The most notifications kept per token; past it the oldest are dropped and a resync marker is owed.
    public var maximumBacklog = 500
    /// A new notification ID (`ck.nid`).
    public var makeNotificationID: @Sendable () -> String = LiveClock.uuidString
    /// A new courier token.
    public var makeToken: @Sendable () throws -> String = PushTokens.random

    /// The defaults.
    public init() {}
}
