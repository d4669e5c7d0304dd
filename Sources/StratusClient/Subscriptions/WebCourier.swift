import Foundation
import StratusLogging
public import StratusWire

/// How ``Container/notifications(configuration:)`` talks to the web courier.
///
/// ```swift
/// var configuration = NotificationConfiguration()
/// configuration.pollTimeout = .seconds(90)
/// for try await notification in container.notifications(configuration: configuration) { print(notification) }
/// ```
public struct NotificationConfiguration: Sendable {
    /// Which courier to ask tokens of; `nil` follows the container (`production` → production).
    public var apnsEnvironment: APNsEnvironment?
    /// The deadline of one long-poll; keep it above the server's hold time (30 s for Stratus,
    /// about 60 s observed for Apple), or every quiet poll ends as a timeout.
    public var pollTimeout: Duration = .seconds(75)
    /// The fraction of the token's lifetime (`ttl` of the courier URL) after which a new token is made.
    public var renewalFraction = 0.9
    /// The waits between failed attempts: exponential with jitter (``RetryPolicy/maximumAttempts`` is ignored).
    public var backoff: RetryPolicy = {
        var policy = RetryPolicy()
        policy.initialBackoff = .milliseconds(500)
        policy.maximumBackoff = .seconds(60)
        return policy
    }()
    /// The transport of the long-polls; `nil` makes a ``DefaultTransport`` of its own (its own
    /// connections, so a parked poll never holds up API requests).
    public var transport: (any HTTPTransport)?
    /// An empty answer that comes back faster than this counts as a failure (backoff), not as a
    /// keep-alive, so a server answering at once (shutting down, a proxy) causes no hot loop.
    public var minimumEmptyPollDuration: Duration = .milliseconds(500)
    /// The `clientId` sent with `tokens/create` and `tokens/register`.
    public var clientID = UUID().uuidString
    /// Waits between attempts.
    public var sleep: @Sendable (Duration) async throws -> Void = LiveEnvironment.sleep
    /// A random number in `0..<1` for jitter.
    public var random: @Sendable () -> Double = LiveEnvironment.random

    /// Creates the default configuration.
    public init() {}
}

/// What ``Container/notificationEvents(configuration:)`` reports: that pushes can now reach this
/// device, or a push.
public enum NotificationEvent: Sendable, Hashable {
    /// Pushes reach this device (again): sent once a push token is made and registered — when
    /// polling starts, and after every reconnection that needed a new token — and, after a failed
    /// poll that kept its token, with the first answer that follows. Pushes fired before it went
    /// to an older token or into the lost connection, so catch up with the change feeds after each one.
    case listening
    /// A push.
    case notification(CloudNotification)
}

extension Container {
    /// The pushes this device receives, decoded, as they arrive: the web courier's long-poll in a loop.
    ///
    /// Iterating makes a push token (`tokens/create`), binds it to the signed-in user
    /// (`tokens/register`) and long-polls its courier URL, one notification per answer. Failed polls
    /// are retried with exponential backoff and jitter; an expired token is replaced, and the token is
    /// renewed before its `ttl` runs out. Only errors no retry can cure end the sequence
    /// (``StratusError/Code/notAuthenticated``, ``StratusError/Code/permissionFailure``, a missing
    /// container). Cancelling the iterating task, or dropping the iterator, stops polling.
    ///
    /// Notifications queued while nobody polls are kept by the server for this token only: a new
    /// sequence gets a new token, so catch up with the change feeds after starting one — or use
    /// ``notificationEvents(configuration:)``, which says when each token is live.
    ///
    /// ```swift
    /// let stream = container.notifications()
    /// for try await notification in stream where notification.subscriptionID == "notes" {
    ///     try await fetchChanges(notification.zoneID)
    /// }
    /// ```
    ///
    /// - Parameter configuration: Poll deadline, backoff, token renewal, transport.
    /// - Returns: The notifications, in delivery order.
    public func notifications(
        configuration: NotificationConfiguration = NotificationConfiguration()
    ) -> AsyncThrowingStream<
        CloudNotification, any Error
    > {
        courierStream(configuration: configuration) { event in
            if case .notification(let notification) = event { notification } else { nil }
        }
    }

