public import StratusHTTP
public import StratusLogging
public import StratusMetrics
public import StratusServer
import Foundation

/// The Stratus Console: a web dashboard served by `stratus serve` at `/console`, from resources
/// embedded in the binary (Documentation/0022-console.md).
///
/// Its pages read and write through the server's own services — CloudKit requests go through
/// ``CloudKitService/respond(operator:actingAs:to:)``, tokens through ``AccountAdministration``,
/// schemas through the record store's schema administration — so no rule exists twice. Only
/// console administrators sign in (``ConsoleAdministration``); every change needs the
/// session's anti-forgery token and lands in the audit log.
///
/// ```swift
/// import StratusHTTP
///
/// let console = Console(service: service, records: store, accounts: store, console: store, serviceConfiguration: configuration)
/// var router = Router(logger: logger)
/// router.use(console.requestLog)
/// console.register(on: &router)
/// ```
public final class Console: Sendable {
    /// Where the console is served.
    public static let basePath = "/console"

    let service: CloudKitService
    let records: any RecordStore
    let accounts: (any AccountStore)?
    let administration: AccountAdministration?
    let gate: ConsoleGate
    /// Every change through the console, logged before it is made.
    let auditLog: ConsoleAuditLog
    let metrics: MetricsRegistry?
    /// The live tail of the request log; add it to the router as middleware (``ConsoleRequestLog``).
    public let requestLog = ConsoleRequestLog()
    /// The console's headers on every answer, errors included, and its loopback-only switch; add
    /// it to the router as middleware (``ConsoleGuard``).
    public var `guard`: ConsoleGuard { ConsoleGuard(loopbackOnly: configuration.loopbackOnly) }
    /// The server's quotas, shown beside usage.
    let quotas: QuotaConfiguration
    let configuration: ConsoleConfiguration
    let logger: Logger

    /// Creates the console.
    ///
    /// - Parameters:
    ///   - service: The CloudKit service the record pages go through.
    ///   - records: The record store (containers, schemas).
    ///   - accounts: The account store (users, API tokens); `nil` in open mode without one.
    ///   - console: Where administrators, sessions and the audit log live.
    ///   - serviceConfiguration: The server's configuration (its token secret, for account administration).
    ///   - metrics: The server's metrics, for the operations page.
    ///   - configuration: Cookies, session lifetime, sign-in limits.
    ///   - logger: Where refusals are logged.
    public init(
        service: CloudKitService, records: any RecordStore, accounts: (any AccountStore)?, console: any ConsoleStore,
        serviceConfiguration: ServiceConfiguration, metrics: MetricsRegistry? = nil, configuration: ConsoleConfiguration = ConsoleConfiguration(),
        logger: Logger = .disabled
    ) {
        self.service = service
        self.records = records
        self.accounts = accounts
        self.administration = accounts.map { AccountAdministration(accounts: $0, configuration: serviceConfiguration, logger: logger) }
        self.gate = ConsoleGate(store: console, configuration: configuration, logger: logger)
        self.auditLog = ConsoleAuditLog(store: console, now: configuration.now, logger: logger)
        self.metrics = metrics
        self.quotas = serviceConfiguration.quotas
        self.configuration = configuration
        self.logger = logger
    }

    /// Whether `path` is the console's: such requests get no CORS grant (the console is same-origin only).
    public static func owns(_ path: String) -> Bool {
        path == basePath || path.hasPrefix(basePath + "/")
    }

    /// Adds the console's pages and API to `router`.
    public func register(on router: inout Router) {
        router.immediate(.get, Self.basePath) { _ in Self.page("index.html") }
        // One segment: the pages are named without `/`, and a deeper path (an API route asked with
        // the wrong method or one that does not exist) is not theirs to answer (404, or 405 with `Allow`).
        router.immediate(.get, Self.basePath + "/{file}") { request in Self.page(request.parameters["file"] ?? "") }
        registerSession(on: &router)
        registerDatabase(on: &router)
        registerUsers(on: &router)
        registerTokens(on: &router)
        registerSchema(on: &router)
        registerOperations(on: &router)
        registerUsage(on: &router)
    }

    /// An embedded resource, or 404.
    static func page(_ name: String) -> HTTPResponse {
        guard let resource = ConsoleResources.resource(named: name.isEmpty ? "index.html" : name) else {
            return secured(HTTPError.endpointNotFound.response(requestID: RequestID.next()))
        }
        return secured(HTTPResponse(status: .ok, headers: ["Content-Type": resource.contentType], body: resource.body))
    }

    /// Adds the headers every console response carries: no caching, no framing, no sniffing, and a
    /// content policy that runs only the console's own scripts.
    static func secured(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers.replaceOrAdd("Cache-Control", "no-store")
        response.headers.replaceOrAdd("X-Content-Type-Options", "nosniff")
        response.headers.replaceOrAdd("X-Frame-Options", "DENY")
        response.headers.replaceOrAdd("Referrer-Policy", "no-referrer")
        response.headers.replaceOrAdd(
            "Content-Security-Policy",
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
                + "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
        )
        return response
    }

