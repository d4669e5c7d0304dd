import Foundation
import StratusHTTP
import StratusHTTPServer
import StratusLogging
import StratusMetrics
import StratusServer

/// Builds the router of `stratus serve`: middleware, health (`/health` liveness, `/ready` readiness) and metrics (loopback or bearer token only).
///
/// The CloudKit database endpoints come from ``CloudKitService``.
enum ServerRoutes {
    static func makeRouter(
        logger: Logger, metrics: MetricsRegistry, metricsAccess: MetricsAccess = MetricsAccess(), service: CloudKitService,
        readiness: ReadinessCheck? = nil
    ) -> Router {
        var router = Router(logger: logger)
        router.use(MetricsMiddleware(registry: metrics))
        router.use(AccessLogMiddleware(logger: logger))
        router.use(CORSMiddleware { origin, request in service.isOriginAllowed(origin, for: request) })
        router.immediate(.get, "/health") { _ in
            .json(bytes: healthBody)
        }
        if let readiness {
            router.route(.get, "/ready") { _ in await readiness.response() }
        }
        MetricsEndpoint.register(on: &router, registry: metrics, access: metricsAccess)
        service.register(on: &router)
        return router
    }

    private static let healthBody = Data(#"{"status":"ok"}"#.utf8)
}

