import StratusServer

extension ServeCommand {
    /// The flags of the push limits (design note 0007).
    static let pushFlags: Set<String> = ["max-subscriptions-per-user", "max-push-tokens-per-user", "max-parked-polls-per-user", "max-parked-polls"]

    /// Reads `--max-subscriptions-per-user`, `--max-push-tokens-per-user`, `--max-parked-polls-per-user`
    /// and `--max-parked-polls` (or their `STRATUS_*` variables) into `push`; defaults are the library's.
    ///
    /// - Throws: ``CLIError`` naming the flag when a value is not a whole number in range.
    static func applyPushLimits(_ options: Options, to push: inout PushConfiguration) throws {
        push.maximumSubscriptionsPerUser = try options.integer(
            "max-subscriptions-per-user", default: push.maximumSubscriptionsPerUser, in: 1...1_000_000
        )
        push.maximumTokensPerUser = try options.integer("max-push-tokens-per-user", default: push.maximumTokensPerUser, in: 1...1_000_000)
        push.maximumParkedPollsPerUser = try options.integer(
            "max-parked-polls-per-user", default: push.maximumParkedPollsPerUser, in: 1...1_000_000
        )
        push.maximumParkedPolls = try options.integer("max-parked-polls", default: push.maximumParkedPolls, in: 1...1_000_000)
    }
}
