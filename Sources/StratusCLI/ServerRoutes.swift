import Foundation
import StratusHTTP
import StratusHTTPServer
import StratusLogging
import StratusMetrics
import StratusConsole
import StratusServer

/// Builds the router of `stratus serve`: middleware, then the health, readiness, metrics (loopback or bearer
/// token only) and API description routes (``OperationalRoutes``) and the CloudKit service's.
///
/// Add API routes only through those two, so the OpenAPI description's test sees every route; the
/// web console (`/console`, Documentation/0022-console.md) is a browser application, not part of the API.
enum ServerRoutes {
    static func makeRouter(
        logger: Logger, metrics: MetricsRegistry, metricsAccess: MetricsAccess = MetricsAccess(), service: CloudKitService,
        readiness: ReadinessCheck, console: Console? = nil
    ) -> Router {
        var router = Router(logger: logger)
        router.use(MetricsMiddleware(registry: metrics))
        router.use(AccessLogMiddleware(logger: logger))
        if let console {
            router.use(console.requestLog)
            router.use(console.guard)
        }
        // The console is same-origin only: no other origin may read its answers.
        router.use(CORSMiddleware { origin, request in !Console.owns(request.path) && service.isOriginAllowed(origin, for: request) })
        OperationalRoutes.register(on: &router, metrics: metrics, metricsAccess: metricsAccess, readiness: readiness)
        service.register(on: &router)
        console?.register(on: &router)
        return router
    }
}
