/// What a responder does with a request: answer now, or answer later without holding a thread.
public enum HTTPReply: Sendable {
    /// The response is ready; the transport sends it from the thread that read the request.
    case now(HTTPResponse)
    /// The response needs async work; the transport parks the connection and runs `work`.
    case later(@Sendable () async -> HTTPResponse)
}

/// The boundary between a transport (sockets) and the application.
///
/// The ``Router`` is the responder of a Stratus server; a transport such as
/// `StratusHTTPServer.HTTPServer` calls it for every request.
public protocol HTTPResponder: Sendable {
    /// The largest body, in bytes, accepted for `method` on `path`.
    func maximumBodySize(method: HTTPMethod, path: String) -> Int

    /// Decides, from the head alone, whether and where to read a request's body.
    ///
    /// The transport asks only for requests that have a body; the default reads it into memory
    /// up to ``maximumBodySize(method:path:)``.
    func admit(_ head: HTTPRequest) -> HTTPAdmission

    /// Answers a request. Never throws: errors are already responses.
    func respond(to request: HTTPRequest) -> HTTPReply

    /// Answers a request the transport refused before reading it whole (such as a body over the limit).
    func reject(_ request: HTTPRequest, with error: HTTPError) -> HTTPResponse
}

extension HTTPResponder {
    /// Reads the body into memory up to the route's limit.
    public func admit(_ head: HTTPRequest) -> HTTPAdmission {
        .buffer(limit: maximumBodySize(method: head.method, path: head.path))
    }
}
