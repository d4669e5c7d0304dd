import Foundation

/// What to do with a push after APNs answered it (or did not): a pure decision, no I/O.
///
/// | answer | disposition |
/// |---|---|
/// | 200 | ``delivered`` |
/// | 410, or 400 `BadDeviceToken` / `DeviceTokenNotForTopic` | ``unregistered(since:)``: remove the token |
/// | 403 `ExpiredProviderToken` | ``refreshProviderToken``: sign a new JWT and send again |
/// | 429, 5xx, no answer | ``retry(after:)`` with backoff and jitter, up to the attempt limit |
/// | anything else (a bad topic, a refused key, a payload too large) | ``rejected(_:)``: give up |
enum APNsResponseDisposition: Hashable, Sendable {
    /// APNs accepted the push.
    case delivered
    /// The token is no longer valid (since the time given, in milliseconds since 1970, when APNs says).
    case unregistered(since: Int64?)
    /// The provider token was too old: sign a new one and send again at once.
    case refreshProviderToken
    /// Try again later; at least the given seconds when APNs said (`Retry-After`).
    case retry(after: Int?)
    /// Give up on this push, for the reason given.
    case rejected(String)

    /// The disposition of an answer.
    static func of(_ response: APNsResponse) -> APNsResponseDisposition {
        let error = APNsErrorBody.decode(response.body)
        let reason = error.reason ?? ""
        switch response.status {
        case 200: return .delivered
        case 410: return .unregistered(since: error.timestamp)
        case 400 where reason == "BadDeviceToken" || reason == "DeviceTokenNotForTopic": return .unregistered(since: nil)
        case 403 where reason == "ExpiredProviderToken": return .refreshProviderToken
        case 429, 500...599: return .retry(after: response.headers["retry-after"].flatMap { Int($0) }.map { min(max($0, 0), 3600) })
        default:
            return .rejected("APNs answered \(response.status)\(reason.isEmpty ? "" : " " + reason)")
        }
    }

    /// The disposition when no answer came: always a retry (a connection that broke, a deadline passed).
    static func of(_ error: APNsTransportError) -> APNsResponseDisposition {
        .retry(after: nil)
    }

    /// The wait before attempt `attempt + 1`, in milliseconds: `base · 2^(attempt − 1)`, at most
    /// `maximum`, jittered to a random 50–100 % of it, and never below `retryAfter` seconds.
    static func backoff(attempt: Int, base: Int64, maximum: Int64, retryAfter: Int?, random: Double) -> Int64 {
        let exponent = min(max(attempt - 1, 0), 30)
        let full = min(maximum, base.multipliedReportingOverflow(by: Int64(1) << exponent).overflow ? maximum : base << exponent)
        let jittered = Int64(Double(full) * (0.5 + 0.5 * min(max(random, 0), 1)))
        return max(jittered, Int64(retryAfter ?? 0) * 1000)
    }
}

/// The JSON APNs answers an error with: `{"reason":"BadDeviceToken"}`, and `timestamp` with 410.
///
/// The body comes from the network: anything unreadable (garbage, not JSON, a reason that is not
/// a short identifier) is read as no reason at all.
struct APNsErrorBody: Hashable, Sendable {
    var reason: String?
    var timestamp: Int64?

    static func decode(_ body: [UInt8]) -> APNsErrorBody {
        guard !body.isEmpty, body.count <= 4096,
            let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
        else { return APNsErrorBody() }
        var result = APNsErrorBody()
        if let reason = object["reason"] as? String, reason.count <= 64, reason.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
            result.reason = reason
        }
        if let timestamp = object["timestamp"] as? NSNumber {
            let value = timestamp.doubleValue
            if value.isFinite, value > 0, value < 1e15 { result.timestamp = Int64(value) }
        }
        return result
    }
}
