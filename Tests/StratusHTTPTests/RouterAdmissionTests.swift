import Foundation
import StratusHTTP
import Testing

/// The router's head checks, without a transport.
@Suite struct RouterAdmissionTests {
    struct Tag: HTTPMiddleware {
        func finish(_ request: HTTPRequest, _ response: inout HTTPResponse) {
            response.headers.replaceOrAdd("X-Finished", "yes")
        }
    }

    static func router(check: @escaping Router.HeadCheck) -> Router {
        var router = Router(maximumBodySize: 1000)
        router.use(Tag())
        router.route(.post, "/plain", maximumBodySize: 10) { _ in .text("plain") }
        router.route(.post, "/checked/{id}", maximumBodySize: 20, check: check) { _ in .text("checked") }
        return router
    }

    @Test func routesWithoutACheckBufferUpToTheirLimit() {
        let router = Self.router { _ in .admit }
        guard case .buffer(let limit) = router.admit(HTTPRequest(method: .post, path: "/plain")) else {
            Issue.record("expected .buffer")
            return
        }
        #expect(limit == 10)
        guard case .buffer(let fallback) = router.admit(HTTPRequest(method: .post, path: "/nowhere")) else {
            Issue.record("expected .buffer")
            return
        }
        #expect(fallback == 1000)
    }

    @Test func aCheckSeesTheRouteParametersAndAdmits() {
        let router = Self.router { head in
            #expect(head.parameters["id"] == "42")
            return .admit
        }
        guard case .buffer(let limit) = router.admit(HTTPRequest(method: .post, path: "/checked/42")) else {
            Issue.record("expected .buffer")
            return
        }
        #expect(limit == 20)
    }

    @Test func aThrownErrorIsARenderedRefusalThroughTheMiddleware() {
        let router = Self.router { _ in throw HTTPError.badRequest("bad ticket") }
        guard case .refuse(let response) = router.admit(HTTPRequest(method: .post, path: "/checked/1")) else {
            Issue.record("expected .refuse")
            return
        }
        #expect(response.status == .badRequest)
        #expect(response.headers["X-Finished"] == "yes")
        #expect(String(decoding: response.body, as: UTF8.self).contains("bad ticket"))
    }

    @Test func aLaterCheckRefusesWhenItsWorkThrows() async {
        let router = Self.router { _ in .later { throw HTTPError.badRequest("looked up: unknown") } }
        guard case .later(let decide) = router.admit(HTTPRequest(method: .post, path: "/checked/1")) else {
            Issue.record("expected .later")
            return
        }
        guard case .refuse(let response) = await decide() else {
            Issue.record("expected .refuse")
            return
        }
        #expect(response.headers["X-Finished"] == "yes")
        #expect(String(decoding: response.body, as: UTF8.self).contains("looked up: unknown"))
    }
}
