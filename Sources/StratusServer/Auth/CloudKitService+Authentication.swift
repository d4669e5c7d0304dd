public import StratusHTTP
import StratusWire
import Synchronization

extension CloudKitService {
    /// Answers a database request, putting the caller's refreshed web auth token on the response, errors included.
    func respond(_ request: HTTPRequest) async throws -> HTTPResponse {
        let refresh = RefreshedToken()
        do {
            var response = try await RefreshedToken.$current.withValue(refresh) { try await handle(request) }
            refresh.attach(to: &response)
            return response
        } catch let error as any HTTPResponseError {
            var response = error.response(requestID: request.requestID)
            refresh.attach(to: &response)
            return response
        }
    }

    /// Who calls, established before anything about the container is revealed or spent.
    ///
    /// With authentication on, the credentials are checked first and the container's existence
    /// after: a caller without a valid credential for the container gets the same opaque 401
    /// whether or not it exists, and a failure spends only its address's bucket
    /// (``chargeFailedAuthentication(_:_:)``), never the container's. Open mode keeps its 404 for
    /// an unknown container.
    ///
    /// - Throws: What ``authorize(_:operation:scope:container:environment:)`` throws (or
    ///   `THROTTLED` for an address over its rate of failures); `NOT_FOUND` for an unknown container;
    ///   `BAD_REQUEST` (400) for an identifier that breaks ``ContainerIdentifier``'s rule (no `iCloud.`).
    func admit(
        _ request: HTTPRequest, operation: EndpointOperation, scope: DatabaseScope, container: String, environment: Environment
    ) async throws -> Principal {
        // The rule is public (the CLI applies it), so checking it first reveals nothing about the container.
        if let problem = ContainerIdentifier.problem(with: container) { throw ServiceError.badRequest(problem) }
        // The console, in process, after it checked an administrator's session (CloudKitService+Operator).
        if let delegated = OperatorPrincipal.current {
            try await checkContainer(container)
            return delegated
        }
        guard configuration.authentication.requiresAuthentication else {
            try await checkContainer(container)
            return try await authorize(request, operation: operation, scope: scope, container: container, environment: environment)
        }
        let principal: Principal
        do {
            principal = try await authorize(request, operation: operation, scope: scope, container: container, environment: environment)
        } catch let error as ServiceError where error.code == .authenticationFailed || error.code == .authenticationRequired {
            throw chargeFailedAuthentication(request, error)
        }
        try await checkContainer(container)
        return principal
    }

    /// The head check of the routes that authenticate: refuses a request whose credentials cannot
    /// be valid before its body is read (``Authenticator/screen(_:container:environment:)``).
    ///
    /// - Throws: The opaque 401 `AUTHENTICATION_FAILED` (or `THROTTLED`), charged to the address;
    ///   `BAD_REQUEST` for a container identifier that breaks ``ContainerIdentifier``'s rule.
    func screenCredentials(_ head: HTTPRequest) throws -> HeadDecision {
        guard let authenticator, configuration.authentication.requiresAuthentication,
            let container = head.parameters["container"],
            let environment = head.parameters["environment"].flatMap(Environment.init(rawValue:))
        else { return .admit }
        // A malformed identifier gets its 400 before the body is read, not an opaque 401 (the rule is public).
        if let problem = ContainerIdentifier.problem(with: container) { throw ServiceError.badRequest(problem) }
        switch authenticator.screen(head, container: container, environment: environment) {
        case .plausible:
            return .admit
        case .failed(let error):
            throw chargeFailedAuthentication(head, error)
        case .lookUp(let lookUp):
            return .later { [self] in
                if let error = try await lookUp() { throw chargeFailedAuthentication(head, error) }
                return .admit
            }
        }
    }

