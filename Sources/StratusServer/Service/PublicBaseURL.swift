import StratusHTTP

/// The base of every URL the server hands out (sign-in, verification, courier, assets), without a
/// trailing slash — never the client's `Host` header unchecked:
///
/// 1. the configured ``ServiceConfiguration/publicBaseURL``;
/// 2. in open mode, the request's scheme + the `Host` header, which the open-mode guard has already checked
///    to be a loopback name (so a browser on `localhost` keeps its origin);
/// 3. otherwise the server's own address the request arrived at (``HTTPRequest/localAddress``,
///    from the socket), with the request's scheme (`https` only through a trusted proxy).
///
/// A `Host: evil.example` therefore never becomes a sign-in link to `evil.example`.
struct PublicBaseURL: Sendable {
    /// ``ServiceConfiguration/publicBaseURL`` without trailing slashes.
    private let configured: String?
    /// Open mode: a loopback `Host` is the request's own name.
    private let usesLoopbackHost: Bool

    init(_ configuration: ServiceConfiguration) {
        var configured = configuration.publicBaseURL
        while configured?.hasSuffix("/") == true { configured?.removeLast() }
        self.configured = configured
        usesLoopbackHost = !configuration.authentication.requiresAuthentication
    }

    /// The base for URLs in the answer to `request`.
    func base(for request: HTTPRequest) -> String {
        if let configured { return configured }
        if usesLoopbackHost, let host = request.headers["Host"], Loopback.isLoopbackAuthority(host) {
            return request.scheme + "://" + host
        }
        return request.scheme + "://" + (request.localAddress ?? "127.0.0.1")
    }
}
