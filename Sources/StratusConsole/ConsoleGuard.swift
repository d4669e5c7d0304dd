public import StratusHTTP

/// Middleware around every console answer, errors included: the browser-hardening headers of
/// ``Console/secured(_:)``, and with ``ConsoleConfiguration/loopbackOnly`` a 404 for console
/// requests from any address but loopback (Documentation/0022-console.md, "Authentication").
///
/// Add it to the router with the console's routes (`ServerRoutes` does):
///
/// ```swift
/// import StratusHTTP
///
/// let console = Console(service: service, records: store, accounts: store, console: store, serviceConfiguration: configuration)
/// var routes = Router()
/// routes.use(console.guard)
/// console.register(on: &routes)
/// ```
public struct ConsoleGuard: HTTPMiddleware, Sendable {
    /// Whether console requests from other addresses than loopback are refused.
    let loopbackOnly: Bool

    /// Refuses a console request from a remote address when the console is kept to loopback.
    ///
    /// The address is the client's as the server established it (a trusted proxy's
    /// `X-Forwarded-For` names the real client, so a remote client behind a local proxy is refused too).
    public func prepare(_ request: inout HTTPRequest) throws -> HTTPResponse? {
        guard loopbackOnly, Console.owns(request.path) else { return nil }
        guard Self.isLoopback(request) else {
            // The same answer as a server without a console: nothing tells a remote client it exists.
            return HTTPError.endpointNotFound.response(requestID: request.requestID)
        }
        return nil
    }

    /// The check a change route's head check makes before the body is read, ahead of its own
    /// (head checks run before middleware): a remote peer gets the 404 of ``prepare(_:)`` at
    /// once; a loopback peer that forwards for someone (a local proxy) is left to ``prepare(_:)``,
    /// which sees the client's address once the trusted-proxy middleware has run.
    ///
    /// - Returns: `true` when the head check must admit the request and leave the decision to routing.
    /// - Throws: ``HTTPError/endpointNotFound`` for a remote peer while the console is kept to loopback.
    func defersToRouting(_ head: HTTPRequest) throws -> Bool {
        guard loopbackOnly else { return false }
        guard Self.isLoopback(head) else { throw HTTPError.endpointNotFound }
        return !head.headers.values(for: "X-Forwarded-For").isEmpty
    }

    private static func isLoopback(_ request: HTTPRequest) -> Bool {
        request.remoteAddress.flatMap(IPAddress.init)?.isLoopback ?? false
    }

    /// Adds the console's security headers to each of its answers, refusals and errors included.
    public func finish(_ request: HTTPRequest, _ response: inout HTTPResponse) {
        guard Console.owns(request.path) else { return }
        response = Console.secured(response)
    }
}
