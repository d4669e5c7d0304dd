/// Answers CORS preflights and marks responses readable by allowed browser origins.
///
/// CloudKit JS sends simple requests (`text/plain` bodies) and reads the
/// refreshed web-auth token from a response header, which must be exposed.
public struct CORSMiddleware: HTTPMiddleware {
    private let isAllowed: @Sendable (_ origin: String, _ request: HTTPRequest) -> Bool
    private let maxAge: Int

    /// Headers that browser scripts may read from responses.
    public static let exposedHeaders = "X-Apple-CloudKit-Web-Auth-Token, X-Stratus-Request-ID"

    /// Creates the middleware.
    ///
    /// - Parameters:
    ///   - maxAge: How long, in seconds, a browser may cache a preflight answer.
    ///   - isAllowed: Decides whether `origin` may read responses; when omitted, only loopback origins
    ///     (``Loopback/isLoopbackOrigin(_:)``) may — never every origin by default.
    public init(
        maxAge: Int = 600,
        isAllowed: @escaping @Sendable (_ origin: String, _ request: HTTPRequest) -> Bool = { origin, _ in Loopback.isLoopbackOrigin(origin) }
    ) {
        self.maxAge = maxAge
        self.isAllowed = isAllowed
    }

    /// Answers `OPTIONS` preflights from allowed origins with 204.
    public func prepare(_ request: inout HTTPRequest) throws -> HTTPResponse? {
        guard request.method == .options, let origin = request.headers["Origin"],
            request.headers["Access-Control-Request-Method"] != nil
        else { return nil }
        guard isAllowed(origin, request) else {
            throw HTTPError(status: .forbidden, serverErrorCode: "ACCESS_DENIED", reason: "origin \(origin) is not allowed")
        }
        var response = HTTPResponse(status: .noContent)
        response.headers.add("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, OPTIONS")
        response.headers.add("Access-Control-Allow-Headers", request.headers["Access-Control-Request-Headers"] ?? "Content-Type")
        response.headers.add("Access-Control-Max-Age", String(maxAge))
        return response
    }

    /// Adds `Access-Control-Allow-Origin` for allowed origins.
    public func finish(_ request: HTTPRequest, _ response: inout HTTPResponse) {
        guard let origin = request.headers["Origin"] else { return }
        response.headers.add("Vary", "Origin")
        guard isAllowed(origin, request) else { return }
        response.headers.replaceOrAdd("Access-Control-Allow-Origin", origin)
        response.headers.add("Access-Control-Expose-Headers", Self.exposedHeaders)
    }
}
