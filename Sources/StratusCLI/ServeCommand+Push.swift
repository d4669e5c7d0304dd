import Foundation
import StratusLogging
import StratusMetrics
import StratusServer
import StratusServerAPNs

extension ServeCommand {
    /// The flags of the push limits (design note 0007).
    static let pushFlags: Set<String> = [
        "max-subscriptions-per-user", "max-push-tokens-per-user", "max-parked-polls-per-user", "max-parked-polls", "apns-endpoint",
        "apns-ca-file", "max-apns-tokens-per-user",
    ]

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
        push.apns.maximumDeviceTokensPerUser = try options.integer(
            "max-apns-tokens-per-user", default: push.apns.maximumDeviceTokensPerUser, in: 1...10_000
        )
        let endpoint = options.string("apns-endpoint", default: "")
        if !endpoint.isEmpty {
            guard endpoint.hasPrefix("https://"), URLComponents(string: endpoint)?.host?.isEmpty == false else {
                throw CLIError("--apns-endpoint must be an https:// URL such as https://127.0.0.1:8443; got '\(endpoint.prefix(80))'")
            }
            push.apns.endpoint = endpoint
        }
    }

    /// Starts APNs delivery through libcurl (`--apns-ca-file` adds a trusted CA); pushes go out for
    /// the containers with credentials (`stratus push apns set`).
    ///
    /// - Throws: ``CLIError`` when the CA file cannot be used.
    static func startAPNsDelivery(_ options: Options, service: CloudKitService, metrics: MetricsRegistry, logger: Logger) throws {
        let caFile = options.string("apns-ca-file", default: "")
        do {
            let transport = try CurlAPNsTransport(configuration: .init(trustedCAFile: caFile.isEmpty ? nil : caFile), logger: logger)
            service.startAPNsDelivery(transport: transport, metrics: metrics)
        } catch {
            throw CLIError("--apns-ca-file: \(error.message)")
        }
    }
}
