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
        guard let address = request.remoteAddress.flatMap(IPAddress.init), address.isLoopback else {
            // The same answer as a server without a console: nothing tells a remote client it exists.
            return HTTPError.endpointNotFound.response(requestID: request.requestID)
        }
        return nil
    }

    /// Adds the console's security headers to each of its answers, refusals and errors included.
    public func finish(_ request: HTTPRequest, _ response: inout HTTPResponse) {
        guard Console.owns(request.path) else { return }
        response = Console.secured(response)
    }
}