    // MARK: Route helpers

    /// A read: needs a signed-in administrator.
    func read(
        _ router: inout Router, _ template: String, _ handler: @escaping @Sendable (HTTPRequest, ConsoleCaller) async throws -> HTTPResponse
    ) {
        router.route(.get, template) { [gate] request in
            let caller = try await gate.caller(of: request)
            return Self.secured(try await Self.answering { try await handler(request, caller) })
        }
    }

    /// A change: needs a signed-in administrator and the session's anti-forgery token.
    func change(
        _ router: inout Router, _ template: String, maximumBodySize: Int? = nil,
        _ handler: @escaping @Sendable (HTTPRequest, ConsoleCaller) async throws -> HTTPResponse
    ) {
        // Without a session cookie the body is not even read (the session itself is checked after it);
        // a console kept to loopback answers a remote peer first, as if it were absent.
        let screen: Router.HeadCheck = { [consoleGuard = self.guard] head in
            if try consoleGuard.defersToRouting(head) { return .admit }
            guard head.cookie(named: ConsoleGate.cookieName) != nil else { throw ConsoleGate.signedOut }
            return .admit
        }
        router.route(.post, template, maximumBodySize: maximumBodySize, check: screen) { [gate] request in
            let caller = try await gate.caller(of: request)
            try gate.checkForgery(request, of: caller)
            return Self.secured(try await Self.answering { try await handler(request, caller) })
        }
    }

    /// Runs a handler, turning the administration's errors into answers that name the problem.
    static func answering(_ body: () async throws -> HTTPResponse) async throws -> HTTPResponse {
        do {
            return try await body()
        } catch let error as AccountError {
            let status: HTTPStatus = error.code == .notFound ? .notFound : error.code == .emailAddressTaken ? .conflict : .badRequest
            throw HTTPError(status: status, serverErrorCode: status == .notFound ? "NOT_FOUND" : "BAD_REQUEST", reason: error.message)
        } catch let error as SchemaError {
            let status: HTTPStatus = error.code == .containerNotFound ? .notFound : error.code == .incompatibleChange ? .conflict : .badRequest
            throw HTTPError(status: status, serverErrorCode: status == .notFound ? "NOT_FOUND" : "BAD_REQUEST", reason: error.message)
        }
    }

    /// Decodes a JSON body, or 400 naming the problem.
    static func decode<T: Decodable>(_ type: T.Type, from request: HTTPRequest) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: request.body)
        } catch {
            throw HTTPError.badRequest("the body is not the JSON this endpoint takes: \(error)")
        }
    }
}

/// Sign-in, sign-out and who is signed in.
extension Console {
    struct SignInBody: Decodable {
        var email: String
        var password: String
    }

    struct SessionAnswer: Encodable {
        var email: String
        var csrfToken: String
        var expiresAt: Int64
    }

    func registerSession(on router: inout Router) {
        router.route(.post, Self.basePath + "/api/signin", maximumBodySize: 16 << 10) { [self] request in
            // No session yet, so no anti-forgery token: a JSON body is what a cross-site form cannot send.
            guard (request.headers["Content-Type"] ?? "").lowercased().hasPrefix("application/json") else { throw ConsoleGate.forged }
            let body = try Self.decode(SignInBody.self, from: request)
            let (token, caller) = try await gate.signIn(email: body.email, password: body.password, address: request.remoteAddress ?? "unknown")
            try await auditLog.record(caller, "console.signin", target: caller.administrator.emailAddress, detail: "from \(request.remoteAddress ?? "unknown")")
            var response = try HTTPResponse.json(Self.answer(caller))
            response.headers.add("Set-Cookie", gate.setCookie(token, for: request))
            return Self.secured(response)
        }
        read(&router, Self.basePath + "/api/session") { _, caller in try .json(Self.answer(caller)) }
        change(&router, Self.basePath + "/api/signout") { [self] request, caller in
            try await gate.signOut(caller)
            try await auditLog.record(caller, "console.signout", target: caller.administrator.emailAddress)
            var response = try HTTPResponse.json(["signedOut": true])
            response.headers.add("Set-Cookie", gate.setCookie(nil, for: request))
            return response
        }
        read(&router, Self.basePath + "/api/audit") { [self] request, _ in
            let limit = min(max(Int(request.query["limit"] ?? "") ?? 100, 1), 500)
            let before = request.query["before"].flatMap { Int64($0) }
            return try .json(try await gate.store.readConsole { try $0.auditEntries(limit: limit, before: before) })
        }
    }

    static func answer(_ caller: ConsoleCaller) -> SessionAnswer {
        SessionAnswer(email: caller.administrator.emailAddress, csrfToken: caller.session.csrfToken, expiresAt: caller.session.expiresAt)
    }
}
