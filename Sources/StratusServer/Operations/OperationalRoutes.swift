import Foundation
public import StratusHTTP
public import StratusMetrics

/// The routes of `stratus serve` besides the CloudKit service's: `GET /health` (liveness),
/// `GET /ready` (readiness, ``ReadinessCheck``), `GET /metrics` and `GET /openapi.json`.
///
/// `stratus serve` registers exactly these and ``CloudKitService/register(on:)``, so the
/// description (``OpenAPIDocument``) is checked against a router built the same way.
///
/// ```swift
/// import StratusHTTP
/// import StratusServer
///
/// var router = Router(logger: logger)
/// OperationalRoutes.register(on: &router, metrics: metrics, metricsAccess: MetricsAccess(), readiness: ReadinessCheck(store: store))
/// service.register(on: &router)
/// ```
public enum OperationalRoutes {
    /// Adds the health, readiness, metrics and API description routes.
    ///
    /// - Parameters:
    ///   - router: The router.
    ///   - metrics: The metrics `GET /metrics` exposes.
    ///   - metricsAccess: Who may read them.
    ///   - readiness: What `GET /ready` checks.
    public static func register(on router: inout Router, metrics: MetricsRegistry, metricsAccess: MetricsAccess, readiness: ReadinessCheck) {
        router.immediate(.get, "/health") { _ in .json(bytes: healthBody) }
        router.route(.get, "/ready") { _ in await readiness.response() }
        MetricsEndpoint.register(on: &router, registry: metrics, access: metricsAccess)
        router.immediate(.get, "/openapi.json") { _ in .json(bytes: OpenAPIDocument.json) }
    }

    private static let healthBody = Data(#"{"status":"ok"}"#.utf8)
}
