import Foundation
import StratusLogging
import StratusWire

extension APNsDelivery {
    /// What became of one claimed push.
    enum Settlement: Hashable, Sendable {
        /// APNs accepted it (after signing a new provider token, when `refreshed`).
        case sent(refreshed: Bool)
        /// Given up, for the reason given.
        case failed(String)
        /// To be sent again at `notBefore` (milliseconds since 1970); `refreshed` when a new provider token was signed first.
        case retry(notBefore: Int64, refreshed: Bool)
        /// The token is invalid (since the time given): remove it.
        case removeToken(since: Int64)
    }

    /// Sends one push, signing a new provider token once if APNs calls the current one expired.
    func deliver(_ push: APNsPush, credentials: APNsCredentials?) async -> Settlement {
        guard let credentials else {
            return .failed("\(push.push.container) (\(push.push.environment.rawValue)) has no APNs credentials any more")
        }
        var refreshed = false
        while true {
            let jwt: String
            do {
                jwt = try providerTokens.token(for: credentials, now: configuration.now())
            } catch {
                return .failed("\(error)")
            }
            let disposition: APNsResponseDisposition
            do {
                disposition = .of(try await transport.send(request(for: push.push, topic: credentials.topic, jwt: jwt)))
            } catch {
                logger.debug("APNs request failed: \(error)", metadata: ["container": push.push.container])
                disposition = .of(error)
            }
            switch disposition {
            case .delivered:
                return .sent(refreshed: refreshed)
            case .unregistered(let since):
                return .removeToken(since: since ?? configuration.now())
            case .refreshProviderToken where !refreshed:
                providerTokens.expire(jwt, for: credentials)
                refreshed = true
                logger.notice("APNs called the provider token of key \(credentials.keyID) expired; signing a new one")
                continue
            case .refreshProviderToken:
                return retryOrGiveUp(push, retryAfter: nil, refreshed: true, reason: "APNs refused a freshly signed provider token as expired")
            case .retry(let retryAfter):
                return retryOrGiveUp(push, retryAfter: retryAfter, refreshed: refreshed, reason: "APNs did not accept the push after \(push.attempts) attempts")
            case .rejected(let reason):
                logger.warning(
                    "APNs refused a push: \(reason)",
                    metadata: ["container": push.push.container, "token": String(push.push.token.prefix(8)) + "…"]
                )
                return .failed(reason)
            }
        }
    }

    /// A retry after the backoff of this attempt, or failure once the attempts are used up.
    private func retryOrGiveUp(_ push: APNsPush, retryAfter: Int?, refreshed: Bool, reason: String) -> Settlement {
        guard push.attempts < configuration.maximumAttempts else {
            logger.warning("\(reason); giving up", metadata: ["container": push.push.container])
            return .failed(reason)
        }
        let wait = APNsResponseDisposition.backoff(
            attempt: push.attempts, base: configuration.retryBaseDelay.milliseconds, maximum: configuration.retryMaximumDelay.milliseconds,
            retryAfter: retryAfter, random: configuration.random()
        )
        return .retry(notBefore: configuration.now() + wait, refreshed: refreshed)
    }

    /// The provider API request for `push`.
    func request(for push: NewAPNsPush, topic: String, jwt: String) -> APNsRequest {
        let payload = APNsPayload(body: push.payload, pushType: push.pushType)
        return APNsRequest(
            url: configuration.baseURL(for: push.apnsEnvironment.rawValue) + "/3/device/" + push.token,
            headers: [
                ("authorization", "bearer " + jwt), ("apns-topic", topic), ("apns-push-type", push.pushType.rawValue),
                ("apns-priority", String(payload.priority)), ("content-type", "application/json"),
            ],
            body: push.payload, timeout: configuration.requestTimeout
        )
    }

    /// Records a batch's outcomes in one write and returns the counts.
    func settle(_ settlements: [(APNsPush, Settlement)]) async throws -> APNsDeliveryStatistics {
        try await store.write { tx in
            var delta = APNsDeliveryStatistics()
            var finished: [Int64] = []
            for (push, settlement) in settlements {
                switch settlement {
                case .sent(let refreshed):
                    delta.sent += 1
                    if refreshed {
                        delta.retried += 1
                        delta.providerTokenRefreshes += 1
                    }
                    finished.append(push.id)
                case .failed:
                    delta.failed += 1
                    finished.append(push.id)
                case .retry(let notBefore, let refreshed):
                    delta.retried += refreshed ? 2 : 1
                    if refreshed { delta.providerTokenRefreshes += 1 }
                    try tx.deferAPNsPush(push.id, notBefore: notBefore)
                case .removeToken(let since):
                    let item = push.push
                    if try tx.deleteAPNsDeviceToken(
                        item.token, apnsEnvironment: item.apnsEnvironment, container: item.container, environment: item.environment,
                        invalidSince: since
                    ) {
                        delta.tokensRemoved += 1
                    }
                    delta.failed += 1
                    finished.append(push.id)
                }
            }
            try tx.finishAPNsPushes(finished)
            return delta
        }
    }
}
