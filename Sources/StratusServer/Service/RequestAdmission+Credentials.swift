import StratusHTTP
import StratusWire
import Synchronization

extension RequestAdmission {
    /// The head check of the routes that authenticate: refuses a request whose credentials cannot
    /// be valid before its body is read (``Authenticator/screen(_:container:environment:)``).
    ///
    /// - Throws: The opaque 401 `AUTHENTICATION_FAILED` (or `THROTTLED`), charged to the address;
    ///   `BAD_REQUEST` for a container identifier that breaks ``ContainerIdentifier``'s rule.
    func screenCredentials(_ head: HTTPRequest) throws -> HeadDecision {
        guard let authenticator, authentication.requiresAuthentication,
            let container = head.parameters["container"],
            let environment = head.parameters["environment"].flatMap(Environment.init(rawValue:))
        else { return .admit }
        // A malformed identifier gets its 400 before the body is read, not an opaque 401 (the rule is public).
        if let problem = ContainerIdentifier.problem(with: container) { throw ServiceError.badRequest(problem) }
        switch authenticator.screen(head, container: container, environment: environment) {
        case .plausible:
            return .admit
        case .failed(let error):
            throw throttle.chargeFailedAuthentication(head, error)
        case .lookUp(let lookUp):
            return .later { [self] in
                if let error = try await lookUp() { throw throttle.chargeFailedAuthentication(head, error) }
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
        guard let authenticator else { return .openMode(userRecordName: openModeUserRecordName) }
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

    /// The CORS rule of ``CloudKitService/isOriginAllowed(_:for:)``.
    func isOriginAllowed(_ origin: String, for request: HTTPRequest) -> Bool {
        guard authentication.requiresAuthentication else {
            return Loopback.isLoopbackOrigin(origin) || authentication.openModeOrigins.contains(origin)
        }
        if SignInEndpoints.flowPaths.contains(request.path) { return false }
        guard let authenticator, let token = request.query[Authenticator.apiTokenParameter],
            let origins = authenticator.allowedOrigins(ofToken: token)
        else { return true }
        return origins.isEmpty || origins.contains(origin)
    }

    /// What an API token alone may do in the public database: read.
    static let anonymousOperations: Set<EndpointOperation> = [.recordsLookup, .recordsQuery, .zonesList, .zonesLookup]

    /// The server's own sign-in page for an API token: `<base>/signin?ckAPIToken=…`.
    func signInURL(for request: HTTPRequest, apiToken: String) -> String {
        baseURL.base(for: request) + SignInEndpoints.signInPath + "?ckAPIToken=" + URLText.queryValue(apiToken)
    }
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
