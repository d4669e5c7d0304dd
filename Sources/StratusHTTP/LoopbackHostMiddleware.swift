/// Refuses requests addressed to anything but a loopback name: the guard of a server without credentials.
///
/// A browser sends the `Host` it resolved the page's URL with, so a page on `evil.example`
/// that re-points its name at 127.0.0.1 (DNS rebinding) still says `Host: evil.example`, and so
/// does a request from another machine that reaches the server. Only `localhost`, names under
/// `.localhost`, `127.0.0.0/8` and `[::1]` (with any port) pass; a request without `Host` (HTTP/1.0,
/// never a browser) passes too. Everything else gets 403 `ACCESS_DENIED` naming the host.
///
/// ```swift
/// router.use(LoopbackHostMiddleware())
/// ```
public struct LoopbackHostMiddleware: HTTPMiddleware {
    /// Creates the middleware.
    public init() {}

    /// Refuses a request whose `Host` is not a loopback name.
    public func prepare(_ request: inout HTTPRequest) throws -> HTTPResponse? {
        let hosts = request.headers.values(for: "Host")
        guard hosts.allSatisfy(Loopback.isLoopbackAuthority) else {
            let shown = String(hosts.first { !Loopback.isLoopbackAuthority($0) }?.prefix(100) ?? "")
            throw HTTPError(
                status: .forbidden, serverErrorCode: "ACCESS_DENIED",
                reason:
                    "host '\(shown)' is not a loopback name: this server runs without authentication (open mode) and answers only requests to localhost, 127.0.0.1 or [::1]"
            )
        }
        return nil
    }
}
