import StratusCrypto
import StratusWire

/// The web courier: hands out each token's queued notifications, one per long-poll, parking polls until one arrives.
///
/// A poll takes the oldest queued item of its token in a store write (consume on
/// delivery). When the queue is empty it parks in ``CourierWaiters`` — no thread
/// held — until a commit signals the token, its timeout passes, its request is
/// cancelled, or the courier closes; then it looks again or answers empty.
final class WebCourier: Sendable {
    let store: any RecordStore
    let configuration: PushConfiguration
    let waiters = CourierWaiters()

    init(store: any RecordStore, configuration: PushConfiguration) {
        self.store = store
        self.configuration = configuration
    }

    /// The next notification's JSON for `token`, or `nil` when none arrived within `timeout`, the
    /// courier closed, or a newer poll on the token took this one's place at a limit.
    ///
    /// - Throws: ``ServiceError`` `THROTTLED` (429) when the token's owner has
    ///   ``PushConfiguration/maximumParkedPollsPerUser`` polls parked, `TRY_AGAIN_LATER` (503)
    ///   when the node has ``PushConfiguration/maximumParkedPolls``; store errors.
    func poll(_ token: PushTokenRow, timeout: Duration) async throws -> [UInt8]? {
        let deadline = ContinuousClock.now + timeout
        // Tokens from before tokens had owners count as a user each.
        let user = token.owner ?? token.user ?? "\u{0}" + token.token
        var continuing = false
        while true {
            let id: CourierWaiters.Machine.WaiterID
            switch waiters.register(token: token.token, user: user, limits: limits, continuing: continuing) {
            case .success(let registered): id = registered
            case .failure(.closed): return nil
            case .failure(let refusal): throw refused(refusal)
            }
            continuing = true
            let item: DequeuedNotification?
            do {
                item = try await store.write { [token = token.token] tx in try tx.dequeueNotification(token: token) }
            } catch {
                waiters.remove(id)
                throw error
            }
            if let item {
                waiters.remove(id)
                return try render(item, for: token)
            }
            guard deadline > .now else {
                waiters.remove(id)
                return nil
            }
            guard await waiters.wait(id, until: deadline) == .signalled else { return nil }
        }
    }

    private var limits: CourierLimits {
        CourierLimits(perUser: max(1, configuration.maximumParkedPollsPerUser), total: max(1, configuration.maximumParkedPolls))
    }

    private func refused(_ refusal: CourierRefusal) -> ServiceError {
        let retryAfter = configuration.parkedPollRetryAfter
        switch refusal {
        case .userLimit(let limit):
            return ServiceError(
                .throttled, "this user already has \(limit) courier long-polls parked, the most allowed at once; retry after \(retryAfter) s",
                retryAfter: retryAfter
            )
        case .totalLimit(let limit):
            return ServiceError(
                .tryAgainLater, "the server has \(limit) courier long-polls parked, the most it holds at once; retry after \(retryAfter) s",
                retryAfter: retryAfter
            )
        case .closed:
            return ServiceError(.tryAgainLater, "the server is shutting down", retryAfter: retryAfter)
        }
    }

    /// Wakes the polls of tokens that just received notifications (call after the commit).
    func signal(_ tokens: Set<String>) {
        guard !tokens.isEmpty else { return }
        waiters.signal(tokens)
    }

    /// Answers every parked poll with an empty body and every later one at once.
    func close() {
        waiters.close()
    }

    private func render(_ item: DequeuedNotification, for token: PushTokenRow) throws -> [UInt8] {
        switch item {
        case .notification(let payload):
            return payload
        case .resync(let dropped):
            return try NotificationPayload.bytes(
                NotificationPayload.resync(
                    container: token.container, recipient: token.user, notificationID: configuration.makeNotificationID(), dropped: dropped
                )
            )
        }
    }
}

/// Courier token generation.
public enum PushTokens {
    /// 32 random bytes, base64url: unguessable, and safe in a URL path.
    @Sendable public static func random() throws -> String {
        try SecureRandom.base64URLToken(byteCount: 32)
    }
}
