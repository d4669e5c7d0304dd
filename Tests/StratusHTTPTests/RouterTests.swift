import Foundation
import StratusHTTP
import StratusLogging
import StratusWire
import Testing

/// Runs a request through a router and waits for the reply, whether immediate or async.
func send(_ router: Router, _ method: HTTPMethod, _ path: String, body: String = "", headers: HTTPHeaders = [:]) async -> HTTPResponse {
    let request = HTTPRequest(method: method, path: path, headers: headers, body: Data(body.utf8), requestID: "REQ-1")
    switch router.respond(to: request) {
    case .now(let response): return response
    case .later(let work): return await work()
    }
}

func json(_ response: HTTPResponse) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
}

@Suite struct RouterTests {
    static let databaseTemplate = "/database/1/{container}/{environment}/{database}/{operation...}"

    /// The CloudKit URL template captures every segment, with the operation taking the rest of the path.
    @Test func cloudKitTemplateCapturesContainerEnvironmentDatabaseAndOperation() async throws {
        var router = Router()
        router.route(.post, Self.databaseTemplate) { request in
            try .json(request.parameters)
        }
        let response = await send(router, .post, "/database/1/iCloud.com.example.Notes/development/private/users/lookup/email")
        #expect(response.status == .ok)
        let body = try json(response)
        #expect(body["container"] as? String == "iCloud.com.example.Notes")
        #expect(body["environment"] as? String == "development")
        #expect(body["database"] as? String == "private")
        #expect(body["operation"] as? String == "users/lookup/email")
    }

    /// The device template for push tokens routes separately from the database template.
    @Test func deviceTokenTemplateRoutes() async throws {
        var router = Router()
        router.route(.post, "/device/1/{container}/{environment}/tokens/{operation}") { request in
            .text(try request.parameter("operation"))
        }
        let response = await send(router, .post, "/device/1/iCloud.a/production/tokens/register")
        #expect(String(decoding: response.body, as: UTF8.self) == "register")
    }

    /// Literal segments win over parameters, and parameters over a catch-all.
    @Test func literalsWinOverParametersWhichWinOverCatchAll() async {
        var router = Router()
        router.immediate(.get, "/a/literal") { _ in .text("literal") }
        router.immediate(.get, "/a/{name}") { request in .text("param:" + (request.parameters["name"] ?? "")) }
        router.immediate(.get, "/a/{rest...}") { request in .text("rest:" + (request.parameters["rest"] ?? "")) }
        #expect(String(decoding: await send(router, .get, "/a/literal").body, as: UTF8.self) == "literal")
        #expect(String(decoding: await send(router, .get, "/a/other").body, as: UTF8.self) == "param:other")
        #expect(String(decoding: await send(router, .get, "/a/b/c").body, as: UTF8.self) == "rest:b/c")
    }

    /// Paths split at every `/` byte, even one a combining mark follows (which, read as
    /// characters, would join the slash into one grapheme), and non-ASCII segments arrive whole.
    @Test func pathsSplitAtEverySlashByteWhateverFollowsIt() async {
        var router = Router()
        router.immediate(.get, "/a/{name}/b") { request in .text("param:" + (request.parameters["name"] ?? "")) }
        router.immediate(.get, "/a/{rest...}") { request in .text("rest:" + (request.parameters["rest"] ?? "")) }
        #expect(String(decoding: await send(router, .get, "/a/\u{301}x/b").body, as: UTF8.self) == "param:\u{301}x")
        #expect(String(decoding: await send(router, .get, "/a/é/\u{301}b").body, as: UTF8.self) == "rest:é/\u{301}b")
        #expect(String(decoding: await send(router, .get, "//a//ü//b//").body, as: UTF8.self) == "param:ü")
    }

    /// A parameter branch that dead-ends falls back to the catch-all.
    @Test func matchingBacktracksToCatchAll() async {
        var router = Router()
        router.immediate(.get, "/x/{id}/detail") { _ in .text("detail") }
        router.immediate(.get, "/x/{rest...}") { request in .text(request.parameters["rest"] ?? "") }
        #expect(String(decoding: await send(router, .get, "/x/1/other").body, as: UTF8.self) == "1/other")
        #expect(await send(router, .get, "/x/1/detail").status == .ok)
    }

    /// An unknown path is a 404 whose body is CloudKit's, with the request ID as `uuid`.
    @Test func unknownPathAnswers404WithCloudKitReason() async throws {
        let router = Router()
        let response = await send(router, .get, "/nowhere")
        #expect(response.status == .notFound)
        let body = try json(response)
        #expect(body["reason"] as? String == "could not find handler for endpoint")
        #expect(body["serverErrorCode"] as? String == "NOT_FOUND")
        #expect(body["uuid"] as? String == "REQ-1")
        #expect(response.headers["Content-Type"]?.hasPrefix("application/json") == true)
    }

    /// A known path with the wrong method is a 405 that lists the allowed methods.
    @Test func wrongMethodAnswers405WithAllowHeader() async throws {
        var router = Router()
        router.immediate(.get, "/zones/list") { _ in .text("") }
        router.immediate(.post, "/zones/list") { _ in .text("") }
        let response = await send(router, .delete, "/zones/list")
        #expect(response.status == .methodNotAllowed)
        #expect(response.headers["Allow"] == "GET, POST")
        #expect((try json(response)["reason"] as? String)?.contains("DELETE") == true)
    }

