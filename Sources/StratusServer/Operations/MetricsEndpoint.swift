import Foundation
import StratusCrypto
public import StratusHTTP
public import StratusMetrics
import StratusWire

/// Who may read `GET /metrics`: by default only clients on loopback; with a bearer token, only
/// clients that present it — from every address, loopback included, since behind a reverse proxy
/// on the same host every client looks like loopback.
///
/// The metrics tell an outsider how busy the server is, which routes fail and how long requests
/// take, which helps time an attack; they are for the operator's scraper (design note 0001, "Metrics").
///
/// ```swift
/// let access = MetricsAccess(bearerToken: ProcessInfo.processInfo.environment["STRATUS_METRICS_TOKEN"])
/// MetricsEndpoint.register(on: &router, registry: metrics, access: access)
/// ```
public struct MetricsAccess: Sendable {
    /// The token a scraper sends as `Authorization: Bearer <token>`; `nil` for loopback-only access.
    public var bearerToken: String?
    /// Whether a client at this address may read the metrics without a token; loopback by default.
    public var allowsAddress: @Sendable (String) -> Bool = MetricsAccess.isLoopback

    /// Creates the policy.
    ///
    /// - Parameter bearerToken: The scrapers' token; `nil` or empty for loopback-only access.
    public init(bearerToken: String? = nil) {
        self.bearerToken = bearerToken.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether `address` is a loopback address: 127.0.0.0/8, `::1`, or `::ffff:127.x.y.z`.
    public static func isLoopback(_ address: String) -> Bool {
        address == "::1" || address.hasPrefix("127.") || address.lowercased().hasPrefix("::ffff:127.")
    }

    /// Refuses a request that may not read the metrics.
    ///
    /// - Throws: ``HTTPError`` 401 for a missing or wrong token (when one is set), 403 for a client
    ///   off loopback (when none is).
    public func check(_ request: HTTPRequest) throws(HTTPError) {
        if let bearerToken {
            let presented = request.headers["Authorization"].flatMap { value -> String? in
                guard value.count > 7, value.prefix(7).lowercased() == "bearer " else { return nil }
                return String(value.dropFirst(7))
            }
            // Constant time: the comparison does not tell how much of a guess was right.
            guard let presented, ConstantTime.isEqual(Data(presented.utf8), Data(bearerToken.utf8)) else {
                throw HTTPError(
                    status: .unauthorized, serverErrorCode: ServerErrorCode.authenticationFailed.rawValue,
                    reason: "the metrics need the scrapers' bearer token",
                    headers: ["WWW-Authenticate": "Bearer"]
                )
            }
            return
        }
        guard let address = request.remoteAddress, allowsAddress(address) else {
            throw HTTPError(
                status: .forbidden, serverErrorCode: ServerErrorCode.accessDenied.rawValue,
                reason: "the metrics are served only to loopback clients unless the server has a metrics token"
            )
        }
    }
}

/// `GET /metrics`: the registry in Prometheus text format, for the clients ``MetricsAccess`` allows.
public enum MetricsEndpoint {
    /// Adds `GET /metrics` to `router`.
    ///
    /// - Parameters:
    ///   - router: The router.
    ///   - registry: The metrics to expose.
    ///   - access: Who may read them.
    public static func register(on router: inout Router, registry: MetricsRegistry, access: MetricsAccess) {
        router.immediate(.get, "/metrics") { request in
            try access.check(request)
            return .text(registry.prometheusText(), contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
    }
}
