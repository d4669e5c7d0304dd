public import StratusLogging

/// Routes requests by method and URL template to handlers, with middleware around them.
///
/// Templates are paths whose segments are literals, `{name}` (one segment) or a
/// final `{name...}` (the rest of the path, slashes included). Literals win
/// over `{name}`, which wins over `{name...}`.
///
/// ```swift
/// var router = Router(logger: logger)
/// router.use(CORSMiddleware())
/// router.immediate(.get, "/health") { _ in .text("ok") }
/// router.route(.post, "/database/1/{container}/{environment}/{database}/{operation...}") { request in
///     try await handle(request)
/// }
/// ```
///
/// Build the router first, then hand it to a transport; it is a value, so the
/// transport's copy never changes.
public struct Router: HTTPResponder {
    /// A handler that answers on the transport's thread; it must not block.
    public typealias ImmediateHandler = @Sendable (HTTPRequest) throws -> HTTPResponse
    /// A handler that may suspend; the connection is parked while it runs.
    public typealias AsyncHandler = @Sendable (HTTPRequest) async throws -> HTTPResponse
    /// A check of a request's head before its body is read; throwing refuses the request.
    public typealias HeadCheck = @Sendable (HTTPRequest) throws -> HeadDecision

    private var root = RouteNode()
    /// Every route added, in the order added: its method and template (API descriptions check
    /// themselves against this).
    public private(set) var registeredRoutes: [RegisteredRoute] = []
    private var middleware: [any HTTPMiddleware] = []
    private let logger: Logger
    private let defaultMaximumBodySize: Int

    /// Creates an empty router.
    ///
    /// - Parameters:
    ///   - logger: Where unexpected handler errors are logged, with their request ID.
    ///   - maximumBodySize: The body limit of routes that set none; 8 MiB by default.
    public init(logger: Logger = .disabled, maximumBodySize: Int = 8 << 20) {
        self.logger = logger
        self.defaultMaximumBodySize = maximumBodySize
    }

    /// Adds middleware; `prepare` runs in the order added, `finish` in reverse.
    public mutating func use(_ middleware: any HTTPMiddleware) {
        self.middleware.append(middleware)
    }

    /// Adds middleware that runs before every middleware added so far (and `finish`es after them):
    /// for middleware that establishes what others read, such as ``TrustedProxyMiddleware`` setting
    /// the client's address before rate limits and logs look at it.
    public mutating func useFirst(_ middleware: any HTTPMiddleware) {
        self.middleware.insert(middleware, at: 0)
    }

    /// Adds a route whose handler may suspend (database work, long-polls).
    ///
    /// - Parameters:
    ///   - method: The method it answers.
    ///   - template: The URL template, such as `/zones/{zone}`.
    ///   - maximumBodySize: This route's body limit; the router's default when `nil`.
    ///   - handler: The handler.
    public mutating func route(
        _ method: HTTPMethod, _ template: String, maximumBodySize: Int? = nil, handler: @escaping AsyncHandler
    ) {
        add(method, template, Route(handler: .async(handler), maximumBodySize: maximumBodySize ?? defaultMaximumBodySize))
    }

    /// Adds a route whose handler may suspend, with a check of the request head that runs before
    /// any byte of the body is read (upload tickets, credentials).
    ///
    /// The check runs only for requests that carry a body, on the transport's thread: it must not
    /// block, and returns ``HeadDecision/later(_:)`` for work that needs to suspend. A thrown
    /// error is the answer, and the body goes to no handler or sink; the handler must not count on the
    /// check having run, since a bodiless request skips it.
    ///
    /// - Parameters:
    ///   - method: The method it answers.
    ///   - template: The URL template.
    ///   - maximumBodySize: The limit of a body read into memory; the router's default when `nil`.
    ///   - check: The head check; route parameters are set on the request it sees.
    ///   - handler: The handler.
    public mutating func route(
        _ method: HTTPMethod, _ template: String, maximumBodySize: Int? = nil, check: @escaping HeadCheck,
        handler: @escaping AsyncHandler
    ) {
        add(
            method, template,
            Route(handler: .async(handler), maximumBodySize: maximumBodySize ?? defaultMaximumBodySize, check: check)
        )
    }

    /// Adds a route whose handler answers at once on the transport's thread (health checks, metrics).
    ///
    /// - Parameters:
    ///   - method: The method it answers.
    ///   - template: The URL template.
    ///   - maximumBodySize: This route's body limit; the router's default when `nil`.
    ///   - handler: The handler; it must not block.
    public mutating func immediate(
        _ method: HTTPMethod, _ template: String, maximumBodySize: Int? = nil, handler: @escaping ImmediateHandler
    ) {
        add(method, template, Route(handler: .immediate(handler), maximumBodySize: maximumBodySize ?? defaultMaximumBodySize))
    }

