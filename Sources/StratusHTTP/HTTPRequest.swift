public import Foundation

/// One HTTP request, with its whole body, as handlers see it.
///
/// The transport fills in everything but ``parameters``, which the ``Router``
/// sets from the route template (`/database/1/{container}/…`).
public struct HTTPRequest: Sendable {
    /// The request method.
    public var method: HTTPMethod
    /// The percent-decoded path without the query string, such as `/database/1/iCloud.a/development/public/records/query`.
    public var path: String
    /// Query parameters by name (the last value wins when a name repeats).
    public var query: [String: String]
    /// The header fields.
    public var headers: HTTPHeaders
    /// The request body; empty when there was none.
    public var body: Data
    /// Values captured from the route template, such as `container` → `iCloud.com.example.Notes`.
    public var parameters: [String: String]
    /// A unique ID for this request; it appears in logs and in error bodies as `uuid`.
    public var requestID: String
    /// When the transport finished reading the request head.
    public var receivedAt: ContinuousClock.Instant
    /// The client's IP address: the socket's peer as the transport saw it, or — when that peer is a
    /// configured trusted proxy — the client it forwarded for (``TrustedProxies``); never taken from
    /// a header of anyone else.
    public var remoteAddress: String?
    /// The server's own address and port the request arrived at (`127.0.0.1:8420`, `[::1]:8420`),
    /// from the socket, when the transport knows it: the base of URLs built without a public URL,
    /// since the `Host` header is the client's to choose.
    public var localAddress: String?
    /// `http`, or `https` when a trusted proxy says the client used it (`X-Forwarded-Proto`).
    public var scheme = "http"
    /// Where the body went instead of ``body`` when the route's head check streamed it
    /// (``HeadDecision/stream(_:)``); `nil` otherwise.
    public var bodySink: (any HTTPBodySink)?

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - method: The request method.
    ///   - path: The decoded path, without the query string.
    ///   - query: Decoded query parameters.
    ///   - headers: The header fields.
    ///   - body: The body bytes.
    ///   - requestID: A unique ID; a fresh ``RequestID`` when omitted.
    ///   - receivedAt: When the request arrived; now when omitted.
    public init(
        method: HTTPMethod,
        path: String,
        query: [String: String] = [:],
        headers: HTTPHeaders = [:],
        body: Data = Data(),
        requestID: String = RequestID.next(),
        receivedAt: ContinuousClock.Instant = .now
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.parameters = [:]
        self.requestID = requestID
        self.receivedAt = receivedAt
    }

    /// The route parameter `name`, or a `BAD_REQUEST` error naming it when it is missing.
    ///
    /// - Throws: ``HTTPError`` when the router captured no such parameter.
    public func parameter(_ name: String) throws(HTTPError) -> String {
        guard let value = parameters[name] else {
            throw HTTPError.badRequest("missing path parameter '\(name)'")
        }
        return value
    }
}