    /// An `HTTPError` thrown by a handler renders as its own status and CloudKit body.
    @Test func thrownHTTPErrorRendersItself() async throws {
        var router = Router()
        router.route(.post, "/x") { _ in
            throw HTTPError(status: .tooManyRequests, serverErrorCode: "THROTTLED", reason: "slow down", retryAfter: 3)
        }
        let response = await send(router, .post, "/x")
        #expect(response.status == .tooManyRequests)
        let body = try json(response)
        #expect(body["serverErrorCode"] as? String == "THROTTLED")
        #expect(body["retryAfter"] as? Int == 3)
        #expect(body["redirectURL"] == nil)
        #expect(response.headers["Retry-After"] == "3", "plain HTTP clients and proxies read the header")
    }

    /// Every error response is one `ErrorResponse` of the wire model, whoever raised it: the body
    /// decodes as CloudKit clients decode it, with the typed code and the request ID.
    @Test func errorBodyIsTheWireModelsErrorResponse() async throws {
        var router = Router()
        router.route(.post, "/x") { _ in throw HTTPError.tooManyBodies }
        let response = await send(router, .post, "/x")
        let body = try WireCoding.decode(ErrorResponse.self, from: response.body)
        #expect(body == ErrorResponse(uuid: "REQ-1", serverErrorCode: .tryAgainLater, reason: HTTPError.tooManyBodies.reason, retryAfter: 1))
        #expect(response.status.code == body.httpStatus)
        #expect(response.headers["Retry-After"] == "1")
    }

    /// The HTTP layer names its codes as strings (it does not import the wire model); each is one
    /// of the wire model's documented `ServerErrorCode`s, so a typo cannot reach a client.
    @Test func everyCodeTheHTTPLayerSendsIsAServerErrorCode() {
        let errors = [
            HTTPError.badRequest("x"), .endpointNotFound, .methodNotAllowed(.delete, allowed: [.get]), .bodyTooLarge(limit: 1),
            .tooManyBodies, .internalError, .shuttingDown,
        ]
        for error in errors {
            #expect(ServerErrorCode.documented.contains(ServerErrorCode(rawValue: error.serverErrorCode)), "\(error.serverErrorCode) is not documented")
        }
    }

    /// Any other error is a 500 INTERNAL_ERROR that reveals nothing but the request ID.
    @Test func unexpectedErrorIs500WithoutInternals() async throws {
        struct SecretFailure: Error { let detail = "password=hunter2 at /srv/db.sqlite" }
        var router = Router()
        router.route(.post, "/x") { _ in throw SecretFailure() }
        let response = await send(router, .post, "/x")
        #expect(response.status == .internalServerError)
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(!text.contains("hunter2") && !text.contains("SecretFailure") && !text.contains("sqlite"))
        let body = try json(response)
        #expect(body["serverErrorCode"] as? String == "INTERNAL_ERROR")
        #expect(body["uuid"] as? String == "REQ-1")
    }

    /// A cancelled handler (server shutting down) answers 503 TRY_AGAIN_LATER.
    @Test func cancelledHandlerAnswers503() async throws {
        var router = Router()
        router.route(.post, "/x") { _ in throw CancellationError() }
        let response = await send(router, .post, "/x")
        #expect(response.status == .serviceUnavailable)
        #expect(try json(response)["serverErrorCode"] as? String == "TRY_AGAIN_LATER")
    }

    /// Middleware prepares in order, finishes in reverse, and finishes error responses too.
    @Test func middlewareRunsInOrderAndReverse() async {
        struct Tag: HTTPMiddleware {
            let name: String
            func prepare(_ request: inout HTTPRequest) throws -> HTTPResponse? {
                request.headers.add("X-Trail", name)
                return nil
            }
            func finish(_ request: HTTPRequest, _ response: inout HTTPResponse) {
                response.headers.add("X-Finish", name)
            }
        }
        var router = Router()
        router.use(Tag(name: "a"))
        router.use(Tag(name: "b"))
        router.immediate(.get, "/x") { request in .text(request.headers.values(for: "X-Trail").joined(separator: ",")) }
        let ok = await send(router, .get, "/x")
        #expect(String(decoding: ok.body, as: UTF8.self) == "a,b")
        #expect(ok.headers.values(for: "X-Finish") == ["b", "a"])
        let missing = await send(router, .get, "/missing")
        #expect(missing.headers.values(for: "X-Finish") == ["b", "a"])
    }

    /// Each route may set its own body limit; others get the router's default.
    @Test func bodyLimitIsPerRoute() {
        var router = Router(maximumBodySize: 1000)
        router.route(.post, "/upload/{id}", maximumBodySize: 50 << 20) { _ in .text("") }
        router.route(.post, "/small") { _ in .text("") }
        #expect(router.maximumBodySize(method: .post, path: "/upload/1") == 50 << 20)
        #expect(router.maximumBodySize(method: .post, path: "/small") == 1000)
        #expect(router.maximumBodySize(method: .post, path: "/unknown") == 1000)
    }

    /// `reject` renders the error and still runs every middleware's finish.
    @Test func rejectRunsMiddlewareFinish() {
        var router = Router()
        router.use(AccessLogMiddleware(logger: .disabled))
        let response = router.reject(HTTPRequest(method: .post, path: "/x", requestID: "R"), with: .bodyTooLarge(limit: 10))
        #expect(response.status == .contentTooLarge)
        #expect(response.headers["X-Stratus-Request-ID"] == "R")
    }
}
