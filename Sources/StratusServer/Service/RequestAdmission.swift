import StratusHTTP
import StratusWire
import Synchronization

/// What every request to the service goes through before an endpoint group sees it: the URL's
/// container, environment, database and operation resolved, the caller authenticated
/// (``authorize(_:operation:scope:container:environment:)``), the container's and the client's
/// request budgets charged (``RequestThrottle``).
///
/// One per service, shared by ``DatabaseEndpoint`` and the groups with routes of their own
/// (device tokens, uploads).
final class RequestAdmission: Sendable {
    let store: any RecordStore
    let authentication: AuthenticationConfiguration
    let openModeUserRecordName: String
    /// Checks credentials; `nil` without an account store (open mode only).
    let authenticator: Authenticator?
    let throttle: RequestThrottle
    let baseURL: PublicBaseURL
    /// Admitted requests per signed-in user, for the console's usage page.
    let userRequestCounts = UserRequestCounts()
    private let knownContainers = Mutex<Set<String>>([])

    init(
        store: any RecordStore, configuration: ServiceConfiguration, authenticator: Authenticator?, throttle: RequestThrottle,
        baseURL: PublicBaseURL
    ) {
        self.store = store
        authentication = configuration.authentication
        openModeUserRecordName = configuration.openModeUserRecordName
        self.authenticator = authenticator
        self.throttle = throttle
        self.baseURL = baseURL
    }

    /// Checks the URL's container, environment, database and operation, and who calls; charges the
    /// request to the container's and the client's budgets.
    func resolve(_ request: HTTPRequest) async throws -> DatabaseRequest {
        let operationName = try request.parameter("operation")
        guard let operation = EndpointOperation(rawValue: operationName), operation.module == .database else {
            throw HTTPError.endpointNotFound
        }
        guard let method = EndpointOperation.HTTPMethod(rawValue: request.method.rawValue),
            operation.acceptedMethods.contains(method)
        else {
            throw HTTPError.methodNotAllowed(request.method, allowed: operation.acceptedMethods.map { HTTPMethod(rawValue: $0.rawValue) })
        }
        let environment = try Self.environment(of: request)
        let databaseName = try request.parameter("database")
        guard let scope = DatabaseScope(rawValue: databaseName) else {
            throw ServiceError.badRequest("unknown database '\(databaseName)'; use 'public', 'private' or 'shared'")
        }
        let container = try request.parameter("container")
        let principal = try await admit(request, operation: operation, scope: scope, container: container, environment: environment)
        try await throttle.throttle(container: container)
        try throttle.throttle(client: principal, of: request, container: container)
        let caller = principal.userRecordName ?? Principal.anonymousRecordName
        // The user's own requests only: the console's, made in the user's name, are not theirs.
        if case .user(let user, _, _) = principal, OperatorPrincipal.principal(for: request) == nil {
            userRequestCounts.record(container: container, environment: environment, user: user)
        }
        let owner = scope == .public ? DatabaseKey.publicOwner : caller
        return DatabaseRequest(
            request: request, operation: operation,
            database: DatabaseKey(container: container, environment: environment, scope: scope, owner: owner),
            caller: caller, principal: principal, deviceID: request.headers["X-Stratus-Device-ID"] ?? "web"
        )
    }

    /// The URL's `{environment}`.
    static func environment(of request: HTTPRequest) throws -> Environment {
        let environmentName = try request.parameter("environment")
        guard let environment = Environment(rawValue: environmentName) else {
            throw ServiceError.badRequest("unknown environment '\(environmentName)'; use 'development' or 'production'")
        }
        return environment
    }

    /// Who calls, established before anything about the container is revealed or spent.
    ///
    /// With authentication on, the credentials are checked first and the container's existence
    /// after: a caller without a valid credential for the container gets the same opaque 401
    /// whether or not it exists, and a failure spends only its address's bucket
    /// (``RequestThrottle/chargeFailedAuthentication(_:_:)``), never the container's. Open mode
    /// keeps its 404 for an unknown container.
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
        if let delegated = OperatorPrincipal.principal(for: request) {
            try await checkContainer(container)
            return delegated
        }
        guard authentication.requiresAuthentication else {
            try await checkContainer(container)
            return try await authorize(request, operation: operation, scope: scope, container: container, environment: environment)
        }
        let principal: Principal
        do {
            principal = try await authorize(request, operation: operation, scope: scope, container: container, environment: environment)
        } catch let error as ServiceError where error.code == .authenticationFailed || error.code == .authenticationRequired {
            throw throttle.chargeFailedAuthentication(request, error)
        }
        try await checkContainer(container)
        return principal
    }

    private func checkContainer(_ container: String) async throws {
        if knownContainers.withLock({ $0.contains(container) }) { return }
        guard try await store.read({ try $0.containerExists(container) }) else {
            throw ServiceError(.notFound, "container '\(container)' does not exist; create it with `stratus container create \(container)`")
        }
        knownContainers.withLock { _ = $0.insert(container) }
    }
}
