import Foundation
import StratusHTTP
import Testing

@Suite struct CORSMiddlewareTests {
    func router(allowing allowed: String) -> Router {
        var router = Router()
        router.use(CORSMiddleware { origin, _ in origin == allowed })
        router.immediate(.post, "/x") { _ in .text("ok") }
        return router
    }

    /// A preflight from an allowed origin is answered with 204 and the allowed methods.
    @Test func preflightFromAllowedOriginIsAnswered() async {
        let response = await send(
            router(allowing: "https://app.example"), .options, "/x",
            headers: ["Origin": "https://app.example", "Access-Control-Request-Method": "POST"]
        )
        #expect(response.status == .noContent)
        #expect(response.headers["Access-Control-Allow-Origin"] == "https://app.example")
        #expect(response.headers["Access-Control-Allow-Methods"]?.contains("POST") == true)
    }

    /// A preflight from another origin is refused with ACCESS_DENIED.
    @Test func preflightFromOtherOriginIsRefused() async {
        let response = await send(
            router(allowing: "https://app.example"), .options, "/x",
            headers: ["Origin": "https://evil.example", "Access-Control-Request-Method": "POST"]
        )
        #expect(response.status == .forbidden)
        #expect(response.headers["Access-Control-Allow-Origin"] == nil)
    }

    /// Responses to allowed origins expose the refreshed web-auth token header.
    @Test func responsesExposeTheWebAuthTokenHeader() async {
        let response = await send(router(allowing: "https://app.example"), .post, "/x", headers: ["Origin": "https://app.example"])
        #expect(response.status == .ok)
        #expect(response.headers["Access-Control-Expose-Headers"]?.contains("X-Apple-CloudKit-Web-Auth-Token") == true)
    }

    /// Without a policy of its own, the middleware lets loopback pages read responses and nobody else.
    @Test func theDefaultPolicyAllowsOnlyLoopbackOrigins() async {
        var router = Router()
        router.use(CORSMiddleware())
        router.immediate(.post, "/x") { _ in .text("ok") }
        let local = await send(router, .post, "/x", headers: ["Origin": "http://localhost:3000"])
        #expect(local.headers["Access-Control-Allow-Origin"] == "http://localhost:3000")
        let foreign = await send(router, .post, "/x", headers: ["Origin": "https://evil.example"])
        #expect(foreign.headers["Access-Control-Allow-Origin"] == nil)
        #expect(foreign.headers["Vary"] == "Origin")
    }
}