    private mutating func add(_ method: HTTPMethod, _ template: String, _ route: Route) {
        registeredRoutes.append(RegisteredRoute(method: method, template: template))
        root.insert(segments: RouteNode.segments(of: template)[...], method: method, route: route, template: template)
    }

    // MARK: HTTPResponder

    /// The matching route's body limit, or the default when nothing matches.
    public func maximumBodySize(method: HTTPMethod, path: String) -> Int {
        guard let match = root.match(path: path), let route = match.routes[method] else {
            return defaultMaximumBodySize
        }
        return route.maximumBodySize
    }

    /// Runs the matching route's head check, if it has one; errors become refusals that have been
    /// through every middleware's `finish`.
    public func admit(_ head: HTTPRequest) -> HTTPAdmission {
        guard let match = root.match(path: head.path), let route = match.routes[head.method] else {
            return .buffer(limit: defaultMaximumBodySize)
        }
        guard let check = route.check else { return .buffer(limit: route.maximumBodySize) }
        var request = head
        request.parameters = match.parameters
        return admission(for: request, limit: route.maximumBodySize) { try check(request) }
    }

    private func admission(for request: HTTPRequest, limit: Int, _ decide: () throws -> HeadDecision) -> HTTPAdmission {
        do {
            switch try decide() {
            case .admit:
                return .buffer(limit: limit)
            case .stream(let sink):
                return .stream(sink)
            case .later(let work):
                return .later { [self] in
                    do {
                        let decision = try await work()
                        return admission(for: request, limit: limit) { decision }
                    } catch {
                        return .refuse(finish(request, render(error, for: request), through: middleware.count))
                    }
                }
            }
        } catch {
            return .refuse(finish(request, render(error, for: request), through: middleware.count))
        }
    }

    /// Runs middleware, finds the route and calls its handler; every error becomes a response.
    public func respond(to incoming: HTTPRequest) -> HTTPReply {
        var request = incoming
        var prepared = 0
        do {
            for middleware in middleware {
                prepared += 1
                if let early = try middleware.prepare(&request) {
                    return .now(finish(request, early, through: prepared))
                }
            }
            guard let match = root.match(path: request.path) else { throw HTTPError.endpointNotFound }
            guard let route = match.routes[request.method] else {
                throw HTTPError.methodNotAllowed(request.method, allowed: Array(match.routes.keys))
            }
            request.parameters = match.parameters
            switch route.handler {
            case .immediate(let handler):
                return .now(finish(request, try handler(request), through: prepared))
            case .async(let handler):
                let ready = request
                return .later { [self, prepared] in
                    do {
                        return finish(ready, try await handler(ready), through: prepared)
                    } catch {
                        return finish(ready, render(error, for: ready), through: prepared)
                    }
                }
            }
        } catch {
            return .now(finish(request, render(error, for: request), through: prepared))
        }
    }

    /// Renders `error` and runs every middleware's `finish` on it.
    public func reject(_ request: HTTPRequest, with error: HTTPError) -> HTTPResponse {
        finish(request, error.response(requestID: request.requestID), through: middleware.count)
    }

    private func finish(_ request: HTTPRequest, _ response: HTTPResponse, through count: Int) -> HTTPResponse {
        var response = response
        for middleware in middleware.prefix(count).reversed() {
            middleware.finish(request, &response)
        }
        return response
    }

    private func render(_ error: any Error, for request: HTTPRequest) -> HTTPResponse {
        if let error = error as? any HTTPResponseError {
            return error.response(requestID: request.requestID)
        }
        if error is CancellationError {
            return HTTPError.shuttingDown.response(requestID: request.requestID)
        }
        logger.error(
            "unhandled error in \(request.method) \(request.path): \(String(describing: error))",
            metadata: ["request-id": request.requestID]
        )
        return HTTPError.internalError.response(requestID: request.requestID)
    }
}

/// A route as added to a ``Router``: the method and the URL template, such as
/// `GET /assets/download/{ticket}/{file...}`.
public struct RegisteredRoute: Hashable, Sendable, CustomStringConvertible {
    /// The method it answers.
    public var method: HTTPMethod
    /// The URL template.
    public var template: String

    /// A route of `method` on `template`.
    public init(method: HTTPMethod, template: String) {
        self.method = method
        self.template = template
    }

    /// `METHOD template`.
    public var description: String { "\(method.rawValue) \(template)" }
}

/// A handler with its limits.
struct Route: Sendable {
    enum Handler: Sendable {
        case immediate(Router.ImmediateHandler)
        case async(Router.AsyncHandler)
    }

    var handler: Handler
    var maximumBodySize: Int
    var check: Router.HeadCheck? = nil
}
