public import StratusLogging

/// Logs one line per request: method, path, status, duration, request ID and client address.
///
/// The client address is the one the request was resolved to: the socket's peer, or behind a
/// trusted proxy the address it forwarded for (``TrustedProxyMiddleware``, which runs first).
public struct AccessLogMiddleware: HTTPMiddleware {
    private let logger: Logger

    /// Creates the middleware; records go to `logger` at `.info`.
    public init(logger: Logger) { self.logger = logger }

    /// Writes the access-log record and echoes the request ID as `X-Stratus-Request-ID`.
    public func finish(_ request: HTTPRequest, _ response: inout HTTPResponse) {
        response.headers.add("X-Stratus-Request-ID", request.requestID)
        guard logger.logLevel <= .info else { return }
        let elapsed = ContinuousClock.now - request.receivedAt
        let microseconds = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
        logger.info(
            "\(request.method) \(request.path) \(response.status.code)",
            metadata: [
                "request-id": request.requestID, "duration-us": String(microseconds),
                "bytes-out": String(response.body.count), "client": request.remoteAddress ?? "-",
            ]
        )
    }
}
