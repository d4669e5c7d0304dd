import Foundation
import StratusHTTP
import StratusHTTPServer
import StratusLogging
import StratusMetrics
import StratusServer

/// Builds the router of `stratus serve`: middleware, then the health, readiness, metrics (loopback or bearer
/// token only) and API description routes (``OperationalRoutes``) and the CloudKit service's.
///
/// Add routes only through those two, so the OpenAPI description's test sees every route.
enum ServerRoutes {
    static func makeRouter(
        logger: Logger, metrics: MetricsRegistry, metricsAccess: MetricsAccess = MetricsAccess(), service: CloudKitService,
        readiness: ReadinessCheck
    ) -> Router {
        var router = Router(logger: logger)
        router.use(MetricsMiddleware(registry: metrics))
        router.use(AccessLogMiddleware(logger: logger))
        router.use(CORSMiddleware { origin, request in service.isOriginAllowed(origin, for: request) })
        OperationalRoutes.register(on: &router, metrics: metrics, metricsAccess: metricsAccess, readiness: readiness)
        service.register(on: &router)
        return router
    }
}