    /// ``notifications(configuration:)`` with a ``NotificationEvent/listening`` event each time a push
    /// token is registered — when polling starts, and after each reconnection that needed a new
    /// token — so a caller knows when pushes can reach it and when to catch up on what it missed.
    ///
    /// ```swift
    /// for try await event in container.notificationEvents() {
    ///     switch event {
    ///     case .listening: try await fetchEverythingChanged()     // live now: catch up once
    ///     case .notification(let push): try await fetchChanges(push.zoneID)
    ///     }
    /// }
    /// ```
    ///
    /// - Parameter configuration: Poll deadline, backoff, token renewal, transport.
    /// - Returns: The events, in order.
    public func notificationEvents(
        configuration: NotificationConfiguration = NotificationConfiguration()
    ) -> AsyncThrowingStream<
        NotificationEvent, any Error
    > {
        courierStream(configuration: configuration) { $0 }
    }

    /// Runs one courier session for a stream, handing it the events `pick` keeps.
    private func courierStream<Element: Sendable>(
        configuration: NotificationConfiguration, pick: @escaping @Sendable (NotificationEvent) -> Element?
    ) -> AsyncThrowingStream<Element, any Error> {
        let session = WebCourierSession(
            client: client,
            apnsEnvironment: configuration.apnsEnvironment ?? (environment == .production ? .production : .development),
            configuration: configuration, transport: configuration.transport ?? DefaultTransport.make())
        return AsyncThrowingStream(bufferingPolicy: .unbounded) { continuation in
            let task = Task {
                do {
                    try await session.run { event in
                        if let element = pick(event) { continuation.yield(element) }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error is CancellationError ? nil : error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// The courier loop of one ``Container/notifications(configuration:)`` sequence.
struct WebCourierSession: Sendable {
    let client: ServiceClient
    let apnsEnvironment: APNsEnvironment
    let configuration: NotificationConfiguration
    let transport: any HTTPTransport

    /// A registered token and when to replace it.
    struct Token {
        var value: String
        var url: URL
        var renewAt: ContinuousClock.Instant
    }

    /// Polls until cancelled or a permanent error; hands each event (a new registered token, a
    /// notification) to `deliver`.
    func run(deliver: @Sendable (NotificationEvent) -> Void) async throws {
        let logger = client.configuration.logger
        let clock = ContinuousClock()
        var token: Token?
        var failures = 0
        // Whether making a token failed for want of a network since the last registration.
        var registrationUnreachable = false
        // Whether a poll failed and the token was kept: the next answer says the courier is back.
        var reconnecting = false
        while true {
            try Task.checkCancellation()
            var registering = false
            do {
                if token == nil || clock.now >= (token?.renewAt ?? clock.now) {
                    registering = true
                    token = try await makeToken(clock: clock)
                    registering = false
                    // A reconnection after the network was down starts the backoff afresh: the next
                    // hiccup waits half a second again, not what the outage had grown it to.
                    if registrationUnreachable { failures = 0 }
                    registrationUnreachable = false
                    reconnecting = false
                    deliver(.listening)
                }
                guard let current = token else { continue }
                let started = clock.now
                let response = try await transport.send(
                    TransportRequest(method: "GET", url: current.url, timeout: configuration.pollTimeout, isLongPoll: true))
                await Task.yield()
                switch response.status {
                case 200:
                    // Back after a failed poll that kept its token: pushes that went into the lost
                    // connection are not coming again, so the caller catches up.
                    if reconnecting { deliver(.listening) }
                    reconnecting = false
                    try receive(response, polledSince: started, clock: clock, deliver: deliver)
                    failures = 0
                    continue
                case 404, 410:
                    // The token expired or was swept: make a new one (after a pause if it keeps happening).
                    token = nil
                    throw StratusError(.unknownItem, "the courier no longer knows this push token")
                default:
                    throw ServiceClient.error(from: response)
                }
            } catch {
                guard let failure = StratusError.transport(error), !Task.isCancelled else { throw CancellationError() }
                if Self.isPermanent(failure) { throw failure }
                failures += 1
                if registering, failure.code == .networkFailure || failure.code == .networkUnavailable { registrationUnreachable = true }
                let delay = Self.delay(afterFailures: failures, failure, backoff: configuration.backoff, random: configuration.random())
                logger.info(
                    "web courier failed; retrying after \(delay)",
                    metadata: ["failures": "\(failures)", "error": failure.code.rawValue])
                if failures > 1 { token = nil }
                reconnecting = token != nil
                try await configuration.sleep(delay)
            }
        }
    }

    /// Hands a `200` answer's notification to `deliver`. An empty answer is a keep-alive after the
    /// server's hold time; one that comes back at once (a server shutting down, a proxy) is thrown
    /// as a failure, so it backs off instead of making a hot loop.
    private func receive(
        _ response: TransportResponse, polledSince started: ContinuousClock.Instant, clock: ContinuousClock,
        deliver: @Sendable (NotificationEvent) -> Void
    ) throws {
        guard !response.body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D }) else {
            guard clock.now - started < configuration.minimumEmptyPollDuration else { return }
            throw StratusError(.serviceUnavailable, "the courier answered an empty poll at once")
        }
        do {
            deliver(.notification(CloudNotification(payload: try WireCoding.decode(CourierNotification.self, from: response.body))))
        } catch {
            client.configuration.logger.warning("dropping an undecodable courier payload: \(error)")
        }
    }

    /// The wait after `failures` failures in a row: the backoff's exponential curve, capped at its
    /// maximum. The courier never gives up, so ``RetryPolicy/maximumAttempts`` does not apply (it used
    /// to make every wait after the fourth failure the maximum: a minute without push after a short drop).
    static func delay(afterFailures failures: Int, _ failure: StratusError, backoff: RetryPolicy, random: Double) -> Duration {
        var curve = backoff
        curve.maximumAttempts = .max
        return curve.delay(beforeRetry: min(failures, 30), retryAfter: failure.retryAfter, random: random) ?? backoff.maximumBackoff
    }

    /// Errors a retry cannot cure.
    static func isPermanent(_ error: StratusError) -> Bool {
        switch error.code {
        case .notAuthenticated, .permissionFailure, .invalidArguments: true
        default: false
        }
    }

    /// `tokens/create` + `tokens/register`.
    private func makeToken(clock: ContinuousClock) async throws -> Token {
        let created = try await client.send(
            TokensCreate.self, TokensCreate.Request(apnsEnvironment: apnsEnvironment, clientId: configuration.clientID),
            database: .private, idempotent: false)
        _ = try await client.send(
            TokensRegister.self,
            TokensRegister.Request(apnsEnvironment: created.apnsEnvironment, apnsToken: created.apnsToken, clientId: configuration.clientID),
            database: .private, idempotent: true)
        guard let url = URL(string: created.webcourierURL) else {
            throw StratusError(.serverResponseLost, "tokens/create answered an invalid webcourierURL '\(created.webcourierURL)'")
        }
        let ttl = Self.ttl(of: url) ?? 43_200
        let lifetime = Duration.milliseconds(Int64((Double(ttl) * 1000 * configuration.renewalFraction).rounded()))
        return Token(value: created.apnsToken, url: url, renewAt: clock.now + lifetime)
    }

    /// The `ttl` query parameter of a courier URL, in seconds.
    static func ttl(of url: URL) -> Int? {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "ttl" }?.value.flatMap { Int($0) }
    }
}
