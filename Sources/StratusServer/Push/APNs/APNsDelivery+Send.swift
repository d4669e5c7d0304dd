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

    /// Sends a batch at once (one HTTP/2 stream each), signing a new provider token and sending
    /// again, once, the pushes APNs answered `ExpiredProviderToken`.
    func deliver(_ pushes: [APNsPush], credentials: [String: APNsCredentials]) async -> [(APNsPush, Settlement)] {
        var settled: [Int: Settlement] = [:]
        var pending: [(index: Int, credentials: APNsCredentials, jwt: String)] = []
        var refreshed: Set<Int> = []
        for (index, push) in pushes.enumerated() {
            guard let found = credentials[Self.credentialsKey(push.push)] else {
                settled[index] = .failed("\(push.push.container) (\(push.push.environment.rawValue)) has no APNs credentials any more")
                continue
            }
            do {
                pending.append((index, found, try providerTokens.token(for: found, now: configuration.now())))
            } catch {
                settled[index] = .failed("\(error)")
            }
        }
        while !pending.isEmpty {
            let results = await transport.send(pending.map { request(for: pushes[$0.index].push, topic: $0.credentials.topic, jwt: $0.jwt) })
            var again: [(index: Int, credentials: APNsCredentials, jwt: String)] = []
            for (item, result) in zip(pending, results) {
                let disposition: APNsResponseDisposition
                switch result {
                case .success(let response): disposition = .of(response)
                case .failure(let error):
                    logger.debug("APNs request failed: \(error)", metadata: ["container": pushes[item.index].push.container])
                    disposition = .of(error)
                }
                if disposition == .refreshProviderToken, !refreshed.contains(item.index) {
                    refreshed.insert(item.index)
                    providerTokens.expire(item.jwt, for: item.credentials)
                    logger.notice("APNs called the provider token of key \(item.credentials.keyID) expired; signing a new one")
                    if let jwt = try? providerTokens.token(for: item.credentials, now: configuration.now()) {
                        again.append((item.index, item.credentials, jwt))
                        continue
                    }
                }
                settled[item.index] = settlement(disposition, pushes[item.index], refreshed: refreshed.contains(item.index))
            }
            pending = again
        }
        return pushes.enumerated().map { ($0.element, settled[$0.offset] ?? .failed("not sent")) }
    }

    /// The settlement of one push APNs answered with `disposition`.
    private func settlement(_ disposition: APNsResponseDisposition, _ push: APNsPush, refreshed: Bool) -> Settlement {
        switch disposition {
        case .delivered:
            return .sent(refreshed: refreshed)
        case .unregistered(let since):
            return .removeToken(since: since ?? configuration.now())
        case .refreshProviderToken:
            return retryOrGiveUp(push, retryAfter: nil, refreshed: true, reason: "APNs refused a freshly signed provider token as expired")
        case .retry(let retryAfter):
            return retryOrGiveUp(push, retryAfter: retryAfter, refreshed: refreshed, reason: "APNs did not accept the push after \(push.attempts) attempts")
        case .rejected(let reason):
            logger.warning(
                "APNs refused a push: \(reason)", metadata: ["container": push.push.container, "token": String(push.push.token.prefix(8)) + "…"]
            )
            return .failed(reason)
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