    /// Who calls, checked against what the operation and database need (Apple's CloudKit Web Services Reference: “Database scope rules”; Documentation/0006-authentication.md, “Isolation”).
    ///
    /// - Throws: ``ServiceError`` `AUTHENTICATION_FAILED` (401) for bad credentials or a
    ///   server-to-server key outside the public database or on `users/*`;
    ///   `AUTHENTICATION_REQUIRED` (421) with the sign-in page's URL when a user is needed and absent.
    func authorize(
        _ request: HTTPRequest, operation: EndpointOperation, scope: DatabaseScope, container: String, environment: Environment
    ) async throws -> Principal {
        guard let authenticator else { return .openMode(userRecordName: configuration.openModeUserRecordName) }
        let outcome: Authenticator.Outcome
        do {
            outcome = try await authenticator.authenticate(request, container: container, environment: environment)
        } catch let error as ServiceError where error.code == .authenticationRequired {
            // A session past its lifetime: the same 421 as for a missing user, with the sign-in page.
            let apiToken = request.query[Authenticator.apiTokenParameter] ?? ""
            throw ServiceError(.authenticationRequired, error.reason, redirectURL: signInURL(for: request, apiToken: apiToken))
        }
        if let token = outcome.refreshedToken { RefreshedToken.current?.set(token) }
        switch outcome.principal {
        case .openMode, .user:
            break
        case .serverKey(let keyID, _):
            guard scope == .public, operation.requiredDatabase == nil else {
                throw authenticator.failure("server-to-server key '\(keyID)' may not call \(operation.rawValue) in the \(scope.rawValue) database", request)
            }
        case .anonymous(let apiToken):
            guard scope == .public, Self.anonymousOperations.contains(operation) else {
                throw ServiceError(.authenticationRequired, "request needs authorization", redirectURL: signInURL(for: request, apiToken: apiToken))
            }
        }
        return outcome.principal
    }

    /// Whether a browser page at `origin` may read the response to `request` (CORS).
    ///
    /// - **Open mode**: only loopback origins (`http://localhost:*`, `http://127.0.0.1:*`,
    ///   `http://[::1]:*`, and https on them) and ``AuthenticationConfiguration/openModeOrigins``.
    ///   A server without credentials must not let any web page the developer visits read or
    ///   write their data.
    /// - **With authentication**: the allowed origins of the request's API token (any origin when it
    ///   lists none). A token this process has not yet checked — such as on the preflight before its
    ///   first request — is not refused here: CORS only limits what a browser may read, and the
    ///   request itself is still authenticated. The sign-in pages are never readable by other origins.
    ///
    /// ```swift
    /// router.use(CORSMiddleware { origin, request in service.isOriginAllowed(origin, for: request) })
    /// ```
    ///
    /// - Parameters:
    ///   - origin: The request's `Origin` header.
    ///   - request: The request.
    /// - Returns: `true` if the origin may read the response.
    public func isOriginAllowed(_ origin: String, for request: HTTPRequest) -> Bool {
        guard configuration.authentication.requiresAuthentication else {
            return Loopback.isLoopbackOrigin(origin) || configuration.authentication.openModeOrigins.contains(origin)
        }
        if Self.signInFlowPaths.contains(request.path) { return false }
        guard let authenticator, let token = request.query[Authenticator.apiTokenParameter],
            let origins = authenticator.allowedOrigins(ofToken: token)
        else { return true }
        return origins.isEmpty || origins.contains(origin)
    }

    /// What an API token alone may do in the public database: read.
    static let anonymousOperations: Set<EndpointOperation> = [.recordsLookup, .recordsQuery, .zonesList, .zonesLookup]

    /// The server's own sign-in page for an API token: `<base>/signin?ckAPIToken=…`.
    func signInURL(for request: HTTPRequest, apiToken: String) -> String {
        baseURL(for: request) + Self.signInPath + "?ckAPIToken=" + URLText.queryValue(apiToken)
    }

    /// The path of the sign-in page.
    static let signInPath = "/signin"
}

/// The refreshed web auth token of the request being answered, handed from authentication to the response.
final class RefreshedToken: Sendable {
    /// The box of the current request, if it is a database request.
    @TaskLocal static var current: RefreshedToken?

    private let token = Mutex<String?>(nil)

    func set(_ value: String) {
        token.withLock { $0 = value }
    }

    /// Adds `X-Apple-CloudKit-Web-Auth-Token` if a token was issued.
    func attach(to response: inout HTTPResponse) {
        guard let value = token.withLock({ $0 }) else { return }
        response.headers.replaceOrAdd(Authenticator.refreshedTokenHeader, value)
    }
}
