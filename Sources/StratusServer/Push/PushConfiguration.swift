/// How push delivery behaves: web courier tokens, long-polls, queues and their limits.
///
/// The limits bound what one user can make the server hold or do (design note 0007): the
/// subscriptions a write is matched against, the tokens notifications are copied to, the
/// long-polls parked on the courier.
///
/// ```swift
/// var configuration = ServiceConfiguration(tokenSecret: secret)
/// configuration.push.pollTimeout = .seconds(10)
/// configuration.push.maximumBacklog = 1000
/// configuration.push.maximumSubscriptionsPerUser = 500
/// ```
public struct PushConfiguration: Sendable {
    /// How long a token from `tokens/create` lives, in seconds (`ttl` of the courier URL); 12 hours like Apple's.
    public var tokenLifetime: Int64 = 43_200
    /// How long a courier long-poll waits before answering with an empty body.
    public var pollTimeout: Duration = .seconds(30)
    /// The most notifications kept per token; past it the oldest are dropped and a resync marker is owed.
    public var maximumBacklog = 500
    /// The most subscriptions one user may have in one database; past it `subscriptions/modify`
    /// refuses new ones with `QUOTA_EXCEEDED` (`stratus serve --max-subscriptions-per-user`).
    public var maximumSubscriptionsPerUser = 200
    /// The most live courier tokens one user may hold in a container environment; past it
    /// `tokens/create` answers `QUOTA_EXCEEDED` (`--max-push-tokens-per-user`).
    public var maximumTokensPerUser = 100
    /// The most long-polls one user may have parked at once (over all their tokens); past it a
    /// poll is answered at once with 429 `THROTTLED` (`--max-parked-polls-per-user`). A new poll
    /// on a token replaces the token's parked one, so a reconnecting client never meets this.
    public var maximumParkedPollsPerUser = 16
    /// The most long-polls parked at once on this node; past it a poll is answered at once with
    /// 503 `TRY_AGAIN_LATER` (`--max-parked-polls`). Keep it well below the transport's connection limit.
    public var maximumParkedPolls = 2_000
    /// The `retryAfter` (seconds) of a poll refused by a limit.
    public var parkedPollRetryAfter = 5
    /// The most candidate subscriptions one fan-out transaction evaluates (it also stops after
    /// queueing this many notifications), so fan-out holds the store's writer only briefly.
    public var fanoutBatchSize = 500
    /// How often each node looks for outbox entries nobody is fanning out (left by a node that
    /// stopped between a commit and its fan-out).
    public var outboxSweepInterval: Duration = .seconds(5)
    /// Delivery through Apple's push service to device tokens (design note 0013).
    public var apns = APNsConfiguration()
    /// A new notification ID (`ck.nid`).
    public var makeNotificationID: @Sendable () -> String = LiveClock.uuidString
    /// A new courier token.
    public var makeToken: @Sendable () throws -> String = PushTokens.random

    /// The defaults.
    public init() {}
}
