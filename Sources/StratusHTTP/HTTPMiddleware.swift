/// Work done around every request: before the handler, and on the response after it.
///
/// Middleware is synchronous so it serves immediate and async handlers alike.
/// `prepare` runs in registration order and may answer the request itself (a
/// CORS preflight); `finish` runs in reverse order on every response, errors
/// included.
///
/// ```swift
/// struct ServerHeader: HTTPMiddleware {
///     func finish(_ request: HTTPRequest, _ response: inout HTTPResponse) {
///         response.headers.add("Server", "stratus")
///     }
/// }
/// ```
public protocol HTTPMiddleware: Sendable {
    /// Runs before routing; return a response to answer without calling the handler.
    ///
    /// - Throws: An ``HTTPResponseError`` to refuse the request.
    func prepare(_ request: inout HTTPRequest) throws -> HTTPResponse?

    /// Runs on every response before it is sent.
    func finish(_ request: HTTPRequest, _ response: inout HTTPResponse)
}

extension HTTPMiddleware {
    /// Does nothing.
    public func prepare(_ request: inout HTTPRequest) throws -> HTTPResponse? { nil }
    /// Does nothing.
    public func finish(_ request: HTTPRequest, _ response: inout HTTPResponse) {}
}
